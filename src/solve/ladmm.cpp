// Linearized ADMM (Parikh & Boyd, Proximal Algorithms, §4.4.2), split z_i = K_i x:
//   x⁺ = prox_{μΩ}(x − (μ/λ) Kᵀ(K x − z + u))      (one pipeline, K and Kᵀ fused)
//   z⁺ = prox_{λΨ}(K x⁺ + u),  u⁺ = u + K x⁺ − z⁺   (one pipeline, Tuple output per term)
// with 0 < μ ≤ λ/‖K‖². Residuals and stopping as Boyd et al. 2011 with ρ = 1/λ.
#include <cmath>

#include "spectral_gram.hpp"
#include "split_steps.hpp"
#include "proxgen/error.hpp"

namespace proxgen::detail {

using namespace Halide;
using lower::Lowered;
using lower::Part;
using lower::Stages;

namespace {

/// The pipelines (built, not compiled); every one takes arguments().
struct LADMMPipelines {
    lower::Params params;
    ImageParam x;
    Param<float> lambda{"lambda"}, mu{"mu"};
    Pipeline x_step;
    std::unique_ptr<SplitPipelines> split;

    explicit LADMMPipelines(const ir::Problem& p) : params(p), x(Float(32), int(p.variable_shape.size()), "x") {
        const int rv = int(p.variable_shape.size());
        const auto av = lower::args(rv);
        const Lowered xin = lower::input(x);
        lower::Lowerer L(p, params, xin.extents);
        split = std::make_unique<SplitPipelines>(p, L, x);
        // x⁺ = prox_{μΩ}(x − (μ/λ) Kᵀ(K x − z + u))
        Stages st;
        Expr kt = 0.0f;
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            const Lowered zi = lower::input(split->z[i]), ui = lower::input(split->u[i]);
            const auto a = lower::args(zi.rank());
            Lowered kx = L.forward(p.psi[i].expr, xin, Part::linear, st);
            Lowered w{Func("ladmm_residual_arg"), zi.extents};
            w.f(a) = kx.f(a) - zi.f(a) + ui.f(a);
            if (auto g = L.adjoint(p.psi[i].expr, w, st)) kt += (*g)(av);
        }
        Lowered v{Func("x_arg"), xin.extents};
        v.f(av) = xin.f(av) - (mu / lambda) * kt;
        x_step = Pipeline(lower::omega_step(L, v, mu, st));
    }
    std::vector<Argument> arguments() const {
        auto a = params.arguments();
        a.emplace_back(x);
        for (auto& s : split->arguments()) a.push_back(s);
        a.emplace_back(lambda);
        a.emplace_back(mu);
        return a;
    }
    Pipeline zu_step() const { return split->zu_step; }
    Pipeline residual() const { return split->residual; }
};

struct LADMMKernels {
    jit::KernelPtr x_step, zu_step, residual;
    explicit LADMMKernels(const ir::Problem& p) {
        LazyPipelines<LADMMPipelines> pipes(p);
        x_step = kernel_for(p, "ladmm.x", pipes.source(&LADMMPipelines::x_step));
        if (!p.psi.empty()) zu_step = kernel_for(p, "split.zu", [&] { return jit::Source{pipes->zu_step(), pipes->arguments()}; });
        residual = kernel_for(p, "ladmm.residual", [&] { return jit::Source{pipes->residual(), pipes->arguments()}; });
    }
};

}  // namespace

LADMMSteps ladmm_steps(const ir::Problem& p, const Options& opt) {
    const double L = std::max(stacked_norm_bound(p), 1e-12);
    LADMMSteps s{};
    s.lambda = opt.lambda > 0 ? opt.lambda : 1.0 / admm_rho(p, Options());  // λ plays 1/ρ
    s.mu = opt.mu > 0 ? opt.mu : s.lambda / (L * L);
    if (s.mu > s.lambda / (L * L) * (1 + 1e-6))
        fail("ladmm: mu = {} exceeds lambda / ||K||^2 = {:.4g}; the iteration may diverge", s.mu,
             s.lambda / (L * L));
    return s;
}

Result linearized_admm(const ir::Problem& p, const Options& opt, const Result* warm) {
    Result res;
    auto K = cached_as<LADMMKernels>("ladmm:" + ir::signature(p), [&] { return std::make_shared<LADMMKernels>(p); },
                                     res.compile_seconds);
    LADMMSteps steps = ladmm_steps(p, opt);

    Image x = initial_x(p, opt, warm), x_next(p.variable_shape);
    SplitState state(p, opt, warm, Algorithm::ladmm);
    SpectralGram gram(p);
    const lower::DataArgs data(p);
    float lambda_f = 0, mu_f = 0;
    auto bound = [&](const jit::KernelPtr& k) {
        jit::Call c(k);
        data.bind(c);
        state.bind(c);
        c.in("x", x).in("lambda", lambda_f).in("mu", mu_f);
        return c;
    };
    jit::Call x_step = bound(K->x_step);
    state.set_kernels(K->zu_step ? bound(K->zu_step) : jit::Call(), bound(K->residual));
    // λ plays 1/ρ: residual balancing as in ADMM scales λ and μ together (μ/λ stays ≤ 1/‖K‖²)
    const bool adaptive = opt.adaptive_rho && opt.lambda == 0 && opt.mu == 0;
    Monitor mon(p, opt, res);
    ResidualBalancing balancing;
    if (const auto* s = adaptive ? warm_steps(p, warm, 3) : nullptr)
        steps.lambda = (*s)[0], steps.mu = (*s)[1], balancing.strength = (*s)[2];
    int it = 0;
    bool converged = false, stopped = false;
    while (it < opt.max_iters && !converged && !stopped) {
        ++it;
        const double rho = 1.0 / steps.lambda;
        lambda_f = float(steps.lambda);
        mu_f = float(steps.mu);
        gram.omega_step(x_step, x_next, steps.mu);
        std::swap(x, x_next);
        state.update(rho, true);
        if (mon.should_check(it)) {
            converged = state.check(x, rho, mon, it);
            if (!converged && mon.likely_infeasible()) break;
            const double factor = adaptive && !converged ? balancing.factor(res.history.back()) : 1.0;
            if (factor != 1.0) {
                steps.lambda /= factor;
                steps.mu /= factor;
                state.rescale_dual(1.0 / factor);
            }
        }
        if (!mon.after_iteration(it)) stopped = true;
    }
    mon.finish(it, converged, stopped);
    res.x = state.solution(x);
    if (res.x.data() != x.data()) res.x_iterate = x;
    res.duals = state.duals();
    res.steps = {steps.lambda, steps.mu, balancing.strength};
    return res;
}

}  // namespace proxgen::detail
