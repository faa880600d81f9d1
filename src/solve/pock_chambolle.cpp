// Pock–Chambolle (primal–dual hybrid gradient), Chambolle & Pock 2011:
//   y⁺ = prox_{σF*}(y + σ K x̄)        (one pipeline: all Ψ terms, K x̄ fused in)
//   x⁺ = prox_{τΩ}(x − τ Kᵀ y⁺)       (one pipeline: Kᵀ and the closed-form Ω prox fused)
//   x̄⁺ = x⁺ + θ (x⁺ − x)              (folded into the next dual step)
// With a strongly convex Ω (modulus γ) it uses Algorithm 2 (θ = 1/√(1+2γτ), τ ← θτ, σ ← σ/θ),
// O(1/N²); otherwise θ = 1 and fixed steps with τσ‖K‖² = 1.
#include <cmath>

#include "engine.hpp"
#include "pc_pipelines.hpp"
#include "spectral_gram.hpp"
#include "proxgen/error.hpp"

namespace proxgen::detail {

using namespace Halide;
using lower::Lowered;
using lower::Part;
using lower::Stages;

namespace {

/// The compiled pipelines (every one takes PCPipelines::arguments()).
struct PCKernels {
    jit::KernelPtr dual, primal, residual;
    explicit PCKernels(const ir::Problem& p) {
        LazyPipelines<PCPipelines> pipes(p);
        if (!p.psi.empty()) dual = kernel_for(p, "pc.dual", pipes.source(&PCPipelines::dual));
        primal = kernel_for(p, "pc.primal", pipes.source(&PCPipelines::primal));
        residual = kernel_for(p, "pc.residual", pipes.source(&PCPipelines::residual));
    }
};

/// Adaptive PDHG (Goldstein, Li, Yuan, Esser & Baraniuk 2015): when one residual (RMS per
/// element) exceeds the other by more than Δ = 2, shift the step ratio τ/σ towards the lagging
/// side, keeping τσ fixed; the shift α decays geometrically, so the steps settle and the usual
/// convergence proof applies from then on. η = 0.5 (a light correction of the curvature-based
/// σ₀): with Goldstein's 0.95 the steps wandered, and Poisson deblurring at 64² needed >2000
/// iterations for 1e-4 instead of ~700.
void balance_steps(double primal_rms, double dual_rms, double& tau, double& sigma, double& alpha) {
    constexpr double delta = 2.0, eta = 0.5;
    if (primal_rms > delta * dual_rms) {
        tau /= 1 - alpha;
        sigma *= 1 - alpha;
    } else if (dual_rms > delta * primal_rms) {
        tau *= 1 - alpha;
        sigma /= 1 - alpha;
    } else {
        return;
    }
    alpha *= eta;
}

}  // namespace

PCSteps pc_steps(const ir::Problem& p, const Options& opt) {
    const double L = stacked_norm_bound(p);
    PCSteps s{};
    s.gamma = p.omega_strong_convexity;
    s.accelerated = opt.accelerate && s.gamma > 0;
    if (L <= 0) {  // nothing split: the x-update alone solves the problem
        s.tau = opt.tau > 0 ? opt.tau : 1.0;
        s.sigma = 1.0;
        return s;
    }
    if (opt.tau > 0 && opt.sigma > 0) {
        s.tau = opt.tau;
        s.sigma = opt.sigma;
    } else if (opt.tau > 0) {
        s.tau = opt.tau;
        s.sigma = 1.0 / (s.tau * L * L);
    } else if (opt.sigma > 0) {
        s.sigma = opt.sigma;
        s.tau = 1.0 / (s.sigma * L * L);
    } else {
        // Accelerated: γτ₀ = 5 starts the θ_n decay at once without a tiny σ₀ (measured on TV
        // denoising: 1e-4 of the optimum in ~200 iterations, vs ~1000 from τ₀ = 1/‖K‖).
        // Otherwise σ₀ = ADMM's ρ₀ (σ plays ρ: the dual step), τ₀ = 1/(σ₀‖K‖²), then adapted.
        s.tau = s.accelerated ? 5.0 / s.gamma : 1.0 / (admm_rho(p, Options()) * L * L);
        s.sigma = 1.0 / (s.tau * L * L);
        s.adaptive = !s.accelerated;
    }
    if (s.tau * s.sigma * L * L > 1.0 + 1e-6)
        fail("pock_chambolle: tau * sigma * ||K||^2 = {:.4g} > 1; the iteration may diverge (tau = {}, sigma = {}, "
             "||K|| <= {:.4g})",
             s.tau * s.sigma * L * L, s.tau, s.sigma, L);
    return s;
}

Result pock_chambolle(const ir::Problem& p, const Options& opt, const Result* warm) {
    Result res;
    auto K = cached_as<PCKernels>("pc:" + ir::signature(p), [&] { return std::make_shared<PCKernels>(p); },
                                  res.compile_seconds);
    PCSteps steps = pc_steps(p, opt);
    double tau = steps.tau, sigma = steps.sigma, theta = 1.0;
    double adapt = 0.5;  // Goldstein et al.'s α₀
    if (const auto* s = opt.tau == 0 && opt.sigma == 0 ? warm_steps(p, warm, 4) : nullptr)
        tau = (*s)[0], sigma = (*s)[1], theta = (*s)[2], adapt = (*s)[3];

    Image x = initial_x(p, opt, warm);
    Image x_prev = x.copy(), x_prev2 = x.copy();
    const auto shapes = psi_shapes(p);
    std::vector<Image> y, y_next, r_y;
    const bool warm_duals = warm && warm->signature == ir::signature(p) && warm->algorithm == Algorithm::pock_chambolle &&
                            warm->duals.size() == shapes.size();
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        y.push_back(warm_duals ? warm->duals[i].copy() : Image(shapes[i]));
        y_next.emplace_back(shapes[i]);
        r_y.emplace_back(shapes[i]);
        r_y.emplace_back(shapes[i]);
    }
    SpectralGram gram(p);
    Image r_primal(p.variable_shape), r_kty(p.variable_shape);

