// Linearized ADMM (Parikh & Boyd, Proximal Algorithms, §4.4.2), split z_i = K_i x:
//   x⁺ = prox_{μΩ}(x − (μ/λ) Kᵀ(K x − z + u))
//   z⁺ = prox_{λΨ}(K x⁺ + u),  u⁺ = u + K x⁺ − z⁺
// with 0 < μ ≤ λ/‖K‖². Residuals and stopping as Boyd et al. 2011 with ρ = 1/λ.
// Fused (lower::psi_fusable plans with a closed-form x-update, or psi_fusable_state ones in several
// variables of one shape): one kernel call per iteration writes the Tuple {x⁺ (per variable), z⁺
// components, u⁺ components} over the variable's domain, K x − z + u and
// x⁺ recomputed per strip of rows with their halos; a check variant also writes the residual
// partial sums; with psi_blockable plans n iterations run per call. Otherwise: an x pipeline
// fusing K, Kᵀ and the Ω prox (or the spectral right-hand side), then the (z, u) pipeline.
#include <cmath>
#include <cstdlib>
#include <optional>

#include "fused_state.hpp"
#include "ladmm_pipelines.hpp"
#include "card_runner.hpp"
#include "per_card_ladmm.hpp"
#include "spectral_gram.hpp"
#include "split_steps.hpp"
#include "proxgen/algorithms/linearized_admm.hpp"
#include "proxgen/error.hpp"

namespace proxgen::detail {

using namespace Halide;
using lower::Lowered;
using lower::Part;
using lower::Stages;

namespace {

struct LADMMKernels {
    jit::KernelPtr x_step, zu_step, residual, step, check, constant;
    explicit LADMMKernels(const ir::Problem& p) {
        LazyPipelines<LADMMPipelines> pipes(p);
        if (lower::spectral_constant_precomputed(p))
            constant = kernel_for(p, "ladmm.omega_constant", pipes.source(&LADMMPipelines::constant));
        if (fusion_enabled() && ((lower::psi_fusable(p) && !spectral(p)) || lower::psi_fusable_state(p))) {
            step = kernel_for(p, "ladmm.step", [&] { return jit::Source{pipes->fused(p, false), pipes->arguments()}; });
            check = kernel_for(p, "ladmm.check", [&] { return jit::Source{pipes->fused(p, true), pipes->arguments()}; });
            return;
        }
        x_step = kernel_for(p, "ladmm.x", pipes.source(&LADMMPipelines::x_step));
        if (!p.psi.empty()) zu_step = kernel_for(p, "split.zu", [&] { return jit::Source{pipes->zu_step(), pipes->arguments()}; });
        residual = kernel_for(p, "ladmm.residual", [&] { return jit::Source{pipes->residual(), pipes->arguments()}; });
    }
};

jit::KernelPtr ladmm_block_kernel(const ir::Problem& p, int n, double& compile_seconds) {
    const std::string role = "ladmm.block" + std::to_string(n);
    return cached_as<jit::Kernel>(role + ":" + ir::signature(p), [&] {
        return kernel_for(p, role, [&] {
            LADMMPipelines pipes(p);
            return jit::Source{pipes.iterations(p, n), pipes.arguments()};
        });
    }, compile_seconds);
}

}  // namespace

steps::LinearizedADMM ladmm_steps(const ir::Problem& p, const Options& opt) {
    const steps::LinearizedADMM s = steps::linearized_admm(step_inputs(p, opt));
    if (steps::too_large(s.product)) {
        const double L = std::max(stacked_norm_bound(p), 1e-12);
        fail("ladmm: mu = {} exceeds lambda / ||K||^2 = {:.4g}; the iteration may diverge", s.mu, s.lambda / (L * L));
    }
    return s;
}

bool ladmm_balances(const ir::Problem& p, const Options& opt) {
    // λ plays 1/ρ: residual balancing as in ADMM scales λ and μ together (μ/λ stays ≤ 1/‖K‖²)
    return steps::balance_residuals(step_inputs(p, opt)) && opt.lambda == 0 && opt.mu == 0;
}

namespace {

/// The JIT's runner of the linearized ADMM card (proxgen/algorithms/linearized_admm.hpp): x, the
/// split state and the compiled kernels bound to them once (swaps move contents, not the bound
/// objects; the runner never moves).
class LADMMRunner {
public:
    /// shared: the solve's Monitor where this runner takes over from the per-card tier's (else its own).
    LADMMRunner(const ir::Problem& p, const Options& opt, const Result* warm, Result& res, Monitor* shared = nullptr)
        : p_(p), start_(p, opt, warm), state_(p, warm, Algorithm::ladmm), gram_(p), data_(p) {
        K_ = cached_as<LADMMKernels>(kernels_key("ladmm", p), [&] { return std::make_shared<LADMMKernels>(p); },
                                     res.compile_seconds);
        fused_ = K_->step != nullptr;
        per_call_ = detail::iterations_per_call(p, opt, fused_ && lower::psi_blockable(p));
        block_ = per_call_ > 1 ? ladmm_block_kernel(p, per_call_, res.compile_seconds) : nullptr;
        const int rv = int(lower::fusion_domain(p).size());
        shapes_ = ir::variable_shapes(p);
        x_ = initial_x(p, opt, warm);
        x_next_ = Image(p.variable_shape);
        if (K_->constant) omega_constant_ = Image(p.variable_shape);
        if (K_->constant) bound(K_->constant).out(0, omega_constant_).run();  // (its own input is unused)
        if (fused_) {
            step_ = bound(K_->step);
            state_.bind_fused_outputs(step_, step_.out_state(0, x_next_, shapes_), rv);
            check_ = bound(K_->check);
            check_.out(state_.bind_fused_outputs(check_, check_.out_state(0, x_next_, shapes_), rv), state_.sums());
            if (block_) {
                block_call_ = bound(block_).out(0, x_next_);
                state_.bind_fused_outputs(block_call_, 1, rv);
            }
        } else {
            x_step_ = bound(K_->x_step);
            state_.set_kernels(K_->zu_step ? bound(K_->zu_step) : jit::Call(), bound(K_->residual));
        }
        if (shared) {
            mon_ = shared;
        } else {
            own_monitor_.emplace(p, opt, res);  // its clock starts after the compilation above
            mon_ = &*own_monitor_;
        }
    }
    LADMMRunner(const LADMMRunner&) = delete;
    LADMMRunner& operator=(const LADMMRunner&) = delete;

