// The by-name machinery every card's entries share: a signature's text, binding a call's
// arguments to its parameters (kinds, counts, integrality: sentences naming the entry and the
// parameter), and the checks whose sentences both front ends give.
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/check/rules.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::catalogue {

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
    case Kind::number_or_word: return "a number or a word";
    }
    return "?";
}

const char* held_name(const Arg& a) {
    switch (a.index()) {
    case 0: return "an expression";
    case 1: return "an image";
    case 2: return "a number";
    case 3: return "a list of integers";
    default: return "a word";
    }
}

bool matches(const Arg& a, Kind k) {
    switch (k) {
    case Kind::expression: return std::holds_alternative<ir::Node>(a);
    case Kind::image: return std::holds_alternative<ImageArg>(a);
    case Kind::number: return std::holds_alternative<double>(a);
    case Kind::integer: return std::holds_alternative<double>(a);  // checked to be integral when read
    case Kind::integers: return std::holds_alternative<std::vector<int>>(a);
    case Kind::word: return std::holds_alternative<std::string>(a);
    case Kind::operand: return std::holds_alternative<ir::Node>(a) || std::holds_alternative<ImageArg>(a);
    case Kind::number_or_word: return std::holds_alternative<double>(a) || std::holds_alternative<std::string>(a);
    }
    return false;
}

[[noreturn]] void wrong_kind(const Signature& sig, const Parameter& p, const Arg& a) {
    if (p.kind == Kind::expression && sig.penalty && &p == &sig.params.front())
        fail(PROXGEN_MSG_TAKES_EXPRESSION("{}"), sig.name);
    if (p.kind == Kind::expression && sig.penalty) fail(PROXGEN_MSG_WEIGHTED_TAKES_EXPRESSION);
    fail("{}: argument '{}' must be {}, got {}; {} takes {}", sig.name, p.name, kind_name(p.kind), held_name(a), sig.name,
         sig.text());
}

}  // namespace

Args::Args(const Signature& sig, const std::vector<Arg>& args) : sig_(sig) {
    std::size_t a = 0;
    for (const Parameter& p : sig.params) {
        if (a < args.size() && matches(args[a], p.kind)) {
            bound_.push_back({p.name, &args[a++]});
            while (p.repeated && a < args.size() && matches(args[a], p.kind)) bound_.push_back({p.name, &args[a++]});
        } else if (!p.optional) {
            if (a < args.size()) wrong_kind(sig, p, args[a]);
            fail("{}: missing argument '{}' ({}); {} takes {}", sig.name, p.name, kind_name(p.kind), sig.name, sig.text());
        }
    }
    if (a < args.size())
        fail("{}: too many arguments ({}, and argument {} is {}); {} takes {}", sig.name, args.size(), a + 1,
             held_name(args[a]), sig.name, sig.text());
}

const Arg* Args::find(std::string_view name) const {
    for (const auto& [n, a] : bound_)
        if (n == name) return a;
    return nullptr;
}

const Arg& Args::get(std::string_view name) const {
    const Arg* a = find(name);
    PROXGEN_INTERNAL_ASSERT(a != nullptr);
    return *a;
}

bool Args::has(std::string_view name) const { return find(name) != nullptr; }
const ir::Node& Args::expr(std::string_view name) const { return std::get<ir::Node>(get(name)); }
const ImageArg& Args::image(std::string_view name) const { return std::get<ImageArg>(get(name)); }
double Args::number(std::string_view name) const { return std::get<double>(get(name)); }
const std::vector<int>& Args::integers(std::string_view name) const { return std::get<std::vector<int>>(get(name)); }
const std::string& Args::word(std::string_view name) const { return std::get<std::string>(get(name)); }
const Arg& Args::operand(std::string_view name) const { return get(name); }

double Args::number_or_word(std::string_view name) const {
    const Arg& a = get(name);
    if (const double* v = std::get_if<double>(&a)) return *v;
    const std::string& w = std::get<std::string>(a);
    if (w == "inf" || w == "infinity") return INFINITY;
    char* end = nullptr;
    const double v = std::strtod(w.c_str(), &end);
    if (w.empty() || *end != '\0') fail("{}: argument '{}' must be a number or \"inf\", got '{}'", sig_.name, name, w);
    return v;
}

int Args::integer(std::string_view name) const {
    const double v = number(name);
    if (v != std::floor(v) || std::abs(v) > 1e9) fail("{}: argument '{}' must be an integer, got {}", sig_.name, name, v);
    return int(v);
}

std::vector<ir::Node> Args::exprs() const {
    std::vector<ir::Node> out;
    for (const auto& [n, a] : bound_)
        if (const auto* e = std::get_if<ir::Node>(a)) out.push_back(*e);
    return out;
}

const Image& Args::fixed_image(std::string_view name) const {
    const ImageArg& d = image(name);
    if (!d.name.empty())
        fail("{}: argument '{}' is fixed when the node is built (data derived from it are part of the node), so it "
             "cannot be the named input '{}': pass the image itself", sig_.name, name, d.name);
    return d.image;
}

int Args::choice(std::string_view name, const std::vector<std::string>& choices, int fallback, const char* what) const {
    if (!has(name)) return fallback;
    const std::string& w = word(name);
    for (std::size_t i = 0; i < choices.size(); ++i)
        if (choices[i] == w) return int(i);
    std::string list;
    for (std::size_t i = 0; i < choices.size(); ++i)
        list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    fail("{} (by name: {}), got '{}'", what, list, w);
}

// ---- shared checks ------------------------------------------------------------------------------

namespace check {

void image(const Image& img, std::string_view op, std::string_view what) {
    if (img.empty()) fail("{}: the {} image is empty", op, what);
}

void same_shape(std::string_view op, std::string_view left_name, const std::vector<int>& left,
                std::string_view right_name, const std::vector<int>& right) {
    if (std::string m = rules::same_shape(op, left_name, left, right_name, right); !m.empty()) fail("{}", m);
}

void plane(std::string_view op, const std::vector<int>& operand) {
    if (operand.size() < 2)
        fail("{}: works on the image plane, so its operand needs at least 2 axes, got {}", op, shape_string(operand));
}

float weight(double w) {
    if (std::string m = rules::weight(w); !m.empty()) throw Error("scalar * penalty: " + m);
    return static_cast<float>(w);
}

float weight(double w, const std::string& parameter) {
    if (parameter.empty()) return weight(w);
    if (std::string m = rules::weight(w); !m.empty())
        throw Error(fmt::format("scalar * penalty: parameter '{}': {}", parameter, m));
    return static_cast<float>(w);
}

float weight_product(double w, std::string_view penalty) {
    if (!(w <= rules::float32_max))
        fail("scalar * penalty: the weights of {} multiply to {:.4g}{}", penalty, w, rules::float32_overflow_note(w));
    return static_cast<float>(w);
}

float scale(double factor) {
    if (std::string m = rules::scale(factor); !m.empty()) throw Error("scalar * expression: " + m);
    return static_cast<float>(factor);
}

std::vector<int> variable(std::vector<int> shape) {
    if (shape.size() != 2 && shape.size() != 3) fail(PROXGEN_MSG_VARIABLE_RANK);
    for (int s : shape)
        if (s <= 0) fail("variable: every size must be positive, got {}", fmt::join(shape, "x"));
    return shape;
}

}  // namespace check

}  // namespace proxgen::catalogue