    // Every kernel takes the same inputs, bound once: swaps and rotations of the images below move
    // contents, not the bound objects.
    const lower::DataArgs data(p);
    float sigma_f = 0, tau_f = 0, theta_f = 0, res_sigma_f = 0, res_tau_f = 0, res_theta_f = 0;
    auto bound = [&](const jit::KernelPtr& k) {
        jit::Call c(k);
        data.bind(c);
        c.in("x", x).in("x_prev", x_prev).in("x_prev2", x_prev2);
        for (std::size_t i = 0; i < y.size(); ++i)
            c.in("y" + std::to_string(i), y[i]).in("y_prev" + std::to_string(i), y_next[i]);
        c.in("sigma", sigma_f).in("tau", tau_f).in("theta", theta_f);
        c.in("res_sigma", res_sigma_f).in("res_tau", res_tau_f).in("res_theta", res_theta_f);
        return c;
    };
    jit::Call dual = p.psi.empty() ? jit::Call() : bound(K->dual), primal = bound(K->primal),
              residual = bound(K->residual);
    for (std::size_t i = 0; i < y.size(); ++i) dual.out(int(i), y_next[i]);
    residual.out(0, r_primal).out(1, r_kty);
    for (std::size_t i = 0; i < r_y.size(); ++i) residual.out(int(2 + i), r_y[i]);

    const double sqrt_n = std::sqrt(double(x.size())), sqrt_m = std::sqrt(double(psi_elements(p)));
    Monitor mon(p, opt, res);
    int it = 0;
    bool converged = false, stopped = false;
    while (it < opt.max_iters && !converged && !stopped) {
        ++it;
        const double theta_used = theta, sigma_used = sigma, tau_used = tau;
        if (!p.psi.empty()) {
            sigma_f = float(sigma);
            theta_f = float(theta);
            dual.run();
            swap_each(y, y_next);  // y_next now holds the previous y
        }
        tau_f = float(tau);
        gram.omega_step(primal, x_prev2, tau);
        // rotate: x ← x_{n+1} (just written), x_prev ← x_n, x_prev2 ← x_{n−1}
        Image newest = std::move(x_prev2);
        x_prev2 = std::move(x_prev);
        x_prev = std::move(x);
        x = std::move(newest);
        if (steps.accelerated) {
            theta = 1.0 / std::sqrt(1.0 + 2.0 * steps.gamma * tau);
            tau *= theta;
            sigma /= theta;
        }
        if (mon.should_check(it)) {
            res_sigma_f = float(sigma_used);
            res_tau_f = float(tau_used);
            res_theta_f = float(theta_used);
            residual.run();
            double d2 = 0, kx2 = 0;
            for (std::size_t i = 0; i < shapes.size(); ++i) {
                d2 += std::pow(norm2(r_y[2 * i]), 2);
                kx2 += std::pow(norm2(r_y[2 * i + 1]), 2);
            }
            const double rp = norm2(r_primal), rd = std::sqrt(d2);
            const double eps_p = sqrt_n * opt.eps_abs + opt.eps_rel * norm2(r_kty);
            const double eps_d = sqrt_m * opt.eps_abs + opt.eps_rel * std::sqrt(kx2);
            converged = mon.record(it, rp, eps_p, rd, eps_d, x, "the dual step");
            if (!converged && mon.likely_infeasible()) break;
            if (steps.adaptive && !converged) balance_steps(rp / sqrt_n, rd / sqrt_m, tau, sigma, adapt);
        }
        if (!mon.after_iteration(it)) stopped = true;
    }
    mon.finish(it, converged, stopped);
    res.x = x;
    res.duals = y;
    res.steps = {tau, sigma, theta, adapt};
    return res;
}

}  // namespace proxgen::detail
