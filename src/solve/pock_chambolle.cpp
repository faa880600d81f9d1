// Pock–Chambolle (primal–dual hybrid gradient), Chambolle & Pock 2011:
//   y⁺ = prox_{σF*}(y + σ K x̄)        (one pipeline: all Ψ terms, K x̄ fused in)
//   x⁺ = prox_{τΩ}(x − τ Kᵀ y⁺)       (one pipeline: Kᵀ and the closed-form Ω prox fused)
//   x̄⁺ = x⁺ + θ (x⁺ − x)              (folded into the next dual step)
// With a strongly convex Ω (modulus γ) it uses Algorithm 2 (θ = 1/√(1+2γτ), τ ← θτ, σ ← σ/θ),
// O(1/N²); otherwise θ = 1 and fixed steps with τσ‖K‖² = 1.
#include <cmath>

#include "engine.hpp"
#include "fused_state.hpp"
#include "pc_pipelines.hpp"
#include "spectral_gram.hpp"
#include "proxgen/error.hpp"

namespace proxgen::detail {

using namespace Halide;
using lower::Lowered;
using lower::Part;
using lower::Stages;

namespace {

/// The compiled pipelines (every one takes PCPipelines::arguments()): fused step and check where
/// the plan allows (pc_pipelines.hpp), else separate dual and primal steps; the residual kernel
/// whenever the check is not fused.
struct PCKernels {
    jit::KernelPtr dual, primal, residual, step, check, constant;
    explicit PCKernels(const ir::Problem& p) {
        LazyPipelines<PCPipelines> pipes(p);
        if (lower::spectral_constant_precomputed(p))
            constant = kernel_for(p, "pc.omega_constant", pipes.source(&PCPipelines::constant));
        if (fusion_enabled() && lower::psi_fusable(p)) {
            step = kernel_for(p, "pc.step", pipes.source(&PCPipelines::step));
            if (!spectral(p)) check = kernel_for(p, "pc.check", pipes.source(&PCPipelines::check));
        } else {
            if (!p.psi.empty()) dual = kernel_for(p, "pc.dual", pipes.source(&PCPipelines::dual));
            primal = kernel_for(p, "pc.primal", pipes.source(&PCPipelines::primal));
        }
        if (!check) residual = kernel_for(p, "pc.residual", pipes.source(&PCPipelines::residual));
    }
};

/// n iterations per call (psi_blockable plans), compiled on first use for each n.
jit::KernelPtr pc_block_kernel(const ir::Problem& p, int n, double& compile_seconds) {
    const std::string role = "pc.block" + std::to_string(n);
    return cached_as<jit::Kernel>(role + ":" + ir::signature(p), [&] {
        return kernel_for(p, role, [&] {
            PCPipelines pipes(p);
            Pipeline it = pipes.iterations(p, n);
            return jit::Source{it, pipes.iteration_arguments()};
        });
    }, compile_seconds);
}

}  // namespace

steps::PockChambolle pc_steps(const ir::Problem& p, const Options& opt, std::vector<double>* scales) {
    steps::Inputs in = step_inputs(p, opt);
    std::vector<double> norms, k(p.psi.size(), 1.0);
    for (const auto& t : p.psi) norms.push_back(t.norm_bound);
    if (opt.precondition && p.psi.size() >= 2)
        if (const double lp = steps::block_preconditioning(norms.data(), int(norms.size()), k.data()); lp > 0)
            in.norm = lp;
    if (scales) *scales = k;
    const steps::PockChambolle s = steps::pock_chambolle(in);
    if (steps::too_large(s.product))
        fail("pock_chambolle: tau * sigma * ||K||^2 = {:.4g} > 1; the iteration may diverge (tau = {}, sigma = {}, "
             "||K|| <= {:.4g})",
             s.product, s.tau, s.sigma, stacked_norm_bound(p));
    return s;
}

Result pock_chambolle(const ir::Problem& p, const Options& opt, const Result* warm) {
    Result res;
    auto K = cached_as<PCKernels>(kernels_key("pc", p), [&] { return std::make_shared<PCKernels>(p); },
                                  res.compile_seconds);
    std::vector<double> scales;
    const steps::PockChambolle steps = pc_steps(p, opt, &scales);
    std::vector<float> sigma_scale(scales.begin(), scales.end());
    double tau = steps.tau, sigma = steps.sigma, theta = 1.0;
    steps::Balance balance;
    if (const auto* s = opt.tau == 0 && opt.sigma == 0 ? warm_steps(p, warm, 4) : nullptr)
        tau = (*s)[0], sigma = (*s)[1], theta = (*s)[2], balance.alpha = (*s)[3];
    const bool fused = K->step != nullptr;
    const int per_call = iterations_per_call(p, opt, fused && lower::psi_blockable(p));
    const jit::KernelPtr block = per_call > 1 ? pc_block_kernel(p, per_call, res.compile_seconds) : nullptr;

    const int rv = int(p.variable_shape.size());
    Image x = initial_x(p, opt, warm);
    // x_prev2 is read only by the separate residual kernel (x̄ of the step before a check)
    Image x_prev = x.copy(), x_prev2 = K->residual ? x.copy() : Image(), x_next(p.variable_shape);
    Image x_spare = block ? Image(p.variable_shape) : Image();  // x_{n−1} of a block
    const auto shapes = psi_shapes(p);
    std::vector<Image> y, y_next;
    std::vector<std::vector<Image>> y_parts, y_next_parts;
    const bool warm_duals = warm && warm->signature == ir::signature(p) && warm->algorithm == Algorithm::pock_chambolle &&
                            warm->duals.size() == shapes.size();
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        y.push_back(warm_duals ? warm->duals[i].copy() : Image(shapes[i]));
        y_next.emplace_back(shapes[i]);
    }
    if (fused)
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            y_parts.push_back(component_views(y[i], rv));
            y_next_parts.push_back(component_views(y_next[i], rv));
        }
    SpectralGram gram(p);
    SquareSumsOutput sums(pc_residual_shapes(p));

    // Every kernel takes the same inputs, bound once: swaps and rotations of the images below move
    // contents, not the bound objects.
    const lower::DataArgs data(p);
    const auto vshapes = ir::variable_shapes(p);
    // spectral x-updates: the data-only part of the right-hand side, computed below
    Image omega_constant = K->constant ? Image(p.variable_shape) : Image();
    float sigma_f = 0, tau_f = 0, theta_f = 0, res_sigma_f = 0, res_tau_f = 0, res_theta_f = 0;
    std::vector<float> level_steps(3 * std::size_t(per_call), 0.0f);
    auto bound = [&](const jit::KernelPtr& k) {
        jit::Call c(k);
        data.bind(c);
        c.in_state("x", x, vshapes).in_state("x_prev", x_prev, vshapes);
        c.in_state("x_prev2", x_prev2.empty() ? x_prev : x_prev2, vshapes);
        for (std::size_t i = 0; i < y.size(); ++i)
            c.in("y" + std::to_string(i), y[i]).in("y_prev" + std::to_string(i), y_next[i]);
        c.in("sigma", sigma_f).in("tau", tau_f).in("theta", theta_f);
        c.in("res_sigma", res_sigma_f).in("res_tau", res_tau_f).in("res_theta", res_theta_f);
        for (std::size_t i = 0; i < sigma_scale.size(); ++i) c.in("sigma_scale" + std::to_string(i), sigma_scale[i]);
        if (!omega_constant.empty()) c.in("omega_constant", omega_constant);
        return c;
    };
    // fused kernels' outputs: {x (or the spectral right-hand side), y_next's components...}
    auto bind_duals = [&](jit::Call& c, int first) {
        for (auto& parts : y_next_parts)
            for (auto& part : parts) c.out(first++, part);
        return first;
    };
    if (K->constant) bound(K->constant).out(0, omega_constant).run();  // (its own input is unused)
    jit::Call dual, primal, step, check, residual, block_call;
    if (fused) {
        step = bound(K->step);
        bind_duals(step, 1);
        if (K->check) {
            check = bound(K->check);
            check.out(0, x_next);
            check.out(bind_duals(check, 1), sums.partials);
        }
        if (block) {
            block_call = bound(block);
            for (int k = 0; k < per_call; ++k) {
                const std::string n = std::to_string(k + 1);
                block_call.in("sigma_" + n, level_steps[3 * k]).in("tau_" + n, level_steps[3 * k + 1]);
                block_call.in("theta_" + n, level_steps[3 * k + 2]);
            }
            block_call.out(0, x_next).out(1, x_spare);
            bind_duals(block_call, 2);
        }
    } else {
        if (!p.psi.empty()) {
            dual = bound(K->dual);
            for (std::size_t i = 0; i < y.size(); ++i) dual.out(int(i), y_next[i]);
        }
        primal = bound(K->primal);
    }
    if (K->residual) residual = bound(K->residual).out(0, sums.partials);

    auto swap_duals = [&] {
        if (fused) swap_with_views(y, y_parts, y_next, y_next_parts);
        else swap_each(y, y_next);
    };
    // after a step wrote x_next: x ← x_{n+1}, x_prev ← x_n, x_prev2 ← x_{n−1}
    auto rotate_x = [&] {
        Image newest = std::move(x_next);
        if (x_prev2.empty()) {
            x_next = std::move(x_prev);
        } else {
            x_next = std::move(x_prev2);
            x_prev2 = std::move(x_prev);
        }
        x_prev = std::move(x);
        x = std::move(newest);
    };
    auto advance_steps = [&] {
        if (steps.accelerated) steps::accelerate(steps.gamma, tau, sigma, theta);
    };

    const double sqrt_n = std::sqrt(double(x.size())), sqrt_m = std::sqrt(double(psi_elements(p)));
    Monitor mon(p, opt, res);
    int it = 0;
    bool converged = false, stopped = false;
    while (it < opt.max_iters && !converged && !stopped) {
        if (block && it + per_call <= opt.max_iters && no_check_between(mon, it + 1, it + per_call)) {
            // n iterations in one call; the accelerated rule's steps are precomputed per level
            for (int k = 0; k < per_call; ++k) {
                level_steps[3 * k] = float(sigma);
                level_steps[3 * k + 1] = float(tau);
                level_steps[3 * k + 2] = float(theta);
                advance_steps();
            }
            block_call.run();
            swap_duals();
            // x ← x_n, x_prev ← x_{n−1}; the old x and x_prev become free
            std::swap(x, x_next);
            std::swap(x_prev, x_spare);
            it += per_call;
            continue;
        }
        ++it;
        const double theta_used = theta, sigma_used = sigma, tau_used = tau;
        sigma_f = float(sigma);
        theta_f = float(theta);
        tau_f = float(tau);
        const bool measure = mon.should_check(it);
        if (measure && check.defined()) {
            check.run();
        } else if (fused) {
            gram.omega_step(step, x_next, tau);
        } else {
            if (!p.psi.empty()) dual.run();
            swap_each(y, y_next);  // y_next now holds the previous y
            gram.omega_step(primal, x_next, tau);
        }
        if (fused) swap_duals();
        rotate_x();
        advance_steps();
        if (measure) {
            if (!check.defined()) {
                res_sigma_f = float(sigma_used);
                res_tau_f = float(tau_used);
                res_theta_f = float(theta_used);
                residual.run();
            }
            // pc_residual_shapes' order: P and Kᵀy per variable, then (D_i, K_i x) per term
            const std::vector<double> s = sums.totals();
            const std::size_t nv = vshapes.size();
            double p2 = 0, kty2 = 0, d2 = 0, kx2 = 0;
            for (std::size_t j = 0; j < nv; ++j) {
                p2 += s[j];
                kty2 += s[nv + j];
            }
            for (std::size_t i = 0; i < shapes.size(); ++i) {
                d2 += s[2 * nv + 2 * i];
                kx2 += s[2 * nv + 1 + 2 * i];
            }
            const double rp = std::sqrt(p2), rd = std::sqrt(d2);
            const double eps_p = sqrt_n * opt.eps_abs + opt.eps_rel * std::sqrt(kty2);
            const double eps_d = sqrt_m * opt.eps_abs + opt.eps_rel * std::sqrt(kx2);
            converged = mon.record(it, rp, eps_p, rd, eps_d, x, "the dual step");
            if (!converged && mon.likely_infeasible()) break;
            if (steps.adaptive && !converged) {
                const auto rel = steps::relative_residuals(rp, std::sqrt(kty2), double(x.size()), rd, std::sqrt(kx2),
                                                           double(psi_elements(p)));
                balance.apply(rel.primal, rel.dual, tau, sigma);
            }
        }
        if (!mon.after_iteration(it)) stopped = true;
    }
    mon.finish(it, converged, stopped);
    res.x = x;
    res.duals = y;
    res.steps = {tau, sigma, theta, balance.alpha};
    return res;
}

}  // namespace proxgen::detail
