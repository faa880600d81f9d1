#include "proxgen/ir/ir.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "../check/inputs.hpp"
#include "proxgen/error.hpp"

namespace proxgen::ir {

std::string_view name(const Node& n) { return n.op ? n.op->name() : std::string_view("?"); }
std::string_view name(const Term& t) { return t.penalty ? t.penalty->name() : std::string_view("?"); }

namespace {

void number(Node& n, int& images, int& scalars) {
    if (n.op->image_role()) n.image_slot = images++;
    if (n.op->holds_scalar()) n.scalar_slot = scalars++;
    for (auto& a : n.args) number(a, images, scalars);
}

void sign(const Node& n, std::string& out) {
    out += name(n);
    out += fmt::format("/{}", n.shape.size());
    if (n.is_variable() && n.variable != 0) out += fmt::format("#v{}", n.variable);
    if (!n.ints.empty()) out += fmt::format("<{}>", fmt::join(n.ints, ","));
    // code a program defines is part of the structure: one compiled pipeline per definition
    if (n.code) out += fmt::format("#{}", n.code->id);
    if (n.op->image_role()) out += fmt::format("[{}]", n.image.dimensions());
    if (!n.args.empty()) {
        out += "(";
        for (const auto& a : n.args) {
            sign(a, out);
            out += ",";
        }
        out += ")";
    }
}

}  // namespace

void assign_slots(Problem& p) {
    int images = 0, scalars = 0;
    for (auto* terms : {&p.omega, &p.psi})
        for (auto& t : *terms) {
            t.weight_slot = scalars++;
            t.beta_slot = scalars++;
            t.arg_weight_slot = t.arg_weight.empty() ? -1 : images++;
            t.offset_slot = t.offset.empty() ? -1 : images++;
            t.data_slot = t.data.empty() ? -1 : images++;
            number(t.expr, images, scalars);
        }
    p.image_slots = images;
    p.scalar_slots = scalars;
}

void for_each_node(const Node& n, const std::function<void(const Node&)>& f) {
    f(n);
    for (const auto& a : n.args) for_each_node(a, f);
}

void for_each_node(const Problem& p, const std::function<void(const Node&)>& f) {
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) for_each_node(t.expr, f);
}

std::vector<std::vector<int>> variable_shapes(const Problem& p) {
    std::vector<std::vector<int>> s;
    for (const auto& v : p.variables) s.push_back(v.shape);
    if (s.empty()) s.push_back(p.variable_shape);
    return s;
}

std::vector<int> state_shape(const Problem& p) {
    const auto shapes = variable_shapes(p);
    if (shapes.size() == 1) return shapes.front();
    double total = 0;
    for (const auto& s : shapes) {
        double e = 1;
        for (int d : s) e *= d;
        total += e;
    }
    if (total > 2147483647.0)
        throw OutOfMemory(fmt::format("the problem's variables hold {:.0f} elements together, more than one Halide "
                                      "buffer addresses (2147483647)",
                                      total));
    return {int(total)};
}

plan::XUpdate block_update(const Problem& p, int j) {
    return p.blocks.empty() ? p.x_update : p.blocks.at(std::size_t(j));
}

std::vector<int> variables_of(const Node& n) {
    std::vector<int> v;
    for_each_node(n, [&](const Node& m) {
        if (m.is_variable() && std::find(v.begin(), v.end(), m.variable) == v.end()) v.push_back(m.variable);
    });
    std::sort(v.begin(), v.end());
    return v;
}

std::vector<Image> split_state(const Problem& p, const Image& x) {
    if (p.variables.size() <= 1) return {x};
    return split_state(p.variables, x);
}

std::vector<Image> split_state(const std::vector<Variable>& variables, const Image& x) {
    if (variables.size() <= 1) return {x};
    std::vector<Image> out;
    std::size_t offset = 0;
    for (const auto& var : variables) {
        Image v(var.shape);
        PROXGEN_INTERNAL_ASSERT(offset + v.size() <= x.size());
        std::copy(x.data() + offset, x.data() + offset + v.size(), v.data());
        offset += v.size();
        out.push_back(std::move(v));
    }
    return out;
}

