// The by-name catalogue (rt::catalogue, rt::call): every operator and penalty of the run-time API
// with its parameter list, for the text, JSON and Python front ends. Argument kinds are checked
// here; everything else by the functions called (the typed DSL's checks and sentences).
#include <cmath>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "proxgen/messages.hpp"
#include "proxgen/runtime.hpp"

namespace proxgen::rt {

std::string Signature::text() const {
    std::string s = name + "(";
    int optional_open = 0;
    for (std::size_t i = 0; i < params.size(); ++i) {
        const Parameter& p = params[i];
        const char* sep = i ? ", " : "";
        if (p.optional) {
            s += fmt::format("[{}{}", sep, p.name);
            ++optional_open;
        } else {
            s += fmt::format("{}{}", sep, p.name);
        }
        if (p.repeated) s += ", ...";
    }
    return s + std::string(optional_open, ']') + ")";
}

namespace {

using Kind = Parameter::Kind;

const char* kind_name(Kind k) {
    switch (k) {
    case Kind::expression: return "a linear or affine expression of a variable";
    case Kind::image: return "an image";
    case Kind::number: return "a number";
    case Kind::integer: return "an integer";
    case Kind::integers: return "a list of integers";
    case Kind::word: return "a word";
    case Kind::operand: return "an expression or an image";
    }
    return "?";
}

const char* held_name(const Argument& a) {
    switch (a.index()) {
    case 0: return "an expression";
    case 1: return "an image";
    case 2: return "a number";
    case 3: return "a list of integers";
    default: return "a word";
    }
}

bool matches(const Argument& a, Kind k) {
    switch (k) {
    case Kind::expression: return std::holds_alternative<Expr>(a);
    case Kind::image: return std::holds_alternative<Data>(a);
    case Kind::number: return std::holds_alternative<double>(a);
    case Kind::integer: return std::holds_alternative<double>(a);  // checked to be integral when read
    case Kind::integers: return std::holds_alternative<std::vector<int>>(a);
    case Kind::word: return std::holds_alternative<std::string>(a);
    case Kind::operand: return std::holds_alternative<Expr>(a) || std::holds_alternative<Data>(a);
    }
    return false;
}

/// The arguments of one call, bound to the signature's parameters by name.
class Bound {
public:
    Bound(const Signature& sig, const std::vector<Argument>& args) : sig_(sig) {
        std::size_t a = 0;
        for (const Parameter& p : sig.params) {
            if (a < args.size() && matches(args[a], p.kind)) {
                bound_.push_back({p.name, &args[a++]});
                while (p.repeated && a < args.size() && matches(args[a], p.kind)) bound_.push_back({p.name, &args[a++]});
            } else if (!p.optional) {
                if (a < args.size()) wrong_kind(p, args[a]);
                fail("{}: missing argument '{}' ({}); {} takes {}", sig.name, p.name, kind_name(p.kind), sig.name,
                     sig.text());
            }
        }
        if (a < args.size())
            fail("{}: too many arguments ({}, and argument {} is {}); {} takes {}", sig.name, args.size(), a + 1,
                 held_name(args[a]), sig.name, sig.text());
    }

    bool has(const char* name) const { return find(name) != nullptr; }
    const Expr& expr(const char* name) const { return std::get<Expr>(*get(name)); }
    const Data& data(const char* name) const { return std::get<Data>(*get(name)); }
    double number(const char* name) const { return std::get<double>(*get(name)); }
    int integer(const char* name) const {
        const double v = number(name);
        if (v != std::floor(v) || std::abs(v) > 1e9) fail("{}: argument '{}' must be an integer, got {}", sig_.name, name, v);
        return int(v);
    }
    const std::vector<int>& integers(const char* name) const { return std::get<std::vector<int>>(*get(name)); }
    const std::string& word(const char* name) const { return std::get<std::string>(*get(name)); }
    const Argument& operand(const char* name) const { return *get(name); }
    /// Every expression bound to a repeated parameter and the ones before it.
    std::vector<Expr> exprs() const {
        std::vector<Expr> out;
        for (const auto& [n, a] : bound_)
            if (std::holds_alternative<Expr>(*a)) out.push_back(std::get<Expr>(*a));
        return out;
    }
    /// An image that must not be a named input (its derived data are fixed when the node is built).
    const Image& fixed_image(const char* name) const {
        const Data& d = data(name);
        if (!d.name().empty())
            fail("{}: argument '{}' is fixed when the node is built (data derived from it are part of the node), so "
                 "it cannot be the named input '{}': pass the image itself", sig_.name, name, d.name());
        return d.image();
    }

private:
    void wrong_kind(const Parameter& p, const Argument& a) const {
        if (p.kind == Kind::expression && sig_.params.size() && &p == &sig_.params.front() && is_penalty())
            fail(PROXGEN_MSG_TAKES_EXPRESSION("{}"), sig_.name);
        if (p.kind == Kind::expression && is_penalty()) fail(PROXGEN_MSG_WEIGHTED_TAKES_EXPRESSION);
        fail("{}: argument '{}' must be {}, got {}; {} takes {}", sig_.name, p.name, kind_name(p.kind), held_name(a),
             sig_.name, sig_.text());
    }
    bool is_penalty() const { return sig_.penalty; }
    const Argument* find(const char* name) const {
        for (const auto& [n, a] : bound_)
            if (n == name) return a;
        return nullptr;
    }
    const Argument* get(const char* name) const {
        const Argument* a = find(name);
        PROXGEN_INTERNAL_ASSERT(a != nullptr);
        return a;
    }

