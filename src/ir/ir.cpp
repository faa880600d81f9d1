#include "proxgen/ir/ir.hpp"

#include <cmath>

#include <fmt/format.h>

#include "proxgen/error.hpp"

namespace proxgen::ir {

const char* name(Op op) {
    switch (op) {
    case Op::variable: return "variable";
    case Op::constant: return "constant";
    case Op::conv: return "conv";
    case Op::grad: return "grad";
    case Op::mul_elemwise: return "mul_elemwise";
    case Op::scale: return "scale";
    case Op::sum: return "sum";
    case Op::subsample: return "subsample";
    }
    return "?";
}

const char* name(Penalty p) {
    switch (p) {
    case Penalty::sum_squares: return "sum_squares";
    case Penalty::norm1: return "norm1";
    case Penalty::group_norm1: return "group_norm1";
    case Penalty::nonneg: return "nonneg";
    }
    return "?";
}

namespace {

bool has_image(Op op) { return op == Op::conv || op == Op::mul_elemwise || op == Op::constant; }

void number(Node& n, int& images, int& scalars) {
    if (has_image(n.op)) n.image_slot = images++;
    if (n.op == Op::scale) n.scalar_slot = scalars++;
    for (auto& a : n.args) number(a, images, scalars);
}

void visit(const Node& n, const std::function<void(const Node&)>& f) {
    f(n);
    for (const auto& a : n.args) visit(a, f);
}

void sign(const Node& n, std::string& out) {
    out += name(n.op);
    out += fmt::format("/{}", n.shape.size());
    if (n.op == Op::subsample) out += fmt::format(":{}:{}", n.step_x, n.step_y);
    if (n.op == Op::grad && n.periodic) out += ":periodic";
    if (has_image(n.op)) out += fmt::format("[{}]", n.image.dimensions());
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
            number(t.expr, images, scalars);
        }
    p.image_slots = images;
    p.scalar_slots = scalars;
}

void for_each_node(const Problem& p, const std::function<void(const Node&)>& f) {
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) visit(t.expr, f);
}

std::string signature(const Problem& p) {
    std::string s = fmt::format("var/{};", p.variable_shape.size());
    for (const auto* terms : {&p.omega, &p.psi}) {
        s += terms == &p.omega ? "omega:" : "psi:";
        for (const auto& t : *terms) {
            s += name(t.penalty);
            s += "(";
            sign(t.expr, s);
            s += ");";
        }
    }
    return s;
}

void validate(const Problem& p) {
    for_each_node(p, [&](const Node& n) {
        if (n.op == Op::variable && n.shape != p.variable_shape)
            fail("variable: one problem uses the same variable with two sizes, {} and {}",
                 proxgen::shape_string(n.shape), proxgen::shape_string(p.variable_shape));
    });
    for_each_node(p, [](const Node& n) {
        if (!has_image(n.op)) return;
        const float* d = n.image.data();
        for (std::size_t i = 0; i < n.image.size(); ++i)
            if (!std::isfinite(d[i]))
                fail("{}: its {} image ({}) contains a non-finite value ({}) at element {}", name(n.op),
                     n.op == Op::conv ? "kernel" : n.op == Op::mul_elemwise ? "weight" : "constant",
                     n.image.shape_string(), d[i], i);
    });
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms)
            if (!std::isfinite(t.weight) || t.weight < 0)
                fail("{}: weight must be finite and non-negative, got {}", t.text, t.weight);
}

std::string to_string(const Node& n) {
    switch (n.op) {
    case Op::variable: return "x";
    case Op::constant: return fmt::format("b[{}]", n.image.shape_string());
    case Op::conv: return fmt::format("conv(k[{}], {})", n.image.shape_string(), to_string(n.args[0]));
    case Op::grad: return fmt::format("grad({}{})", to_string(n.args[0]), n.periodic ? ", periodic" : "");
    case Op::mul_elemwise: return fmt::format("mul_elemwise(w, {})", to_string(n.args[0]));
    case Op::scale: return fmt::format("{:g}*{}", n.scalar, to_string(n.args[0]));
    case Op::sum: return fmt::format("({} + {})", to_string(n.args[0]), to_string(n.args[1]));
    case Op::subsample:
        return fmt::format("subsample({}, {}, {})", to_string(n.args[0]), n.step_x, n.step_y);
    }
    return "?";
}

}  // namespace proxgen::ir