Image join_state(const Problem& p, const std::vector<Image>& values) {
    if (values.size() == 1) return values.front();  // shares its storage
    Image x(state_shape(p));
    std::size_t offset = 0;
    for (const auto& v : values) {
        std::copy(v.data(), v.data() + v.size(), x.data() + offset);
        offset += v.size();
    }
    return x;
}

std::string signature(const Problem& p) {
    std::string s = fmt::format("var/{};{};{};", p.variable_shape.size(), name(p.algorithm), plan::name(p.x_update));
    if (p.variables.size() > 1)
        for (std::size_t j = 0; j < p.variables.size(); ++j)
            s += fmt::format("v{}{};", p.variables[j].shape.size(),
                             j < p.blocks.size() ? plan::name(p.blocks[j]) : "");
    for (const auto* terms : {&p.omega, &p.psi}) {
        s += terms == &p.omega ? "omega:" : "psi:";
        for (const auto& t : *terms) s += signature(t);
    }
    return s;
}

std::string signature(const Term& t) {
    std::string s(name(t));
    s += fmt::format("[{}{}{}]", t.arg_weight.dimensions(), t.offset.empty() ? "" : "c", t.data.empty() ? "" : "d");
    if (!t.ints.empty()) s += fmt::format("<{}>", fmt::join(t.ints, ","));
    if (t.code) s += fmt::format("#{}", t.code->id);
    s += "(";
    sign(t.expr, s);
    s += ");";
    return s;
}

void validate(const Problem& p) {
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) {
            if (!t.arg_weight.empty()) check::finite(t.arg_weight, t.text + ": its weight image");
            if (!t.offset.empty()) check::finite(t.offset, t.text + ": its constant image");
            if (!t.data.empty()) check::finite(t.data, t.text + ": its data image");
            if (!std::isfinite(t.beta)) fail("{}: the scale factor is not finite", t.text);
        }
    for_each_node(p, [&](const Node& n) {
        if (!n.is_variable()) return;
        const std::vector<int>& shape = std::size_t(n.variable) < p.variables.size() ? p.variables[n.variable].shape
                                                                                    : p.variable_shape;
        if (n.shape != shape)
            fail("variable: one problem uses the same variable with two sizes, {} and {}",
                 proxgen::shape_string(n.shape), proxgen::shape_string(shape));
    });
    for_each_node(p, [](const Node& n) {
        if (!n.op->image_role() || n.image.empty()) return;
        check::finite(n.image, n.name.empty() ? fmt::format("{}: its {} image", name(n), n.op->image_role())
                                              : fmt::format("input '{}'", n.name));
    });
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms)
            if (!std::isfinite(t.weight) || t.weight < 0)
                fail("{}: weight must be finite and non-negative, got {}", t.text, t.weight);
}

namespace {
// to_string_named's switch: the texts describe prints keep the letters k, b, w, ... (a typed
// problem names no data, and describe reads the same for both front ends)
thread_local bool with_names = false;

}  // namespace

std::string data_label(const Node& n, const char* letter) { return with_names && !n.name.empty() ? n.name : letter; }

std::string to_string_named(const Term& t) {
    struct Scope {
        Scope() { with_names = true; }
        ~Scope() { with_names = false; }
    } scope;
    return to_string(t);
}

std::string to_string(const Term& t) {
    std::string arg = to_string(t.expr);
    if (t.beta != 1.0f) arg = fmt::format("{:g}*{}", t.beta, arg);
    if (!t.arg_weight.empty() && !t.penalty->weights_groups()) arg = fmt::format("w[{}]*{}", t.arg_weight.shape_string(), arg);
    if (!t.offset.empty()) arg += fmt::format(" + c[{}]", t.offset.shape_string());
    if (!t.data.empty()) arg += fmt::format(", {}[{}]", t.penalty->data_role(), t.data.shape_string());
    if (const std::string params = t.penalty->parameters_text(t); !params.empty()) arg += ", " + params;
    const char* weighted = !t.arg_weight.empty() ? "weighted_" : "";
    return fmt::format("{:g} * {}{}({})", t.weight, weighted, name(t), arg);
}

std::string to_string(const Node& n) {
    std::vector<std::string> operands;
    for (const auto& a : n.args) operands.push_back(to_string(a));
    return n.op->text(n, operands);
}

}  // namespace proxgen::ir
