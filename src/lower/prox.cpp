// Closed-form proxes in the generalised form  argmin_z α f(a ⊙ z + c) + ρ/2 ‖z − v‖²,  and the
// closed-form Ω x-update. With t = a z + c the problem becomes the plain prox of α f with
// parameter ρ/a² at a v + c, so every penalty needs only its plain prox below. All formulas stay
// finite at v = 0, α = 0 and a = 0 (no 0/0 reaches the result).
#include "lowering.hpp"

#include "proxgen/error.hpp"

namespace proxgen::lower {

using namespace Halide;

namespace {

/// argmin_t α f(t) + ρ/2 (t − u)² for separable f, τ = α/ρ (per element).
Expr plain_prox(ir::Penalty pen, Expr u, Expr tau, const std::optional<Func>& data, const std::vector<Expr>& at) {
    switch (pen) {
    // (divisions by values that do not vary per pixel are written as products with their
    // reciprocal, which Halide hoists out of the loops: a vector division costs ~10 cycles)
    case ir::Penalty::sum_squares: return u * (1.0f / (1.0f + 2.0f * tau));
    case ir::Penalty::norm1: return u - clamp(u, -tau, tau);
    case ir::Penalty::nonneg: return max(u, 0.0f);
    case ir::Penalty::sum_entries: return u - tau;
    case ir::Penalty::poisson: {
        // α(t − b log t) + ρ/2 (t − u)²: the positive root of t² − (u − τ) t − τ b = 0.
        Expr b = data ? (*data)(at) : Expr(0.0f);
        Expr m = u - tau;
        return 0.5f * (m + sqrt(m * m + 4.0f * tau * b));
    }
    case ir::Penalty::masked_nonneg: return select((*data)(at) != 0.0f, max(u, 0.0f), u);
    case ir::Penalty::box: return clamp(u, 0.0f, 1.0f);  // box(e, lo, hi) is [0, 1] after scaling
    case ir::Penalty::huber:
        // α h(t) + ρ/2 (t − u)², h(t) = t² for |t| ≤ 1, 2|t| − 1 beyond: the quadratic's minimiser
        // u/(1 + 2τ) when it lies inside, else the linear piece's u − 2τ sign(u)
        return select(abs(u) <= 1.0f + 2.0f * tau, u * (1.0f / (1.0f + 2.0f * tau)),
                      u - 2.0f * tau * select(u > 0.0f, 1.0f, -1.0f));
    case ir::Penalty::group_norm1:
    case ir::Penalty::patch_nlm:
    case ir::Penalty::diff_fn: break;
    }
    PROXGEN_INTERNAL_ASSERT(false);
    return Expr();
}

}  // namespace

Func prox(const ProxSpec& f, const Lowered& v, Expr rho, Stages& st) {
    const int r = v.rank();
    const auto at = args(r);
    Expr a = f.a ? (*f.a)(at) : Expr(1.0f);
    Expr c = f.c ? (*f.c)(at) : Expr(0.0f);
    // t = a v + c, the prox parameter becomes ρ / a², so the threshold is α a² / ρ.
    Func t("prox_argument");
    t(at) = a * v.f(at) + c;
    Expr tau = f.alpha * a * a / rho;
    Expr p;
    if (f.penalty == ir::Penalty::group_norm1) {
        // v · max(0, 1 − τ_g/‖v_g‖), written as a select so a zero group gives 0, not 0/0. a is one
        // scalar (β) for the whole group; group weights scale the threshold.
        PROXGEN_INTERNAL_ASSERT(r >= 2);
        auto outer = args(r - 1);
        Expr n2;
        if (f.group_size > 0) {
            // a known small group (grad's 2 components): an inline sum the vector loop keeps in
            // registers; staging it per strip measured slower (hand-written baseline, bench/)
            n2 = 0.0f;
            for (int k = 0; k < f.group_size; ++k) {
                auto member = outer;
                member.push_back(k);
                n2 += t(member) * t(member);
            }
        } else {
            st.add(t);
            RDom g(0, v.extents.back(), "group");
            auto member = outer;
            member.push_back(g);
            Func norm2("group_norm2");
            norm2(outer) = 0.0f;
            norm2(outer) += t(member) * t(member);
            st.add(norm2);
            n2 = norm2(outer);
        }
        Expr n = sqrt(n2);
        Expr tg = f.group_weight ? tau * (*f.group_weight)(outer) : tau;
        p = select(n > tg, 1.0f - tg / n, 0.0f) * t(at);
    } else if (f.penalty == ir::Penalty::diff_fn) {
        PROXGEN_INTERNAL_ASSERT(f.smooth != nullptr);
        p = smooth_prox(*f.smooth, t, v.extents, tau, st);
    } else if (f.penalty == ir::Penalty::patch_nlm) {
        // a denoiser at noise level √τ on the scaled argument (a is one scalar β here: the
        // planner never absorbs weights into a non-separable penalty)
        p = nlm_denoise(t, v.extents, sqrt(tau), st);
    } else {
        p = plain_prox(f.penalty, t(at), tau, f.data, at);
    }
    Func out(std::string("prox_") + ir::name(f.penalty));
    // z = (p − c)/a; where a = 0, f does not depend on z and the prox is the identity.
    out(at) = f.a ? select(a != 0.0f, (p - c) * (1.0f / a), v.f(at)) : p - c;
    return out;
}

Func omega_prox(Lowerer& L, const Lowered& v, Expr tau, Stages& st) {
    const int r = v.rank();
    const auto at = args(r);
    // Per pixel the Ω terms are α (e x + g)² (a quadratic of a diagonal operator: e = a ⊙ d,
    // g the term's constant) and constraints e x + g ≥ 0. Minimize the quadratic plus
    // 1/(2τ)(x − v)², then clamp to the interval the constraints leave (exact for a convex 1-D
    // quadratic on an interval).
    Expr num = v.f(at), den = 1.0f;
    Expr lo = Float(32).min(), hi = Float(32).max();
    const Lowered ones = constant_like(1.0f, L.variable_extents());
    for (const auto& t : L.problem().omega) {
        ProxSpec f = L.prox_spec(t, ones, st);
        Lowered d = L.forward(t.expr, ones, Part::linear, st);
        Expr e = (*f.a)(at) * d.f(at);
        Expr g = f.c ? (*f.c)(at) : Expr(0.0f);
        if (t.penalty == ir::Penalty::nonneg) {
            // e x + g ≥ 0: x ≥ −g/e for e > 0, x ≤ −g/e for e < 0, nothing for e = 0
            Expr bound = -g / select(e == 0.0f, 1.0f, e);
            lo = select(e > 0.0f, max(lo, bound), lo);
            hi = select(e < 0.0f, min(hi, bound), hi);
            continue;
        }
        PROXGEN_INTERNAL_ASSERT(t.penalty == ir::Penalty::sum_squares);
        Expr two_alpha_tau = 2.0f * f.alpha * tau;
        if (f.c) num -= two_alpha_tau * e * g;
        den += two_alpha_tau * e * e;
    }
    Func x("x_update");
    x(at) = clamp(num * (1.0f / den), lo, hi);
    return x;
}

}  // namespace proxgen::lower