    const Signature& sig_;
    std::vector<std::pair<std::string, const Argument*>> bound_;
};

ConvBoundary conv_boundary(const Bound& b) {
    if (!b.has("boundary")) return ConvBoundary::circular;
    const std::string& w = b.word("boundary");
    if (w == "circular") return ConvBoundary::circular;
    if (w == "zero") return ConvBoundary::zero;
    if (w == "replicate") return ConvBoundary::replicate;
    fail("{} (by name: circular, zero or replicate), got '{}'", PROXGEN_MSG_CONV_BOUNDARY, w);
}

GradBoundary grad_boundary(const Bound& b) {
    if (!b.has("boundary")) return GradBoundary::neumann;
    const std::string& w = b.word("boundary");
    if (w == "neumann") return GradBoundary::neumann;
    if (w == "periodic") return GradBoundary::periodic;
    fail("{} (by name: neumann or periodic), got '{}'", PROXGEN_MSG_GRAD_BOUNDARY, w);
}

/// a + b or a - b, each an expression or an image (not both images).
Value arithmetic(const Bound& b, const char* op, int sign) {
    const Argument& x = b.operand("a");
    const Argument& y = b.operand("b");
    const Expr* ex = std::get_if<Expr>(&x);
    const Expr* ey = std::get_if<Expr>(&y);
    if (ex && ey) return sign > 0 ? *ex + *ey : *ex - *ey;
    if (ex) return sign > 0 ? *ex + std::get<Data>(y) : *ex - std::get<Data>(y);
    if (ey) return sign > 0 ? std::get<Data>(x) + *ey : std::get<Data>(x) - *ey;
    fail("{}: both operands are images; one must be an expression of a variable", op);
}

struct Entry {
    Signature signature;
    std::function<Value(const Bound&)> build;
};

Parameter expr(const char* name) { return {name, Kind::expression}; }
Parameter image(const char* name) { return {name, Kind::image}; }
Parameter number(const char* name) { return {name, Kind::number}; }
Parameter integer(const char* name, bool optional = false) { return {name, Kind::integer, optional}; }
Parameter word(const char* name) { return {name, Kind::word, true}; }

/// Needs Halide code: listed, and calling it says so.
Value needs_halide(const char* name) {
    fail("{} is written in Halide code, which a problem built by name cannot carry: build it in C++ with "
         "proxgen/{}.hpp (the typed DSL)", name, name);
}

const std::vector<Entry>& entries() {
    static const std::vector<Entry> table = [] {
        std::vector<Entry> t;
        auto op = [&](std::string name, std::vector<Parameter> params, std::function<Value(const Bound&)> build) {
            t.push_back({Signature{std::move(name), std::move(params), false}, std::move(build)});
        };
        auto penalty = [&](std::string name, std::vector<Parameter> params, std::function<Value(const Bound&)> build) {
            t.push_back({Signature{std::move(name), std::move(params), true}, std::move(build)});
        };
        op("conv", {image("kernel"), expr("e"), word("boundary")},
           [](const Bound& b) { return conv(b.data("kernel"), b.expr("e"), conv_boundary(b)); });
        op("conv_nofft", {image("kernel"), expr("e")}, [](const Bound& b) { return conv_nofft(b.data("kernel"), b.expr("e")); });
        op("grad", {expr("e"), {"axes", Kind::integers, true}, word("boundary")}, [](const Bound& b) {
            return grad(b.expr("e"), b.has("axes") ? b.integers("axes") : std::vector<int>{0, 1}, grad_boundary(b));
        });
        op("mul_elemwise", {image("weight"), expr("e")}, [](const Bound& b) { return mul_elemwise(b.data("weight"), b.expr("e")); });
        op("subsample", {expr("e"), integer("step_x"), integer("step_y")},
           [](const Bound& b) { return subsample(b.expr("e"), b.integer("step_x"), b.integer("step_y")); });
        op("uneven_subsample", {expr("e"), image("ix"), image("iy")}, [](const Bound& b) {
            return uneven_subsample(b.expr("e"), b.fixed_image("ix"), b.fixed_image("iy"));
        });
        op("warp", {expr("e"), image("H"), integer("out_width", true), integer("out_height", true)}, [](const Bound& b) {
            return warp(b.expr("e"), b.fixed_image("H"), b.has("out_width") ? b.integer("out_width") : 0,
                        b.has("out_height") ? b.integer("out_height") : 0);
        });
        op("crop", {expr("e"), integer("x0"), integer("y0"), integer("width"), integer("height")}, [](const Bound& b) {
            return crop(b.expr("e"), b.integer("x0"), b.integer("y0"), b.integer("width"), b.integer("height"));
        });
        op("pad", {expr("e"), integer("left"), integer("top"), integer("right"), integer("bottom")}, [](const Bound& b) {
            return pad(b.expr("e"), b.integer("left"), b.integer("top"), b.integer("right"), b.integer("bottom"));
        });
        op("transpose", {expr("e"), {"perm", Kind::integers}}, [](const Bound& b) { return transpose(b.expr("e"), b.integers("perm")); });
        op("reshape", {expr("e"), {"shape", Kind::integers}}, [](const Bound& b) { return reshape(b.expr("e"), b.integers("shape")); });
        op("merge_last_axes", {expr("e")}, [](const Bound& b) { return merge_last_axes(b.expr("e")); });
        op("concat", {expr("a"), expr("b"), integer("axis")},
           [](const Bound& b) { return concat(b.expr("a"), b.expr("b"), b.integer("axis")); });
        op("vstack", {expr("a"), {"b", Kind::expression, false, true}}, [](const Bound& b) { return vstack(b.exprs()); });
        op("hstack", {expr("a"), {"b", Kind::expression, false, true}}, [](const Bound& b) { return hstack(b.exprs()); });
        op("mul_color", {expr("e"), image("matrix")}, [](const Bound& b) { return mul_color(b.expr("e"), b.data("matrix")); });
        op("pxwise_matmul", {image("matrices"), expr("e")},
           [](const Bound& b) { return pxwise_matmul(b.data("matrices"), b.expr("e")); });
        op("user_operator", {expr("e")}, [](const Bound&) { return needs_halide("user_operator"); });
        // arithmetic, for graph front ends whose nodes are operations
        // arithmetic, for graph front ends whose nodes are operations: a ± b of expressions, or of an
        // expression and an image (an offset)
        op("add", {{"a", Kind::operand}, {"b", Kind::operand}},
           [](const Bound& b) { return arithmetic(b, "add", +1); });
        op("subtract", {{"a", Kind::operand}, {"b", Kind::operand}},
           [](const Bound& b) { return arithmetic(b, "subtract", -1); });
        op("negate", {expr("e")}, [](const Bound& b) { return -b.expr("e"); });
        op("scale", {number("factor"), expr("e")}, [](const Bound& b) { return b.number("factor") * b.expr("e"); });

        auto unary = [&](const char* name, Problem (*f)(const Expr&)) {
            penalty(name, {expr("e")}, [f](const Bound& b) { return f(b.expr("e")); });
        };
        unary("sum_squares", sum_squares);
        unary("least_squares", least_squares);
        unary("norm1", norm1);
        unary("group_norm1", group_norm1);
        unary("nonneg", nonneg);
        unary("sum_entries", sum_entries);
        unary("patch_nlm", patch_nlm);
        penalty("poisson_norm", {expr("e"), image("counts")},
                [](const Bound& b) { return poisson_norm(b.expr("e"), b.data("counts")); });
        penalty("masked_nonneg", {expr("e"), image("mask")},
                [](const Bound& b) { return masked_nonneg(b.expr("e"), b.data("mask")); });
        penalty("box", {expr("e"), number("lo"), number("hi")},
                [](const Bound& b) { return box(b.expr("e"), b.number("lo"), b.number("hi")); });
        penalty("huber", {expr("e"), number("M")}, [](const Bound& b) { return huber(b.expr("e"), b.number("M")); });
        auto weighted = [&](const char* name, Problem (*f)(const Data&, const Expr&)) {
            penalty(name, {image("w"), expr("e")}, [f](const Bound& b) { return f(b.data("w"), b.expr("e")); });
        };
        weighted("weighted_sum_squares", weighted_sum_squares);
        weighted("weighted_norm1", weighted_norm1);
        weighted("weighted_nonneg", weighted_nonneg);
        weighted("weighted_group_norm1", weighted_group_norm1);
        penalty("weighted_poisson_norm", {image("w"), expr("e"), image("counts")}, [](const Bound& b) {
            return weighted_poisson_norm(b.data("w"), b.expr("e"), b.data("counts"));
        });
        penalty("diff_fn", {expr("e")}, [](const Bound&) { return needs_halide("diff_fn"); });
        return t;
    }();
    return table;
}

}  // namespace

const std::vector<Signature>& catalogue() {
    static const std::vector<Signature> list = [] {
        std::vector<Signature> s;
        for (const auto& e : entries()) s.push_back(e.signature);
        return s;
    }();
    return list;
}

Value call(std::string_view name, const std::vector<Argument>& args) {
    for (const auto& e : entries())
        if (e.signature.name == name) return e.build(Bound(e.signature, args));
    fail("unknown operator or penalty '{}'", name);
}

}  // namespace proxgen::rt
