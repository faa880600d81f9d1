// Pock–Chambolle's step pipelines; see pc_pipelines.hpp and, for the iteration, pock_chambolle.cpp.
#include "pc_pipelines.hpp"

#include <cstdlib>

#include "proxgen/error.hpp"

namespace proxgen::detail {

using namespace Halide;
using lower::Lowered;
using lower::Part;
using lower::Stages;

namespace {

Lowered extrapolated(const Lowered& a, const Lowered& b, Expr th) {
    const auto av = lower::args(a.rank());
    Lowered e{Func("x_bar"), a.extents};
    e.f(av) = a.f(av) + th * (a.f(av) - b.f(av));
    return e;
}

Lowered difference(const Lowered& a, const Lowered& b, const char* name) {
    const auto av = lower::args(a.rank());
    Lowered d{Func(name), a.extents};
    d.f(av) = a.f(av) - b.f(av);
    return d;
}

/// Rows per strip of the n-iteration kernels: each strip recomputes about 2n halo rows, so taller
/// strips waste less; shorter ones keep more strips for the threads.
int block_rows() {
    if (const char* s = std::getenv("PROXGEN_BLOCK_ROWS"); s && std::atoi(s) >= 4) return std::atoi(s);
    return 32;
}

/// The residual quantities (Goldstein, Esser & Baraniuk 2013, for this step order) of the step from
/// (x, y) to (x⁺, y⁺), x̄ its extrapolated point, in pc_residual_shapes' order:
///   P = (x − x⁺)/τ                       ∈ ∂Ω(x⁺) + Kᵀy⁺
///   D = (y − y⁺)/σ + K(x̄ − x⁺)           ∈ ∂F*(y⁺) − K x⁺
/// plus Kᵀy⁺ and K x⁺ for the relative tolerances.
std::vector<Lowered> residual_quantities(lower::Lowerer& L, const Lowered& x, const Lowered& x_next, const Lowered& xbar,
                                         const std::vector<Lowered>& y, const std::vector<Lowered>& y_next, Expr tau,
                                         Expr sigma, const std::vector<Halide::Param<float>>& sigma_scale, Stages& st) {
    const ir::Problem& p = L.problem();
    const auto av = lower::args(x.rank());
    std::vector<Lowered> q;
    Lowered pres{Func("primal_residual"), x.extents};
    pres.f(av) = (x.f(av) - x_next.f(av)) / tau;
    q.push_back(pres);
    Lowered kty{Func("kty"), x.extents};
    Expr sum = 0.0f;
    for (std::size_t i = 0; i < p.psi.size(); ++i)
        if (auto g = L.adjoint(p.psi[i].expr, y_next[i], st)) sum += (*g)(av);
    kty.f(av) = sum;
    q.push_back(kty);
    const Lowered step_diff = difference(xbar, x_next, "x_bar_minus_x");
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const auto a = lower::args(y[i].rank());
        Lowered kd = L.forward(p.psi[i].expr, step_diff, Part::linear, st);
        Lowered d{Func("dual_residual" + std::to_string(i)), y[i].extents};
        d.f(a) = (y[i].f(a) - y_next[i].f(a)) / (sigma * sigma_scale[i]) + kd.f(a);
        q.push_back(d);
        q.push_back(L.forward(p.psi[i].expr, x_next, Part::linear, st));
    }
    return q;
}

}  // namespace

std::vector<std::vector<int>> pc_residual_shapes(const ir::Problem& p) {
    std::vector<std::vector<int>> s{p.variable_shape, p.variable_shape};
    for (const auto& t : p.psi) {
        s.push_back(t.expr.shape);
        s.push_back(t.expr.shape);
    }
    return s;
}

Func PCPipelines::dual_value(lower::Lowerer& L, std::size_t i, const Lowered& xbar, const Lowered& yin, Expr sig,
                             Stages& st) {
    const auto& t = L.problem().psi[i];
    sig = sig * sigma_scale[i];  // term i's dual step (block preconditioning; 1 without)
    const auto a = lower::args(yin.rank());
    Lowered kx = L.forward(t.expr, xbar, Part::linear, st);
    const lower::ProxSpec f = L.prox_spec(t, xbar, st);
    Lowered w{Func("dual_arg"), yin.extents};
    w.f(a) = yin.f(a) + sig * kx.f(a);
    // Moreau: prox_{σF*}(w) = w − σ prox_{F, ρ=σ}(w/σ)
    Lowered v{Func("dual_scaled"), yin.extents};
    v.f(a) = w.f(a) * (1.0f / sig);  // (a product: 1/σ is hoisted out of the loops)
    Func pz = lower::prox(f, v, sig, st);
    Func out("y_next" + std::to_string(i));
    out(a) = w.f(a) - sig * pz(a);
    return out;
}