namespace proxgen::lower {

namespace {
/// Σ Aᵀ(2 scale α a ⊙ c) over the Ω quadratics with a constant part, at the variable's axes.
Expr omega_constant_part(Lowerer& L, const std::vector<Expr>& extents, Expr scale, Stages& st) {
    const auto at = args(int(extents.size()));
    const Lowered like = zeros(extents);
    Expr sum = 0.0f;
    for (const auto& t : L.problem().omega) {
        PROXGEN_INTERNAL_ASSERT(t.penalty == ir::Penalty::sum_squares);
        ProxSpec f = L.prox_spec(t, like, st);
        if (!f.c) continue;
        const auto a = args(int(t.expr.shape.size()));
        Lowered w{Func("omega_constant"), L.extents(t.expr)};
        w.f(a) = 2.0f * scale * f.alpha * (*f.a)(a) * (*f.c)(a);
        if (auto back = L.adjoint(t.expr, w, st)) sum += (*back)(at);
    }
    return sum;
}
}  // namespace

Func omega_spectral_rhs(Lowerer& L, const Lowered& v, Expr tau, Stages& st) {
    // argmin_x Σ α‖β A x + g‖² + 1/(2τ)‖x − v‖²  ⇔  (I + 2τ Σ α β² AᵀA) x = v − 2τ Σ α β Aᵀ g
    const auto at = args(v.rank());
    Func out("x_rhs");
    if (L.omega_constant) out(at) = v.f(at) - tau * (*L.omega_constant)(at);
    else out(at) = v.f(at) - omega_constant_part(L, v.extents, tau, st);
    return out;
}

Func omega_spectral_constant(Lowerer& L) {
    Stages st;
    const auto& e = L.variable_extents();
    Func g("omega_spectral_constant");
    g(args(int(e.size()))) = omega_constant_part(L, e, 1.0f, st);
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

}  // namespace proxgen::lower
