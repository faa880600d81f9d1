// Pock–Chambolle's step pipelines; see pc_pipelines.hpp and, for the iteration, pock_chambolle.cpp.
#include "pc_pipelines.hpp"

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

}  // namespace

std::vector<Func> PCPipelines::dual_step(lower::Lowerer& L, const Lowered& xin, const Lowered& xp,
                                         const std::vector<Lowered>& yin) {
    const ir::Problem& p = L.problem();
    std::vector<Func> outs;
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const auto& t = p.psi[i];
        Stages st;
        const int r = yin[i].rank();
        const auto a = lower::args(r);
        Lowered kx = L.forward(t.expr, extrapolated(xin, xp, theta), Part::linear, st);
        const lower::ProxSpec f = L.prox_spec(t, xin, st);
        Lowered w{Func("dual_arg"), yin[i].extents};
        w.f(a) = yin[i].f(a) + sigma * kx.f(a);
        // Moreau: prox_{σF*}(w) = w − σ prox_{F, ρ=σ}(w/σ)
        Lowered v{Func("dual_scaled"), yin[i].extents};
        v.f(a) = w.f(a) / sigma;
        Func pz = lower::prox(f, v, sigma, st);
        Func out("y_next" + std::to_string(i));
        out(a) = w.f(a) - sigma * pz(a);
        lower::schedule_output(out, r, st, lower::static_last_extent(t.expr));
        outs.push_back(out);
    }
    return outs;
}

Func PCPipelines::primal_step(lower::Lowerer& L, const Lowered& xin, const std::vector<Lowered>& yin) {
    const ir::Problem& p = L.problem();
    const auto av = lower::args(xin.rank());
    Stages st;
    Lowered v{Func("primal_arg"), xin.extents};
    Expr kty = 0.0f;
    for (std::size_t i = 0; i < p.psi.size(); ++i)
        if (auto g = L.adjoint(p.psi[i].expr, yin[i], st)) kty += (*g)(av);
    v.f(av) = xin.f(av) - tau * kty;
    return lower::omega_step(L, v, tau, st);
}

Pipeline PCPipelines::iterations(const ir::Problem& p, int n) {
    PROXGEN_INTERNAL_ASSERT(n >= 2 && !p.psi.empty());
    const Lowered xin = lower::input(x);
    lower::Lowerer L(p, params, xin.extents);
    Lowered xk = xin, xk1 = lower::input(x_prev), xk2 = xk1;
    std::vector<Lowered> yk, yk1;
    for (const auto& yi : y) yk.push_back(lower::input(yi));
    for (int k = 0; k < n; ++k) {
        // every step's outputs are scheduled as in the one-step pipelines and computed in full
        // before the next step reads them (each reads its inputs at shifted positions)
        std::vector<Lowered> next;
        const auto duals = dual_step(L, xk, xk1, yk);
        for (std::size_t i = 0; i < duals.size(); ++i) {
            Func f = duals[i];
            f.compute_root();
            next.push_back(Lowered{f, yk[i].extents});
        }
        Func xn = primal_step(L, xk, next);
        xn.compute_root();
        xk2 = xk1;
        xk1 = xk;
        xk = Lowered{xn, xin.extents};
        yk1 = yk;
        yk = next;
    }
    // outputs: x_n, x_{n−1}, x_{n−2}, y_n (per Ψ term), y_{n−1} (per Ψ term): what the residual
    // check after the last step reads
    std::vector<Func> outs;
    auto output = [&](const Lowered& l, const std::string& name) {
        Func o(name);
        o(lower::args(l.rank())) = l.f(lower::args(l.rank()));
        lower::Stages none;
        lower::schedule_output(o, l.rank(), none);
        outs.push_back(o);
    };
    output(xk, "x_out");
    output(xk1, "x_prev_out");
    output(xk2, "x_prev2_out");
    for (std::size_t i = 0; i < yk.size(); ++i) output(yk[i], "y_out" + std::to_string(i));
    for (std::size_t i = 0; i < yk1.size(); ++i) output(yk1[i], "y_prev_out" + std::to_string(i));
    return Pipeline(outs);
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
    }
    const Lowered xin = lower::input(x), xp = lower::input(x_prev), xpp = lower::input(x_prev2);
    lower::Lowerer L(p, params, xin.extents);

    std::vector<Lowered> yin;
    for (const auto& yi : y) yin.push_back(lower::input(yi));
    if (!p.psi.empty()) dual = Pipeline(dual_step(L, xin, xp, yin));
    primal = Pipeline(primal_step(L, xin, yin));

    // residuals (Goldstein, Esser & Baraniuk 2013, for this step order):
    //   P = (x − x⁺)/τ                       ∈ ∂Ω(x⁺) + Kᵀy⁺
    //   D = (y − y⁺)/σ + K(x̄ − x⁺)           ∈ ∂F*(y⁺) − K x⁺
    // plus Kᵀy⁺ and K x⁺ for the relative tolerances.
    {
        std::vector<Func> outs;
        Func primal_res("primal_residual");
        primal_res(av) = (xp.f(av) - xin.f(av)) / res_tau;
        Stages st0;
        lower::schedule_output(primal_res, rv, st0);
        outs.push_back(primal_res);
        Stages st1;
        Expr kty = 0.0f;
        for (std::size_t i = 0; i < p.psi.size(); ++i)
            if (auto g = L.adjoint(p.psi[i].expr, lower::input(y[i]), st1)) kty += (*g)(av);
        Func kty_f("kty");
        kty_f(av) = kty;
        lower::schedule_output(kty_f, rv, st1);
        outs.push_back(kty_f);
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            const auto& t = p.psi[i];
            Stages st;
            const Lowered yin = lower::input(y[i]), yp = lower::input(y_prev[i]);
            const auto a = lower::args(yin.rank());
            Lowered diff{Func("x_bar_minus_x"), xin.extents};
            diff.f(av) = xp.f(av) + res_theta * (xp.f(av) - xpp.f(av)) - xin.f(av);
            Lowered kd = L.forward(t.expr, diff, Part::linear, st);
            Func d("dual_residual" + std::to_string(i));
            d(a) = (yp.f(a) - yin.f(a)) / res_sigma + kd.f(a);
            lower::schedule_output(d, yin.rank(), st);
            outs.push_back(d);
            Stages st2;
            Lowered kx = L.forward(t.expr, xin, Part::linear, st2);
            Func kx_f("kx" + std::to_string(i));
            kx_f(a) = kx.f(a);
            lower::schedule_output(kx_f, yin.rank(), st2);
            outs.push_back(kx_f);
        }
        residual = Pipeline(outs);
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
    return a;
}

}  // namespace proxgen::detail