    const LADMMStart& start() const { return start_; }
    Monitor& monitor() { return *mon_; }

    /// Applies a rescale of u the last check asked for and no kernel has read yet; returns x and
    /// the duals into res.
    void finish(Result& res) {
        if (u_scale_f_ != 1) state_.rescale_dual(u_scale_f_);
        res.x = state_.solution(x_);
        if (res.x.data() != x_.data()) res.x_iterate = x_;
        res.duals = state_.duals();
    }

    // the card's Runner
    int iterations_per_call() const { return per_call_; }

    bool run_step(const algorithms::LADMMSteps& s, bool measure) {
        set(s);
        if (fused_) {
            (measure ? check_ : step_).run();
            std::swap(x_, x_next_);
            state_.advance_fused();
            u_scale_f_ = 1;
        } else {
            gram_.omega_step(x_step_, x_next_, s.mu);
            std::swap(x_, x_next_);
            state_.update(1.0 / s.lambda, true);
            if (measure) state_.measure(1.0 / s.lambda);
        }
        return true;
    }

    bool run_block(const algorithms::LADMMSteps& s) {
        set(s);
        block_call_.run();
        std::swap(x_, x_next_);
        state_.advance_fused();
        u_scale_f_ = 1;
        return true;
    }

    bool sums(algorithms::SplitSums& s) {
        s = state_.totals(x_);
        return true;
    }

    algorithms::Verdict record(int it, const algorithms::Residuals& r, bool /*met: the Monitor decides*/) {
        return monitor_verdict(*mon_, it, r, x_, "the split (z, u) step");
    }

    void rescale_dual(double factor) {
        if (fused_) u_scale_f_ = float(factor);  // applied by the next kernel's read of u
        else state_.rescale_dual(factor);
    }

