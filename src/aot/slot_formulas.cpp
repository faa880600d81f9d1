#include "slot_formulas.hpp"

#include <cmath>

#include <fmt/format.h>

#include "proxgen/error.hpp"
#include "proxgen/traits/linear_traits.hpp"

namespace proxgen::aot {

namespace {

bool has_variable(const ir::Node& n) {
    if (n.op == ir::Op::variable) return true;
    for (const auto& a : n.args)
        if (has_variable(a)) return true;
    return false;
}

using traits::abs_range;  // the same |w| range as the traits use

/// diagonal_min_abs of linear_traits: a lower bound on |d| for a diagonal operator, 0 if unknown.
/// The IR writes `e ± b` as sum(e, constant part); like offset_t, it keeps e's bound.
double diagonal_min_abs(const ir::Node& n) {
    switch (n.op) {
    case ir::Op::variable: return 1.0;
    case ir::Op::scale: return std::abs(n.scalar) * diagonal_min_abs(n.args[0]);
    case ir::Op::mul_elemwise: return abs_range(n.image).first * diagonal_min_abs(n.args[0]);
    case ir::Op::sum:
        if (!has_variable(n.args[1])) return diagonal_min_abs(n.args[0]);
        if (!has_variable(n.args[0])) return diagonal_min_abs(n.args[1]);
        return 0.0;
    default: return 0.0;
    }
}

std::string diagonal_min_abs_code(const ir::Node& n) {
    switch (n.op) {
    case ir::Op::variable: return "1.0";
    case ir::Op::scale:
        return fmt::format("std::abs(scalars[{}]) * {}", n.scalar_slot, diagonal_min_abs_code(n.args[0]));
    case ir::Op::mul_elemwise:
        return fmt::format("proxgen::aot::abs_range(images[{}]).first * {}", n.image_slot,
                           diagonal_min_abs_code(n.args[0]));
    case ir::Op::sum:
        if (!has_variable(n.args[1])) return diagonal_min_abs_code(n.args[0]);
        if (!has_variable(n.args[0])) return diagonal_min_abs_code(n.args[1]);
        return "0.0";
    default: return "0.0";
    }
}

bool is_diagonal(const ir::Node& n) {
    switch (n.op) {
    case ir::Op::variable:
    case ir::Op::constant: return true;
    case ir::Op::scale:
    case ir::Op::mul_elemwise: return is_diagonal(n.args[0]);
    case ir::Op::sum: return is_diagonal(n.args[0]) && is_diagonal(n.args[1]);
    default: return false;
    }
}

bool curvature_counts(const ir::Term& t) { return t.penalty == ir::Penalty::sum_squares && is_diagonal(t.expr); }

}  // namespace

double strong_convexity(const ir::Problem& p) {
    double mu = 0;
    for (const auto& t : p.omega) {
        if (!curvature_counts(t)) continue;
        double dmin = diagonal_min_abs(t.expr) * std::abs(t.beta);
        if (!t.arg_weight.empty()) dmin *= abs_range(t.arg_weight).first;
        mu += 2.0 * t.weight * dmin * dmin;
    }
    return mu;
}

std::string strong_convexity_code(const ir::Problem& p) {
    std::string s = "double mu = 0;\n";
    for (const auto& t : p.omega) {
        if (!curvature_counts(t)) continue;
        s += fmt::format("        {{\n            double dmin = {} * std::abs(scalars[{}]);\n",
                         diagonal_min_abs_code(t.expr), t.beta_slot);
        if (t.arg_weight_slot >= 0)
            s += fmt::format("            dmin *= proxgen::aot::abs_range(images[{}]).first;\n", t.arg_weight_slot);
        s += fmt::format("            mu += 2.0 * scalars[{}] * dmin * dmin;\n        }}\n", t.weight_slot);
    }
    return s + "        return mu;";
}

std::string curvature_scale_code(const ir::Problem& p) {
    std::string s = "double omega = 0;\n";
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) {
            const std::string scale = fmt::format("double(scalars[{}]) * scalars[{}] * scalars[{}] * std::pow({}, 2)",
                                                  t.weight_slot, t.beta_slot, t.beta_slot, norm_bound_code(t.expr));
            if (t.penalty == ir::Penalty::sum_squares) {
                const std::string w = t.arg_weight_slot >= 0
                                          ? fmt::format("proxgen::aot::abs_range(images[{}]).second", t.arg_weight_slot)
                                          : std::string("1.0");
                s += fmt::format("        omega += 2.0 * {} * std::pow({}, 2);\n", scale, w);
            } else if (t.penalty == ir::Penalty::poisson && t.data_slot >= 0) {
                s += fmt::format("        omega += {} * proxgen::aot::mean_inverse_counts(images[{}]);\n", scale,
                                 t.data_slot);
            }
        }
    return s + "        return omega;";
}

std::string norm_bound_code(const ir::Node& n) {
    switch (n.op) {
    case ir::Op::variable: return "1.0";
    case ir::Op::constant: return "0.0";
    case ir::Op::conv:
        return fmt::format("(proxgen::aot::l1_norm(images[{}]) * {})", n.image_slot, norm_bound_code(n.args[0]));
    case ir::Op::grad: return fmt::format("(std::sqrt(8.0) * {})", norm_bound_code(n.args[0]));
    case ir::Op::mul_elemwise:
        return fmt::format("(proxgen::aot::abs_range(images[{}]).second * {})", n.image_slot,
                           norm_bound_code(n.args[0]));
    case ir::Op::scale:
        return fmt::format("(std::abs(scalars[{}]) * {})", n.scalar_slot, norm_bound_code(n.args[0]));
    case ir::Op::sum: return fmt::format("({} + {})", norm_bound_code(n.args[0]), norm_bound_code(n.args[1]));
    case ir::Op::subsample: return norm_bound_code(n.args[0]);
    }
    fail("ahead-of-time solvers: no norm bound for operator {} yet", ir::name(n.op));
    return {};
}

std::string shape_code(const ir::Node& n) {
    switch (n.op) {
    case ir::Op::variable: return "v";
    case ir::Op::constant: return fmt::format("proxgen::aot::extents(images[{}])", n.image_slot);
    case ir::Op::grad: return fmt::format("proxgen::aot::with_axis({}, 2)", shape_code(n.args[0]));
    case ir::Op::subsample:
        return fmt::format("proxgen::aot::subsampled({}, {}, {})", shape_code(n.args[0]), n.step_x, n.step_y);
    case ir::Op::conv:
    case ir::Op::mul_elemwise:
    case ir::Op::scale:
    case ir::Op::sum: return shape_code(n.args[0]);
    }
    fail("ahead-of-time solvers: no shape rule for operator {} yet", ir::name(n.op));
    return {};
}

}  // namespace proxgen::aot
