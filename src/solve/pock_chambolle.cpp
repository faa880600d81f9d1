// Pock–Chambolle (primal–dual hybrid gradient), Chambolle & Pock 2011:
//   y⁺ = prox_{σF*}(y + σ K x̄)        (one pipeline: all Ψ terms, K x̄ fused in)
//   x⁺ = prox_{τΩ}(x − τ Kᵀ y⁺)       (one pipeline: Kᵀ and the closed-form Ω prox fused)
//   x̄⁺ = x⁺ + θ (x⁺ − x)              (folded into the next dual step)
// With a strongly convex Ω (modulus γ) it uses Algorithm 2 (θ = 1/√(1+2γτ), τ ← θτ, σ ← σ/θ),
// O(1/N²); otherwise θ = 1 and fixed steps with τσ‖K‖² = 1.
// The same runner runs Condat–Vũ (proxgen/algorithms/condat_vu.hpp): its plans' primal step also
// moves along −τ∇h (pc_pipelines.cpp), its steps follow steps::condat_vu.
#include <future>
#include <cmath>

#include "engine.hpp"
#include "fused_state.hpp"
#include "pc_pipelines.hpp"
#include "per_card_pc.hpp"
#include "card_runner.hpp"
#include "spectral_gram.hpp"
#include "proxgen/algorithms/pock_chambolle.hpp"
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
    if (plan::gradient_steps(p.algorithm)) {
        const steps::PockChambolle s = steps::condat_vu(in);
        if (steps::too_large(s.product))
            fail("condat_vu: tau * (sigma * ||K||^2 + L/2) = {:.4g} > 1; the iteration may diverge (tau = {}, "
                 "sigma = {}, ||K|| <= {:.4g}, L = {:.4g}: the Lipschitz constant of the gradient-step terms)",
                 s.product, s.tau, s.sigma, in.norm, in.smooth_lipschitz);
        return s;
    }
    const steps::PockChambolle s = steps::pock_chambolle(in);
    if (steps::too_large(s.product))
        fail("pock_chambolle: tau * sigma * ||K||^2 = {:.4g} > 1; the iteration may diverge (tau = {}, sigma = {}, "
             "||K|| <= {:.4g})",
             s.product, s.tau, s.sigma, stacked_norm_bound(p));
    return s;
}

namespace {

/// The JIT's runner of the Pock–Chambolle card (proxgen/algorithms/pock_chambolle.hpp): the state
/// images and the compiled kernels bound to them once. Kernels are bound to the images' addresses:
/// swaps and rotations move contents, never the bound objects, and the runner never moves.
class PCRunner {
public:
    /// shared: the solve's Monitor when another runner reported to it before (the per-card
    /// runner whose state this one takes over); else the runner's own, started after compilation.
    PCRunner(const ir::Problem& p, const Options& opt, const Result* warm, Result& res, Monitor* shared = nullptr)
        : p_(p) {
        K_ = cached_as<PCKernels>(kernels_key("pc", p), [&] { return std::make_shared<PCKernels>(p); },
                                  res.compile_seconds);
        rule_ = pc_steps(p, opt, &scales_);
        sigma_scale_.assign(scales_.begin(), scales_.end());
        fused_ = K_->step != nullptr;
        per_call_ = detail::iterations_per_call(p, opt, fused_ && lower::psi_blockable(p));
        block_ = per_call_ > 1 ? pc_block_kernel(p, per_call_, res.compile_seconds) : nullptr;
        if (const auto* s = opt.tau == 0 && opt.sigma == 0 ? detail::warm_steps(p, warm, 4) : nullptr) {
            warm_start_ = algorithms::PCSteps{(*s)[1], (*s)[0], (*s)[2]};
            warm_balance_.alpha = (*s)[3];
            warm_ = true;
        }
        const int rv = int(p.variable_shape.size());
        x_ = initial_x(p, opt, warm);
        // x_prev2 is read only by the separate residual kernel (x̄ of the step before a check)
        x_prev_ = x_.copy();
        if (K_->residual) x_prev2_ = x_.copy();
        x_next_ = Image(p.variable_shape);
        if (block_) x_spare_ = Image(p.variable_shape);  // x_{n−1} of a block
        shapes_ = psi_shapes(p);
        const bool warm_duals = warm && warm->signature == ir::signature(p) &&
                                warm->algorithm == p.algorithm && warm->duals.size() == shapes_.size();
        for (std::size_t i = 0; i < shapes_.size(); ++i) {
            y_.push_back(warm_duals ? warm->duals[i].copy() : Image(shapes_[i]));
            y_next_.emplace_back(shapes_[i]);
        }
        if (fused_)
            for (std::size_t i = 0; i < shapes_.size(); ++i) {
                y_parts_.push_back(component_views(y_[i], rv));
                y_next_parts_.push_back(component_views(y_next_[i], rv));
            }
        vshapes_ = ir::variable_shapes(p);
        // spectral x-updates: the data-only part of the right-hand side, computed below
        if (K_->constant) omega_constant_ = Image(p.variable_shape);
        level_steps_.assign(3 * std::size_t(per_call_), 0.0f);
        if (K_->constant) bound(K_->constant).out(0, omega_constant_).run();  // (its own input is unused)
        if (fused_) {
            step_ = bound(K_->step);
            bind_duals(step_, 1);
            if (K_->check) {
                check_ = bound(K_->check);
                check_.out(0, x_next_);
                check_.out(bind_duals(check_, 1), sums_.partials);
            }
            if (block_) {
                block_call_ = bound(block_);
                for (int k = 0; k < per_call_; ++k) {
                    const std::string n = std::to_string(k + 1);
                    block_call_.in("sigma_" + n, level_steps_[3 * k]).in("tau_" + n, level_steps_[3 * k + 1]);
                    block_call_.in("theta_" + n, level_steps_[3 * k + 2]);
                }
                block_call_.out(0, x_next_).out(1, x_spare_);
                bind_duals(block_call_, 2);
            }
        } else {
            if (!p.psi.empty()) {
                dual_ = bound(K_->dual);
                for (std::size_t i = 0; i < y_.size(); ++i) dual_.out(int(i), y_next_[i]);
            }
            primal_ = bound(K_->primal);
        }
        if (K_->residual) residual_ = bound(K_->residual).out(0, sums_.partials);
        if (shared) {
            mon_ = shared;
        } else {
            own_monitor_.emplace(p, opt, res);  // its clock starts after the compilation above
            mon_ = &*own_monitor_;
        }
    }
    PCRunner(const PCRunner&) = delete;
    PCRunner& operator=(const PCRunner&) = delete;

