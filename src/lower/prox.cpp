// Closed-form proxes in the generalised form  argmin_z α f(a ⊙ z + c) + ρ/2 ‖z − v‖²,  and the
// closed-form Ω x-update. With t = a z + c the problem becomes the plain prox of α f with
// parameter ρ/a² at a v + c, so every penalty's card gives only its plain prox. All formulas stay
// finite at v = 0, α = 0 and a = 0 (no 0/0 reaches the result).
#include "card_lowering.hpp"
#include "lowering.hpp"

#include "proxgen/error.hpp"
#include "proxgen/plan/planner.hpp"

namespace proxgen::lower {

using namespace Halide;

Func prox(const ProxSpec& f, const Lowered& v, Expr rho, Stages& st) {
    const int r = v.rank();
    const auto at = args(r);
    Expr a = f.a ? (*f.a)(at) : Expr(1.0f);
    Expr c = f.c ? (*f.c)(at) : Expr(0.0f);
    // t = a v + c, the prox parameter becomes ρ / a², so the threshold is α a² / ρ.
    Func t("prox_argument");
    t(at) = a * v.f(at) + c;
    Expr tau = f.alpha * a * a / rho;
    Back b{nullptr, st};
    Expr p = lowering(*f.term->penalty).prox(b, f, t, v.extents, tau);
    Func out("prox_" + std::string(ir::name(*f.term)));
    // z = (p − c)/a; where a = 0, f does not depend on z and the prox is the identity.
    out(at) = f.a ? select(a != 0.0f, (p - c) * (1.0f / a), v.f(at)) : p - c;
    return out;
}

namespace {
/// The closed-form Ω x-update of variable j at v (one variable: j = 0, every Ω term).
Func omega_prox_of(Lowerer& L, int j, const Lowered& v, Expr tau, Stages& st) {
    const int r = v.rank();
    const auto at = args(r);
    // Per pixel the Ω terms are α (e x + g)² (a quadratic of a diagonal operator: e = a ⊙ d,
    // g the term's constant) and constraints e x + g ≥ 0. Minimize the quadratic plus
    // 1/(2τ)(x − v)², then clamp to the interval the constraints leave (exact for a convex 1-D
    // quadratic on an interval).
    Expr num = v.f(at), den = 1.0f;
    Expr lo = Float(32).min(), hi = Float(32).max();
    State ones;
    for (int k = 0; k < L.variable_count(); ++k) ones.push_back(constant_like(1.0f, L.variable_extents(k)));
    for (const auto& t : L.problem().omega) {
        if (plan::gradient_step(L.problem(), t)) continue;  // Condat–Vũ's h: its gradient is in v
        if (L.variable_count() > 1) {
            const std::vector<int> reads = ir::variables_of(t.expr);
            PROXGEN_INTERNAL_ASSERT(reads.size() == 1);  // the planner sends coupling terms to Ψ
            if (reads.front() != j) continue;
        }
        ProxSpec f = L.prox_spec(t, ones, st);
        Lowered d = L.forward(t.expr, ones, Part::linear, st);
        Expr e = (*f.a)(at) * d.f(at);
        Expr g = f.c ? (*f.c)(at) : Expr(0.0f);
        if (catalogue::card_of(t).facts().interval) {
            // e x + g ≥ 0: x ≥ −g/e for e > 0, x ≤ −g/e for e < 0, nothing for e = 0
            Expr bound = -g / select(e == 0.0f, 1.0f, e);
            lo = select(e > 0.0f, max(lo, bound), lo);
            hi = select(e < 0.0f, min(hi, bound), hi);
            continue;
        }
        PROXGEN_INTERNAL_ASSERT(catalogue::card_of(t).facts().quadratic);
        Expr two_alpha_tau = 2.0f * f.alpha * tau;
        if (f.c) num -= two_alpha_tau * e * g;
        den += two_alpha_tau * e * e;
    }
    Func x("x_update");
    x(at) = clamp(num * (1.0f / den), lo, hi);
    return x;
}
}  // namespace

Func omega_prox(Lowerer& L, const Lowered& v, Expr tau, Stages& st) { return omega_prox_of(L, 0, v, tau, st); }

std::vector<Expr> quadratic_gradient(Lowerer& L, const std::vector<const ir::Term*>& terms, const State& x, float factor,
                                     Stages& st) {
    std::vector<Expr> sums(std::size_t(L.variable_count()), Expr(0.0f));
    for (const ir::Term* t : terms) {
        PROXGEN_INTERNAL_ASSERT(catalogue::card_of(*t).facts().quadratic);
        const ProxSpec f = L.prox_spec(*t, x, st);
        Lowered ax = L.forward(t->expr, x, Part::linear, st);
        const auto a = args(ax.rank());
        Lowered w{Func("quadratic_gradient_arg"), ax.extents};
        w.f(a) = factor * f.alpha * (*f.a)(a) * ((f.c ? (*f.c)(a) : Expr(0.0f)) + (*f.a)(a) * ax.f(a));
        add_adjoint(sums, L.adjoint_state(t->expr, w, st), L);
    }
    return sums;
}

bool projects_onto(const ir::Term& t) {
    return t.penalty != nullptr && catalogue::card_of(t).facts().indicator && t.expr.is_variable();
}

bool has_feasible_copy(const ir::Problem& p) {
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms)
            if (projects_onto(t)) return true;
    return false;
}