Func PCPipelines::primal_value(lower::Lowerer& L, const Lowered& xin, const std::vector<Lowered>& yin, Expr step,
                               Stages& st) {
    const ir::Problem& p = L.problem();
    const auto av = lower::args(xin.rank());
    Lowered v{Func("primal_arg"), xin.extents};
    Expr kty = 0.0f;
    for (std::size_t i = 0; i < p.psi.size(); ++i)
        if (auto g = L.adjoint(p.psi[i].expr, yin[i], st)) kty += (*g)(av);
    v.f(av) = xin.f(av) - step * kty;
    return lower::omega_update(L, v, step, st);
}

Pipeline PCPipelines::fused(const ir::Problem& p, bool with_check) {
    const int rv = int(p.variable_shape.size());
    const auto av = lower::args(rv);
    const Lowered xin = lower::input(x), xp = lower::input(x_prev);
    lower::Lowerer L(p, params, xin.extents);
    L.omega_constant = omega_constant;
    Stages st;
    const Lowered xbar = extrapolated(xin, xp, theta);
    std::vector<Lowered> yin, yn;
    std::vector<Expr> elements;
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        yin.push_back(lower::input(y[i]));
        // y⁺ per strip with its halo: the primal step reads it at neighbouring pixels
        Func d = dual_value(L, i, xbar, yin[i], sigma, st);
        const int parts = lower::fused_components(p, p.psi[i]);
        st.add(d, d.dimensions() > rv ? parts : 0);
        Lowered l{d, yin[i].extents};
        l.staged = true;
        yn.push_back(l);
    }
    Func xn = primal_value(L, xin, yn, tau, st);
    elements.push_back(xn(av));
    for (std::size_t i = 0; i < p.psi.size(); ++i)
        for (Expr e : lower::components(yn[i].f, rv, lower::fused_components(p, p.psi[i]))) elements.push_back(e);
    Func out("pc_step");
    out(av) = Tuple(elements);
    if (!with_check) {
        lower::schedule_output(out, rv, st);
        return Pipeline(out);
    }
    // the residual quantities of this very step, from the strips' values while they are in cache
    // (x⁺ staged too: K x⁺ reads it at neighbouring pixels)
    st.add(xn);
    Lowered xnl{xn, xin.extents};
    xnl.staged = true;
    const std::vector<Lowered> q = residual_quantities(L, xin, xnl, xbar, yin, yn, tau, sigma, sigma_scale, st);
    const lower::SquareSums sums = lower::square_sums(q);
    lower::schedule_output(out, rv, st);
    lower::schedule_square_sums_with(sums, out);
    return Pipeline({out, sums.out});
}

Pipeline PCPipelines::iterations(const ir::Problem& p, int n) {
    PROXGEN_INTERNAL_ASSERT(n >= 2 && lower::psi_blockable(p));
    const int rv = int(p.variable_shape.size());
    const auto av = lower::args(rv);
    level_sigma.clear(), level_tau.clear(), level_theta.clear();
    for (int k = 1; k <= n; ++k) {
        level_sigma.emplace_back("sigma_" + std::to_string(k));
        level_tau.emplace_back("tau_" + std::to_string(k));
        level_theta.emplace_back("theta_" + std::to_string(k));
    }
    const Lowered xin = lower::input(x);
    lower::Lowerer L(p, params, xin.extents);
    L.omega_constant = omega_constant;
    Stages st;
    Lowered xk = xin, xk1 = lower::input(x_prev);
    std::vector<Lowered> yk;
    for (const auto& yi : y) yk.push_back(lower::input(yi));
    for (int k = 0; k < n; ++k) {
        const Lowered xbar = extrapolated(xk, xk1, level_theta[k]);
        std::vector<Lowered> next;
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            Func d = dual_value(L, i, xbar, yk[i], level_sigma[k], st);
            const int parts = lower::fused_components(p, p.psi[i]);
            st.add(d, d.dimensions() > rv ? parts : 0);
            Lowered l{d, yk[i].extents};
            l.staged = true;
            next.push_back(l);
        }
        Func xn = primal_value(L, xk, next, level_tau[k], st);
        if (k + 1 < n) st.add(xn);  // the last level's x is only written
        xk1 = xk;
        xk = Lowered{xn, xin.extents};
        xk.staged = true;
        yk = next;
    }
    std::vector<Expr> elements{xk.f(av), xk1.f(av)};
    for (std::size_t i = 0; i < p.psi.size(); ++i)
        for (Expr e : lower::components(yk[i].f, rv, lower::fused_components(p, p.psi[i]))) elements.push_back(e);
    Func out("pc_iterations");
    out(av) = Tuple(elements);
    // a level's row is read by the next level's stencils at rows y − 1 … y + 1: 8 rows suffice
    lower::schedule_blocked(out, rv, st, block_rows(), 8);
    return Pipeline(out);
}