    const steps::PockChambolle& rule() const { return rule_; }
    /// A warm start's adapted steps, when it has them.
    bool warm_steps(algorithms::PCSteps& s, steps::Balance& b) const {
        s = warm_start_;
        b = warm_balance_;
        return warm_;
    }
    Monitor& monitor() { return *mon_; }
    const Image& x() const { return x_; }
    const std::vector<Image>& duals() const { return y_; }
    /// Continues another runner's iterations: x and y came as the warm start, this is the x before
    /// (read by the next step's extrapolation).
    void continue_from(const Image& x_prev) {
        std::copy(x_prev.data(), x_prev.data() + x_prev.size(), x_prev_.data());
        if (!x_prev2_.empty()) std::copy(x_prev.data(), x_prev.data() + x_prev.size(), x_prev2_.data());
    }

    // the card's Runner
    int iterations_per_call() const { return per_call_; }

    bool run_step(const algorithms::PCSteps& s, bool measure) {
        set(sigma_f_, tau_f_, theta_f_, s);
        if (measure && check_.defined()) {
            check_.run();
        } else if (fused_) {
            gram_.omega_step(step_, x_next_, s.tau);
        } else {
            if (!p_.psi.empty()) dual_.run();
            swap_each(y_, y_next_);  // y_next now holds the previous y
            gram_.omega_step(primal_, x_next_, s.tau);
        }
        if (fused_) swap_duals();
        rotate_x();
        if (measure && !check_.defined()) {  // the residual of the step just made, from the state after it
            set(res_sigma_f_, res_tau_f_, res_theta_f_, s);
            residual_.run();
        }
        return true;
    }

    bool run_block(const float* levels) {
        std::copy(levels, levels + level_steps_.size(), level_steps_.begin());
        block_call_.run();
        swap_duals();
        // x ← x_n, x_prev ← x_{n−1}; the old x and x_prev become free
        std::swap(x_, x_next_);
        std::swap(x_prev_, x_spare_);
        return true;
    }

    bool sums(algorithms::PCSums& s) {
        const std::vector<double> t = sums_.totals();
        s = algorithms::pc_sums(t.data(), int(vshapes_.size()), int(shapes_.size()), double(x_.size()),
                                double(psi_elements(p_)));
        return true;
    }

    algorithms::Verdict record(int it, const algorithms::Residuals& r, bool /*met: the Monitor decides*/) {
        return monitor_verdict(*mon_, it, r, x_, "the dual step");
    }

    bool after_iteration(int it) { return mon_->after_iteration(it); }

private:
    static void set(float& sigma, float& tau, float& theta, const algorithms::PCSteps& s) {
        sigma = float(s.sigma);
        tau = float(s.tau);
        theta = float(s.theta);
    }