    bool after_iteration(int it) { return mon_->after_iteration(it); }

private:
    void set(const algorithms::LADMMSteps& s) {
        lambda_f_ = float(s.lambda);
        mu_f_ = float(s.mu);
    }
    jit::Call bound(const jit::KernelPtr& k) {
        jit::Call c(k);
        data_.bind(c);
        state_.bind(c);
        c.in_state("x", x_, shapes_).in("lambda", lambda_f_).in("mu", mu_f_).in("u_scale", u_scale_f_);
        if (!omega_constant_.empty()) c.in("omega_constant", omega_constant_);
        return c;
    }

    const ir::Problem& p_;
    std::shared_ptr<const LADMMKernels> K_;
    const LADMMStart start_;
    bool fused_ = false;
    int per_call_ = 1;
    jit::KernelPtr block_;
    std::vector<std::vector<int>> shapes_;
    Image x_, x_next_, omega_constant_;
    SplitState state_;
    SpectralGram gram_;
    const lower::DataArgs data_;
    float lambda_f_ = 0, mu_f_ = 0, u_scale_f_ = 1;
    jit::Call x_step_, step_, check_, block_call_;
    std::optional<Monitor> own_monitor_;
    Monitor* mon_ = nullptr;
};

Result linearized_admm_fused(const ir::Problem& p, const Options& opt, const Result* warm) {
    Result res;
    LADMMRunner runner(p, opt, warm, res);
    const algorithms::LoopOptions o = loop_options(p, opt);
    algorithms::LinearizedADMM loop(runner.start().rule, runner.start().adaptive, o);
    algorithms::LADMMSteps start;
    ResidualBalancing balancing;
    if (runner.start().restart(start, balancing)) loop.restart(start, balancing);
    loop.run(runner, opt.max_iters);
    const algorithms::Progress& done = loop.progress();
    runner.monitor().finish(done.iterations, done.converged, done.stopped);
    runner.finish(res);
    const algorithms::LADMMSteps s = loop.steps();
    res.steps = {s.lambda, s.mu, loop.balancing().strength};
    return res;
}

/// Per card from the start: to the end (fused null: Tier::per_card), or until the fused kernels,
/// compiling meanwhile, take over (Tier::automatic, iterate_until_switch).
Result linearized_admm_per_card(const ir::Problem& p, const Options& opt, const Result* warm, const TierStart& tier) {
    Result res;
    Monitor monitor(p, opt, res);
    PerCardLADMMRunner per_card(p, opt, warm, monitor);
    monitor.start_clock();
    algorithms::LinearizedADMM loop(per_card.start().rule, per_card.start().adaptive, loop_options(p, opt));
    algorithms::LADMMSteps start;
    ResidualBalancing balancing;
    if (per_card.start().restart(start, balancing)) loop.restart(start, balancing);
    const bool switched = iterate_until_switch(loop, per_card, tier, "ladmm", [&](const ir::Problem& tight) {
        loop.retune(per_card, ladmm_steps(tight, opt));
    });
    res.per_card_iterations = loop.progress().iterations;
    if (!switched) {
        per_card.finish(res);
    } else {
        const Handoff h(p, opt, per_card.x(), per_card.duals());
        LADMMRunner runner(tier.fused_plan(p), h.options, &h.warm, res, &monitor);
        loop.run(runner, opt.max_iters - res.per_card_iterations);
        runner.finish(res);
    }
    const algorithms::Progress& done = loop.progress();
    monitor.finish(done.iterations, done.converged, done.stopped);
    const algorithms::LADMMSteps s = loop.steps();
    res.steps = {s.lambda, s.mu, loop.balancing().strength};
    return res;
}

}  // namespace

Result linearized_admm(const ir::Problem& p, const Options& opt, const Result* warm, QuickStart* quick) {
    return solve_in_tier<LADMMKernels>(p, opt, warm, quick, [&] { return kernels_key("ladmm", p); },
                                       linearized_admm_per_card, linearized_admm_fused);
}

}  // namespace proxgen::detail