std::vector<Func> feasible_state(Lowerer& L, const State& x, Stages& st) {
    std::vector<Func> out;
    for (int j = 0; j < L.variable_count(); ++j) {
        const Lowered& xj = x[std::size_t(j)];
        const auto at = args(xj.rank());
        Func current = xj.f;
        for (const auto* terms : {&L.problem().omega, &L.problem().psi})
            for (const auto& t : *terms) {
                if (!projects_onto(t) || t.expr.variable != j) continue;
                // v = a x + c must lie in the set: project v, then x = (v' − c)/a; a = 0 leaves x free
                ProxSpec f = L.prox_spec(t, x, st);
                Expr a = (*f.a)(at), c = f.c ? (*f.c)(at) : Expr(0.0f);
                Func v("feasible_argument");
                v(at) = a * current(at) + c;
                Back b{nullptr, st};
                // an indicator's prox is its projection whatever the step
                Expr projected = lowering(*t.penalty).prox(b, f, v, xj.extents, Expr(1.0f));
                Func next("feasible_projection");
                next(at) = select(a == 0.0f || projected == v(at), current(at), (projected - c) / a);
                current = next;
            }
        Func result(jit::state_name("x_feasible", j));
        result(at) = current(at);
        out.push_back(result);
    }
    return out;
}


}  // namespace proxgen::lower

namespace proxgen::lower {

namespace {
/// Σ Aᵀ(2 scale α a ⊙ c) over the Ω quadratics with a constant part that read variable j, at its
/// axes (one variable: j = 0, every Ω term).
Expr omega_constant_part(Lowerer& L, int j, Expr scale, Stages& st) {
    const auto at = args(int(L.variable_extents(j).size()));
    State like;
    for (int k = 0; k < L.variable_count(); ++k) like.push_back(zeros(L.variable_extents(k)));
    Expr sum = 0.0f;
    for (const auto& t : L.problem().omega) {
        if (L.variable_count() > 1 && ir::variables_of(t.expr) != std::vector<int>{j}) continue;
        PROXGEN_INTERNAL_ASSERT(catalogue::card_of(t).facts().quadratic);
        ProxSpec f = L.prox_spec(t, like, st);
        if (!f.c) continue;
        const auto a = args(int(t.expr.shape.size()));
        Lowered w{Func("omega_constant"), L.extents(t.expr)};
        w.f(a) = 2.0f * scale * f.alpha * (*f.a)(a) * (*f.c)(a);
        if (auto back = L.adjoint_state(t.expr, w, st)[std::size_t(j)]) sum += (*back)(at);
    }
    return sum;
}

/// The right-hand side of variable j's spectral Ω prox (omega_spectral_rhs).
Func omega_spectral_rhs_of(Lowerer& L, int j, const Lowered& v, Expr tau, Stages& st) {
    // argmin_x Σ α‖β A x + g‖² + 1/(2τ)‖x − v‖²  ⇔  (I + 2τ Σ α β² AᵀA) x = v − 2τ Σ α β Aᵀ g
    const auto at = args(v.rank());
    Func out("x_rhs");
    if (L.omega_constant) out(at) = v.f(at) - tau * (*L.omega_constant)(at);
    else out(at) = v.f(at) - omega_constant_part(L, j, tau, st);
    return out;
}
}  // namespace

Func omega_spectral_rhs(Lowerer& L, const Lowered& v, Expr tau, Stages& st) {
    return omega_spectral_rhs_of(L, 0, v, tau, st);
}

Func omega_spectral_constant(Lowerer& L) {
    Stages st;
    const auto& e = L.variable_extents();
    Func g("omega_spectral_constant");
    g(args(int(e.size()))) = omega_constant_part(L, 0, 1.0f, st);
    schedule_output(g, int(e.size()), st);
    return g;
}

Func omega_update(Lowerer& L, const Lowered& v, Expr tau, Stages& st) {
    Func out = plan::spectral(L.problem().x_update) ? omega_spectral_rhs(L, v, tau, st) : omega_prox(L, v, tau, st);
    const auto at = args(v.rank());
    Func x_next("x_next");
    x_next(at) = out(at);
    return x_next;
}

Func omega_step(Lowerer& L, const Lowered& v, Expr tau, Stages& st) {
    Func x_next = omega_update(L, v, tau, st);
    schedule_output(x_next, v.rank(), st);
    return x_next;
}

std::vector<Func> omega_update_state(Lowerer& L, const State& v, Expr tau, Stages& st) {
    if (L.variable_count() == 1) return {omega_update(L, v.front(), tau, st)};
    PROXGEN_INTERNAL_ASSERT(!L.omega_constant);  // (precomputed for one variable only)
    std::vector<Func> out;
    for (int j = 0; j < L.variable_count(); ++j) {
        Func xj = plan::spectral(ir::block_update(L.problem(), j))
                      ? omega_spectral_rhs_of(L, j, v[std::size_t(j)], tau, st)
                      : omega_prox_of(L, j, v[std::size_t(j)], tau, st);
        const auto at = args(v[std::size_t(j)].rank());
        Func x_next(jit::state_name("x_next", j));
        x_next(at) = xj(at);
        out.push_back(x_next);
    }
    return out;
}

}  // namespace proxgen::lower
