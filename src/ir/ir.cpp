#include "proxgen/ir/ir.hpp"

#include <cmath>

#include <fmt/format.h>

#include "proxgen/error.hpp"
#include "proxgen/diff_fn.hpp"
#include "proxgen/plan/facts.hpp"
#include "proxgen/user_operator.hpp"

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
    case Op::crop: return "crop";
    case Op::pad: return "pad";
    case Op::transpose: return "transpose";
    case Op::reshape: return "reshape";
    case Op::concat: return "concat";
    case Op::uneven_subsample: return "uneven_subsample";
    case Op::mul_color: return "mul_color";
    case Op::pxwise_matmul: return "pxwise_matmul";
    case Op::warp: return "warp";
    case Op::user: return "user_operator";
    }
    return "?";
}

const char* name(Penalty p) { return plan::penalty_facts(p).name; }

namespace {

bool has_image(Op op) {
    switch (op) {
    case Op::conv:
    case Op::mul_elemwise:
    case Op::constant:
    case Op::uneven_subsample:
    case Op::mul_color:
    case Op::pxwise_matmul:
    case Op::warp: return true;
    default: return false;
    }
}

/// What a node's image is, for error messages.
const char* image_role(Op op) {
    switch (op) {
    case Op::conv: return "kernel";
    case Op::mul_elemwise: return "weight";
    case Op::uneven_subsample: return "index";
    case Op::mul_color:
    case Op::pxwise_matmul: return "matrix";
    case Op::warp: return "homography";
    default: return "constant";
    }
}

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
    if (n.op == Op::variable && n.variable != 0) out += fmt::format("#v{}", n.variable);
    if (n.op == Op::subsample) out += fmt::format(":{}:{}", n.step_x, n.step_y);
    if (n.op == Op::grad && n.periodic) out += ":periodic";
    if (n.op == Op::conv && n.boundary != ConvBoundary::circular) out += fmt::format(":b{}", int(n.boundary));
    if (!n.ints.empty()) out += fmt::format("<{}>", fmt::join(n.ints, ","));
    // a user operator's Funcs are part of the structure: one compiled pipeline per definition
    if (n.op == Op::user) out += fmt::format("#{}", n.user->id);
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
            t.beta_slot = scalars++;
            t.arg_weight_slot = t.arg_weight.empty() ? -1 : images++;
            t.offset_slot = t.offset.empty() ? -1 : images++;
            t.data_slot = t.data.empty() ? -1 : images++;
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
    std::string s = fmt::format("var/{};{};{};", p.variable_shape.size(), name(p.algorithm), plan::name(p.x_update));
    for (const auto* terms : {&p.omega, &p.psi}) {
        s += terms == &p.omega ? "omega:" : "psi:";
        for (const auto& t : *terms) {
            s += name(t.penalty);
            s += fmt::format("[{}{}{}]", t.arg_weight.dimensions(), t.offset.empty() ? "" : "c", t.data.empty() ? "" : "d");
            if (t.smooth) s += fmt::format("#{}:{}", t.smooth->id, t.smooth->steps);  // its Halide Expr is structure
            s += "(";
            sign(t.expr, s);
            s += ");";
        }
    }
    return s;
}

namespace {
void require_finite(const Image& img, const std::string& what) {
    const float* d = img.data();
    for (std::size_t i = 0; i < img.size(); ++i)
        if (!std::isfinite(d[i]))
            fail("{}: contains a non-finite value ({}) at element {}", what, d[i], i);
}
}  // namespace