PCPipelines::PCPipelines(const ir::Problem& p)
    : params(p), x(Float(32), int(p.variable_shape.size()), "x"),
      x_prev(Float(32), int(p.variable_shape.size()), "x_prev"),
      x_prev2(Float(32), int(p.variable_shape.size()), "x_prev2") {
    const int rv = int(p.variable_shape.size());
    const auto av = lower::args(rv);
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const int r = int(p.psi[i].expr.shape.size());
        y.emplace_back(Float(32), r, "y" + std::to_string(i));
        y_prev.emplace_back(Float(32), r, "y_prev" + std::to_string(i));
        sigma_scale.emplace_back("sigma_scale" + std::to_string(i));
    }
    if (plan::spectral(p.x_update)) {
        omega_constant = ImageParam(Float(32), rv, "omega_constant");
        lower::Lowerer L(p, params, lower::input(x).extents);
        constant = Pipeline(lower::omega_spectral_constant(L));
    }
    const Lowered xin = lower::input(x), xp = lower::input(x_prev), xpp = lower::input(x_prev2);
    lower::Lowerer L(p, params, xin.extents);
    L.omega_constant = omega_constant;

    if (lower::psi_fusable(p)) {
        step = fused(p, false);
        if (!plan::spectral(p.x_update)) check = fused(p, true);
    }
    std::vector<Lowered> yin;
    for (const auto& yi : y) yin.push_back(lower::input(yi));
    if (!p.psi.empty()) {
        std::vector<Func> outs;
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            Stages st;
            Func out = dual_value(L, i, extrapolated(xin, xp, theta), yin[i], sigma, st);
            lower::schedule_output(out, yin[i].rank(), st, lower::static_last_extent(p.psi[i].expr));
            outs.push_back(out);
        }
        dual = Pipeline(outs);
    }
    {
        Stages st;
        Func out = primal_value(L, xin, yin, tau, st);
        lower::schedule_output(out, rv, st);
        primal = Pipeline(out);
    }

    // the residuals after the step (residual_quantities; here x⁺ = x, x = x_prev, y⁺ = y, y = y_prev)
    {
        Stages st;
        std::vector<Lowered> yprev;
        for (const auto& yp : y_prev) yprev.push_back(lower::input(yp));
        const std::vector<Lowered> q =
            residual_quantities(L, xp, xin, extrapolated(xp, xpp, res_theta), yprev, yin, res_tau, res_sigma, sigma_scale,
                                st);
        const lower::SquareSums sums = lower::square_sums(q);
        lower::schedule_square_sums(sums, st);
        residual = Pipeline(sums.out);
    }
}

std::vector<Argument> PCPipelines::arguments() const {
    std::vector<Argument> a;
    for (const auto& i : params.images) a.emplace_back(i);
    for (const auto& s : params.scalars) a.emplace_back(s);
    for (const auto* i : {&x, &x_prev, &x_prev2}) a.emplace_back(*i);
    for (const auto& i : y) a.emplace_back(i);
    for (const auto& i : y_prev) a.emplace_back(i);
    for (const auto* s : {&sigma, &tau, &theta, &res_sigma, &res_tau, &res_theta}) a.emplace_back(*s);
    for (const auto& s : sigma_scale) a.emplace_back(s);
    if (omega_constant) a.emplace_back(*omega_constant);
    return a;
}

std::vector<Argument> PCPipelines::iteration_arguments() const {
    auto a = arguments();
    for (std::size_t k = 0; k < level_sigma.size(); ++k) {
        a.emplace_back(level_sigma[k]);
        a.emplace_back(level_tau[k]);
        a.emplace_back(level_theta[k]);
    }
    return a;
}

}  // namespace proxgen::detail
