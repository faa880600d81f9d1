// Closed-form proxes, prox_{αf(·+c),ρ}(v) = argmin_z α f(z + c) + ρ/2 ‖z − v‖², and the closed-form
// Ω x-update. All formulas stay finite at v = 0 and at α = 0 (no 0/0).
#include "lowering.hpp"

#include "proxgen/error.hpp"

namespace proxgen::lower {

using namespace Halide;

Func prox(ir::Penalty pen, const Lowered& v, const std::optional<Func>& c, Expr alpha, Expr rho, Stages& st) {
    const int r = v.rank();
    const auto a = args(r);
    // Translate: prox of f(· + c) at v is prox_f(v + c) − c.
    Func u("prox_operand");
    u(a) = c ? v.f(a) + (*c)(a) : v.f(a);
    Expr t = alpha / rho;  // threshold of the scaled problem
    Expr p;
    switch (pen) {
    case ir::Penalty::sum_squares: p = u(a) / (1.0f + 2.0f * t); break;
    case ir::Penalty::norm1: p = u(a) - clamp(u(a), -t, t); break;
    case ir::Penalty::nonneg: p = max(u(a), 0.0f); break;
    case ir::Penalty::group_norm1: {
        // v · max(0, 1 − t/‖v_g‖), written as a select so a zero group gives 0, not 0/0.
        PROXGEN_INTERNAL_ASSERT(r >= 2);
        st.add(u);
        RDom g(0, v.extents.back(), "group");
        auto outer = args(r - 1);
        auto member = outer;
        member.push_back(g);
        Func norm2("group_norm2");
        norm2(outer) = 0.0f;
        norm2(outer) += u(member) * u(member);
        st.add(norm2);
        Expr n = sqrt(norm2(outer));
        p = select(n > t, 1.0f - t / n, 0.0f) * u(a);
        break;
    }
    }
    Func out(std::string("prox_") + ir::name(pen));
    out(a) = c ? p - (*c)(a) : p;
    return out;
}

Func omega_prox(Lowerer& L, const Lowered& v, Expr tau, Stages& st) {
    const int r = v.rank();
    const auto a = args(r);
    // Per pixel: (x − v)/τ + Σ 2α d (d x + c) = 0 with d = K(1), c = the term's constant; then the
    // clamp of nonneg(x) (exact for a 1-D convex quadratic restricted to x ≥ 0).
    Expr num = v.f(a), den = 1.0f;
    bool clamp_nonneg = false;
    const Lowered ones = constant_like(1.0f, L.variable_extents());
    for (const auto& t : L.problem().omega) {
        if (t.penalty == ir::Penalty::nonneg) {
            clamp_nonneg = true;
            continue;
        }
        PROXGEN_INTERNAL_ASSERT(t.penalty == ir::Penalty::sum_squares);
        Lowered d = L.forward(t.expr, ones, Part::linear, st);
        Lowered c = L.forward(t.expr, ones, Part::offset, st);
        Expr two_alpha_tau = 2.0f * L.weight(t) * tau;
        if (!c.is_zero) num -= two_alpha_tau * d.f(a) * c.f(a);
        den += two_alpha_tau * d.f(a) * d.f(a);
    }
    Func x("x_update");
    x(a) = clamp_nonneg ? max(num / den, 0.0f) : num / den;
    return x;
}

}  // namespace proxgen::lower