    // Every kernel takes the same inputs, bound once.
    jit::Call bound(const jit::KernelPtr& k) {
        jit::Call c(k);
        data_.bind(c);
        c.in_state("x", x_, vshapes_).in_state("x_prev", x_prev_, vshapes_);
        c.in_state("x_prev2", x_prev2_.empty() ? x_prev_ : x_prev2_, vshapes_);
        for (std::size_t i = 0; i < y_.size(); ++i)
            c.in("y" + std::to_string(i), y_[i]).in("y_prev" + std::to_string(i), y_next_[i]);
        c.in("sigma", sigma_f_).in("tau", tau_f_).in("theta", theta_f_);
        c.in("res_sigma", res_sigma_f_).in("res_tau", res_tau_f_).in("res_theta", res_theta_f_);
        for (std::size_t i = 0; i < sigma_scale_.size(); ++i) c.in("sigma_scale" + std::to_string(i), sigma_scale_[i]);
        if (!omega_constant_.empty()) c.in("omega_constant", omega_constant_);
        return c;
    }
    // fused kernels' outputs: {x (or the spectral right-hand side), y_next's components...}
    int bind_duals(jit::Call& c, int first) {
        for (auto& parts : y_next_parts_)
            for (auto& part : parts) c.out(first++, part);
        return first;
    }
    void swap_duals() {
        if (fused_) swap_with_views(y_, y_parts_, y_next_, y_next_parts_);
        else swap_each(y_, y_next_);
    }
    // after a step wrote x_next: x ← x_{n+1}, x_prev ← x_n, x_prev2 ← x_{n−1}
    void rotate_x() {
        Image newest = std::move(x_next_);
        if (x_prev2_.empty()) {
            x_next_ = std::move(x_prev_);
        } else {
            x_next_ = std::move(x_prev2_);
            x_prev2_ = std::move(x_prev_);
        }
        x_prev_ = std::move(x_);
        x_ = std::move(newest);
    }

    const ir::Problem& p_;
    std::optional<Monitor> own_monitor_;
    Monitor* mon_ = nullptr;
    std::shared_ptr<const PCKernels> K_;
    steps::PockChambolle rule_;
    std::vector<double> scales_;
    std::vector<float> sigma_scale_;
    algorithms::PCSteps warm_start_;
    steps::Balance warm_balance_;
    bool warm_ = false, fused_ = false;
    int per_call_ = 1;
    jit::KernelPtr block_;
    Image x_, x_prev_, x_prev2_, x_next_, x_spare_;
    std::vector<std::vector<int>> shapes_, vshapes_;
    std::vector<Image> y_, y_next_;
    std::vector<std::vector<Image>> y_parts_, y_next_parts_;
    SpectralGram gram_{p_};
    SquareSumsOutput sums_{pc_residual_shapes(p_)};
    const lower::DataArgs data_{p_};
    Image omega_constant_;
    float sigma_f_ = 0, tau_f_ = 0, theta_f_ = 0, res_sigma_f_ = 0, res_tau_f_ = 0, res_theta_f_ = 0;
    std::vector<float> level_steps_;
    jit::Call dual_, primal_, step_, check_, residual_, block_call_;
};

Result pock_chambolle_fused(const ir::Problem& p, const Options& opt, const Result* warm) {
    Result res;
    PCRunner runner(p, opt, warm, res);
    const algorithms::LoopOptions o = loop_options(p, opt);
    algorithms::PockChambolle loop(runner.rule(), o);
    algorithms::PCSteps start;
    steps::Balance balance;
    if (runner.warm_steps(start, balance)) loop.restart(start, balance);
    loop.run(runner, opt.max_iters);
    const algorithms::Progress& done = loop.progress();
    runner.monitor().finish(done.iterations, done.converged, done.stopped);
    res.x = runner.x();
    res.duals = runner.duals();
    const algorithms::PCSteps s = loop.steps();
    res.steps = {s.tau, s.sigma, s.theta, loop.balance().alpha};
    return res;
}

/// Per card from the start: to the end (fused null: Tier::per_card), or until the fused kernels,
/// compiling meanwhile, take over (Tier::automatic, iterate_until_switch).
Result pock_chambolle_per_card(const ir::Problem& p, const Options& opt, const Result* warm, const TierStart& tier) {
    Result res;
    Monitor monitor(p, opt, res);
    PerCardPCRunner per_card(p, opt, warm, monitor);
    monitor.start_clock();
    algorithms::PockChambolle loop(per_card.rule(), loop_options(p, opt));
    algorithms::PCSteps start;
    steps::Balance balance;
    if (per_card.warm_steps(start, balance)) loop.restart(start, balance);
    const bool switched = iterate_until_switch(loop, per_card, tier, "pock_chambolle", [&](const ir::Problem& tight) {
        loop.retune(per_card.retune(tight, opt));
    });
    res.per_card_iterations = loop.progress().iterations;
    if (!switched) {
        res.x = per_card.x();
        res.duals = per_card.duals();
    } else {
        // the fused runner takes over, the x before the last as its previous iterate (x̄ reads it)
        const Handoff h(p, opt, per_card.x(), per_card.duals());
        PCRunner runner(tier.fused_plan(p), h.options, &h.warm, res, &monitor);
        runner.continue_from(per_card.x_prev());
        loop.run(runner, opt.max_iters - res.per_card_iterations);
        res.x = runner.x();
        res.duals = runner.duals();
    }
    const algorithms::Progress& done = loop.progress();
    monitor.finish(done.iterations, done.converged, done.stopped);
    const algorithms::PCSteps s = loop.steps();
    res.steps = {s.tau, s.sigma, s.theta, loop.balance().alpha};
    return res;
}

}  // namespace

Result pock_chambolle(const ir::Problem& p, const Options& opt, const Result* warm, QuickStart* quick) {
    return solve_in_tier<PCKernels>(p, opt, warm, quick, [&] { return kernels_key("pc", p); }, pock_chambolle_per_card,
                                    pock_chambolle_fused);
}

}  // namespace proxgen::detail
