// Which plans fuse (lowering.hpp: fused_components, local_term, psi_fusable, psi_blockable).
//
// A fused kernel writes one Tuple over the variable's domain: x's next value and every Ψ term's
// next dual / split values, so a Ψ term must lie over the variable's pixels (the same shape, or
// the same plus a stacked axis of static extent whose components become Tuple elements). Its
// operators must read their operands near each pixel, so that one strip of rows (plus a halo)
// computes them: wrap-arounds (circular conv, periodic grad) and scatters compute an operand over
// the whole image first, which a fused kernel could only do by storing it (the separate steps do
// exactly that, at no extra cost).
#include "lowering.hpp"
#include "proxgen/plan/planner.hpp"
#include "proxgen/catalogue/card.hpp"

namespace proxgen::lower {

using namespace Halide;

namespace {

/// Operators that keep the variable's spatial axes and read only near each pixel (their cards say).
bool local_operator(const ir::Node& n, bool blocking) {
    if (!catalogue::card_of(n).local(n, blocking)) return false;
    for (const auto& a : n.args)
        if (!local_operator(a, blocking)) return false;
    return true;
}

bool local_penalty(const ir::Term& t, bool blocking) {
    return catalogue::card_of(t).local(t, blocking, static_last_extent(t.expr));
}

}  // namespace

std::vector<int> fusion_domain(const ir::Problem& p) {
    if (p.variables.size() <= 1) return p.variable_shape;
    for (const auto& v : p.variables)
        if (v.shape != p.variables.front().shape) return {};
    return p.variables.front().shape;
}

int fused_components(const ir::Problem& p, const ir::Term& t) {
    const int rv = int(fusion_domain(p).size());
    const int r = int(t.expr.shape.size());
    if (rv < 2 || !local_operator(t.expr, false)) return 0;
    // local operators keep the variable's axes; grad stacks its components on one more axis
    if (r == rv) return static_last_extent(t.expr) > 0 ? 0 : 1;
    if (r == rv + 1) return static_last_extent(t.expr);
    return 0;
}

bool local_term(const ir::Term& t) { return local_operator(t.expr, false) && local_penalty(t, false); }

bool psi_fusable(const ir::Problem& p) {
    // one Tuple output over one variable's domain: problems in several variables run separate steps
    if (p.psi.empty() || p.variables.size() > 1 || plan::has_gradient_steps(p)) return false;
    for (const auto& t : p.psi)
        if (!local_term(t) || fused_components(p, t) == 0) return false;
    return true;
}

bool psi_fusable_state(const ir::Problem& p) {
    if (p.psi.empty() || p.variables.size() < 2 || fusion_domain(p).empty() || plan::has_gradient_steps(p)) return false;
    for (int j = 0; j < int(p.variables.size()); ++j)
        if (ir::block_update(p, j) != plan::XUpdate::closed_form_prox) return false;
    for (const auto& t : p.psi)
        if (!local_term(t) || fused_components(p, t) == 0) return false;
    return true;
}

bool psi_blockable(const ir::Problem& p) {
    if (!psi_fusable(p) || p.x_update != plan::XUpdate::closed_form_prox) return false;
    for (const auto& t : p.psi)
        if (!local_operator(t.expr, true) || !local_penalty(t, true)) return false;
    for (const auto& t : p.omega)
        if (!local_operator(t.expr, true)) return false;
    return true;
}

std::vector<Expr> components(const Func& v, int var_rank, int count) {
    const auto at = args(var_rank);
    if (v.dimensions() == var_rank) return {v(at)};
    std::vector<Expr> out;
    for (int k = 0; k < count; ++k) {
        auto a = at;
        a.push_back(k);
        out.push_back(v(a));
    }
    return out;
}

}  // namespace proxgen::lower