void validate(const Problem& p) {
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) {
            if (!t.arg_weight.empty()) require_finite(t.arg_weight, t.text + ": the weight image");
            if (!t.offset.empty()) require_finite(t.offset, t.text + ": the constant image");
            if (!t.data.empty()) require_finite(t.data, t.text + ": the data image");
            if (!std::isfinite(t.beta)) fail("{}: the scale factor is not finite", t.text);
        }
    for_each_node(p, [&](const Node& n) {
        if (n.op != Op::variable) return;
        const std::vector<int>& shape = std::size_t(n.variable) < p.variables.size() ? p.variables[n.variable].shape
                                                                                    : p.variable_shape;
        if (n.shape != shape)
            fail("variable: one problem uses the same variable with two sizes, {} and {}",
                 proxgen::shape_string(n.shape), proxgen::shape_string(shape));
    });
    for_each_node(p, [](const Node& n) {
        if (!has_image(n.op)) return;
        const float* d = n.image.data();
        for (std::size_t i = 0; i < n.image.size(); ++i)
            if (!std::isfinite(d[i]))
                fail("{}: its {} image ({}) contains a non-finite value ({}) at element {}", name(n.op),
                     image_role(n.op), n.image.shape_string(), d[i], i);
    });
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms)
            if (!std::isfinite(t.weight) || t.weight < 0)
                fail("{}: weight must be finite and non-negative, got {}", t.text, t.weight);
}

std::string to_string(const Term& t) {
    std::string arg = to_string(t.expr);
    if (t.beta != 1.0f) arg = fmt::format("{:g}*{}", t.beta, arg);
    if (!t.arg_weight.empty() && t.penalty != Penalty::group_norm1) arg = fmt::format("w[{}]*{}", t.arg_weight.shape_string(), arg);
    if (!t.offset.empty()) arg += fmt::format(" + c[{}]", t.offset.shape_string());
    if (!t.data.empty()) arg += fmt::format(", counts[{}]", t.data.shape_string());
    const char* weighted = !t.arg_weight.empty() ? "weighted_" : "";
    return fmt::format("{:g} * {}{}({})", t.weight, weighted, name(t.penalty), arg);
}

std::string to_string(const Node& n) {
    switch (n.op) {
    case Op::variable: return n.name.empty() ? "x" : n.name;
    case Op::constant: return fmt::format("b[{}]", n.image.shape_string());
    case Op::conv:
        return fmt::format("conv(k[{}], {}{})", n.image.shape_string(), to_string(n.args[0]),
                           n.boundary == ConvBoundary::zero ? ", zero" : n.boundary == ConvBoundary::replicate ? ", replicate" : "");
    case Op::grad:
        return fmt::format("grad({}{}{})", to_string(n.args[0]),
                           n.ints.empty() ? std::string() : fmt::format(", axes {{{}}}", fmt::join(n.ints, ",")),
                           n.periodic ? ", periodic" : "");
    case Op::mul_elemwise: return fmt::format("mul_elemwise(w, {})", to_string(n.args[0]));
    case Op::scale: return fmt::format("{:g}*{}", n.scalar, to_string(n.args[0]));
    case Op::sum: return fmt::format("({} + {})", to_string(n.args[0]), to_string(n.args[1]));
    case Op::subsample:
        return fmt::format("subsample({}, {}, {})", to_string(n.args[0]), n.step_x, n.step_y);
    case Op::crop:
        return fmt::format("crop({}, {}, {}, {})", to_string(n.args[0]), n.ints[0], n.ints[1], shape_string(n.shape));
    case Op::pad:
        return fmt::format("pad({}, {}, {}, {})", to_string(n.args[0]), n.ints[0], n.ints[1], shape_string(n.shape));
    case Op::transpose: return fmt::format("transpose({}, {{{}}})", to_string(n.args[0]), fmt::join(n.ints, ","));
    case Op::reshape: return fmt::format("reshape({}, {})", to_string(n.args[0]), shape_string(n.shape));
    case Op::concat:
        return fmt::format("{}({}, {})", n.ints[0] == 0 ? "hstack" : n.ints[0] == 1 ? "vstack" : "concat",
                           to_string(n.args[0]), to_string(n.args[1]));
    case Op::uneven_subsample: return fmt::format("uneven_subsample({})", to_string(n.args[0]));
    case Op::mul_color: return fmt::format("mul_color(M, {})", to_string(n.args[0]));
    case Op::pxwise_matmul: return fmt::format("pxwise_matmul(A[{}], {})", n.image.shape_string(), to_string(n.args[0]));
    case Op::warp: return fmt::format("warp({}, H)", to_string(n.args[0]));
    case Op::user: return fmt::format("{}({})", n.user->name, to_string(n.args[0]));
    }
    return "?";
}

}  // namespace proxgen::ir
