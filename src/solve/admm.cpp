// ADMM (Boyd et al. 2011, scaled form) and half-quadratic splitting, split z_i = K_i x:
//   x⁺ = argmin_x Ω(x) + ρ/2 Σ‖K_i x − z_i + u_i‖²   solved as (G_Ω + ρ Σ K_iᵀK_i) x = rhs by the
//        plan's strategy: elementwise (one fused pipeline), FFT / DCT (spectral.cpp), or CG
//   z⁺ = prox_{Ψ,ρ}(K x⁺ + u),  u⁺ = u + K x⁺ − z⁺     (split_steps.cpp; HQS keeps u = 0)
// ADMM adapts ρ by residual balancing (Boyd §3.4.1); HQS raises ρ geometrically, the penalty
// method's way to the constrained optimum.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "proxgen/algorithms/admm.hpp"
#include "proxgen/algorithms/conjugate_gradient.hpp"
#include "proxgen/algorithms/hqs.hpp"
#include "proxgen/catalogue/card.hpp"
#include "proxgen/error.hpp"
#include "card_runner.hpp"
#include "per_card_admm.hpp"
#include "spectral_gram.hpp"
#include "quadratic_pipelines.hpp"
#include "split_steps.hpp"

namespace proxgen::detail {

using namespace Halide;
using lower::Lowered;
using lower::Part;
using lower::Stages;

namespace {

/// CG's vector work (CGVectorPipelines, the generated solvers' too): one set per list of variable
/// ranks, whatever the problem, so a new structure compiles none of it again.
struct CGVectorKernels {
    jit::KernelPtr update, direction, dot;
    jit::KernelPtr direction_pair;  // with a split Gram (QuadraticPipelines::gram_split) only
    CGVectorKernels(const ir::Problem& p, bool split_gram) {
        std::string ranks;
        for (const auto& s : ir::variable_shapes(p)) ranks += std::to_string(s.size());
        LazyPipelines<CGVectorPipelines> pipes(p);
        update = jit::kernel("cg.update:" + ranks, [&] { return jit::Source{pipes->update, pipes->update_arguments()}; });
        if (split_gram)
            direction_pair = jit::kernel("cg.direction_pair:" + ranks, [&] {
                return jit::Source{pipes->direction_pair, pipes->direction_pair_arguments()};
            });
        else
            direction = jit::kernel("cg.direction:" + ranks,
                                    [&] { return jit::Source{pipes->direction, pipes->direction_arguments()}; });
        dot = jit::kernel("cg.dot:" + ranks, [&] { return jit::Source{pipes->dot, pipes->dot_arguments()}; });
    }
};

/// Whether p's CG applies its Gram split (QuadraticPipelines::gram_split): preconditioned by a
/// circulant stand-in, and fused kernels on (off, it applies G in space as the generated solvers do).
bool split_gram_cg(const ir::Problem& p) {
    return p.x_update == plan::XUpdate::cg && fusion_enabled() && circulant_problem(p).has_value();
}

/// Vectors of fewer elements run CG's vector kernels on the calling thread: below this the thread
/// pool's hand-offs cost more than the halves of a pass they would save (the C++ loops they
/// replaced ran on one thread at every size).
constexpr std::size_t kSerialVectorsBelow = jit::kParallelFromElements;

/// The compiled pipelines: the x-update's, then either the (z, u)-update fused with the next
/// x-update's output (QuadraticPipelines::fusable plans) or the (z, u)-update alone; the residuals.
struct QuadraticKernels {
    jit::KernelPtr rhs_or_x, gram_apply, residual, zu_step, zu_and_x, split_residual;
    std::optional<CGVectorKernels> cg_vectors;
    explicit QuadraticKernels(const ir::Problem& p) {
        LazyPipelines<QuadraticPipelines> pipes(p);
        const std::string a = p.algorithm == Algorithm::hqs ? "hqs" : "admm";
        auto source = [&](auto pick) {
            return [&, pick] { return jit::Source{pick(*pipes), pipes->arguments()}; };
        };
        if (p.x_update == plan::XUpdate::cg) {
            const bool split_gram = split_gram_cg(p);
            if (split_gram)
                gram_apply = kernel_for(p, a + ".gram_split", [&] {
                    return jit::Source{pipes->gram_split, pipes->gram_split_arguments()};
                });
            else
                gram_apply = kernel_for(p, a + ".gram", pipes.source(&QuadraticPipelines::gram_apply));
            residual = kernel_for(p, a + ".cg_residual", pipes.source(&QuadraticPipelines::residual));
            cg_vectors.emplace(p, split_gram);
        } else {
            rhs_or_x = kernel_for(p, a + ".x", pipes.source(&QuadraticPipelines::rhs_or_x));
        }
        if (!p.psi.empty() && fusion_enabled() && QuadraticPipelines::fusable(p))
            zu_and_x = kernel_for(p, a + ".zu_x", [&] { return jit::Source{pipes->zu_and_x(p), pipes->zu_and_x_arguments()}; });
        else if (!p.psi.empty())
            zu_step = kernel_for(p, a + ".zu", source([](QuadraticPipelines& q) { return q.split->zu_step; }));
        split_residual = kernel_for(p, a + ".residual", source([](QuadraticPipelines& q) { return q.split->residual; }));
    }
};

/// The memory cache's key of p's QuadraticKernels.
std::string quadratic_kernels_key(const ir::Problem& p) {
    return kernels_key(p.algorithm == Algorithm::hqs ? "hqs" : "admm", p);
}

/// The x-update of ADMM/HQS for one problem: owns the buffers of its strategy.
class XUpdate {
public:
    /// bind(call) binds a kernel's inputs (data, x, split state, ρ); this class binds the rest.
    XUpdate(const ir::Problem& p, const QuadraticKernels& k, const Options& opt,
            const std::function<jit::Call(const jit::KernelPtr&)>& bound)
        : p_(p), opt_(opt), rhs_(p.variable_shape) {
        const auto shapes = ir::variable_shapes(p);
        if (p.x_update != plan::XUpdate::cg) {
            rhs_or_x_ = bound(k.rhs_or_x);
            rhs_or_x_.out_state(0, rhs_, shapes);
            return;
        }
        r_ = Image(p.variable_shape), d_ = Image(p.variable_shape), gd_ = Image(p.variable_shape);
        s_ = Image(p.variable_shape);
        residual_ = bound(k.residual);
        residual_.out_state(0, r_, shapes);
        gram_ = bound(k.gram_apply);
        gram_.in_state("direction", d_, shapes).out_state(0, gd_, shapes);
        sums_ = Image(lower::square_sums_shape(shapes));
        vectors_ = &*k.cg_vectors;
        shapes_ = shapes;
        precond_ = CirculantPreconditioner::of(p);
        if (vectors_->direction_pair) {  // G d from P d, which the directions carry beside d
            PROXGEN_INTERNAL_ASSERT(precond_ != nullptr);
            pd_ = Image(p.variable_shape);
            gram_.in_state("precond_direction", pd_, shapes);
        }
    }
    XUpdate(const XUpdate&) = delete;
    XUpdate& operator=(const XUpdate&) = delete;
    /// The "direction" input of kernels that do not use it (every kernel takes it).
    const Image& direction() const { return d_.empty() ? rhs_ : d_; }

    /// The buffer the x-update's kernel writes (x itself or the right-hand side): a fused (z, u)
    /// kernel writes it for the next solve.
    Image& output() { return rhs_; }

    /// x ← argmin for the current z, u and ρ (bound by the caller to every kernel; x is the one
    /// the kernels are bound to); x is also the CG warm start. output_ready: output() already holds
    /// the x-update kernel's result for this z, u and ρ (a fused (z, u) kernel wrote it).
    void solve(Image& x, double rho, bool output_ready = false) {
        switch (p_.x_update) {
        case plan::XUpdate::elementwise:
        case plan::XUpdate::pixel_block:
            if (!output_ready) rhs_or_x_.run();
            std::swap(x, rhs_);
            return;
        case plan::XUpdate::fft:
        case plan::XUpdate::dct:
            if (!output_ready) rhs_or_x_.run();
            spectral_.solve(rhs_, x, 0.0, 1.0, rho);
            return;
        case plan::XUpdate::cg: conjugate_gradient(x, rho); return;
        case plan::XUpdate::closed_form_prox: break;
        }
        PROXGEN_INTERNAL_ASSERT(false);
    }
    int cg_iterations() const { return cg_total_; }

private:

    /// s = M⁻¹ r: the circulant preconditioner; without one s is r itself.
    void precondition(double rho) {
        if (precond_) precond_->apply(r_, s_, rho);
    }

    /// Binds CG's vector kernels to x (the runner's, whose address stays) and to the other vectors.
    void bind_vectors(Image& x) {
        const Image& s = precond_ ? s_ : r_;
        update_ = jit::Call(vectors_->update);
        update_.in_state("cg_x", x, shapes_).in_state("cg_r", r_, shapes_).in_state("cg_d", d_, shapes_);
        update_.in_state("cg_gd", gd_, shapes_).in("cg_factor", factor_);
        update_.out(update_.out_state(update_.out_state(0, x, shapes_), r_, shapes_), sums_);
        if (vectors_->direction_pair) {
            // d = s + β d and P d = r + β P d (P s = r); at the start d = s, P d = r
            auto pair = [&](const Image& d_in, const Image& pd_in, const float& beta) {
                jit::Call c(vectors_->direction_pair);
                c.in_state("cg_s", s, shapes_).in_state("cg_d", d_in, shapes_).in_state("cg_r", r_, shapes_);
                c.in_state("cg_pd", pd_in, shapes_).in("cg_factor", beta);
                c.out_state(c.out_state(0, d_, shapes_), pd_, shapes_);
                return c;
            };
            direction_ = pair(d_, pd_, factor_);
            start_ = pair(s, r_, zero_);
        } else {
            direction_ = jit::Call(vectors_->direction);
            direction_.in_state("cg_s", s, shapes_).in_state("cg_d", d_, shapes_).in("cg_factor", factor_);
            direction_.out_state(0, d_, shapes_);
            start_ = jit::Call(vectors_->direction);  // d = s + 0 · s
            start_.in_state("cg_s", s, shapes_).in_state("cg_d", s, shapes_).in("cg_factor", zero_);
            start_.out_state(0, d_, shapes_);
        }
        auto dot = [&](const Image& a, const Image& b) {
            jit::Call c(vectors_->dot);
            c.in_state("cg_x", a, shapes_).in_state("cg_r", b, shapes_).out(0, sums_);
            return c;
        };
        dot_rs_ = dot(r_, s);
        dot_rr_ = dot(r_, r_);
        dot_dgd_ = dot(d_, gd_);
        bound_x_ = &x;
    }

    /// Runs one of CG's vector kernels; with `sums`, the total of its partial sums.
    double run_vectors(jit::Call& c, bool sums) {
        c.run();
        if (!sums) return 0;
        double total = 0;
        for (double t : lower::total_square_sums(sums_)) total += t;
        return total;
    }

    /// The conjugate gradient card's runner (proxgen/algorithms/conjugate_gradient.hpp) over this
    /// x-update's kernels and buffers, for one solve at penalty ρ: the generated solvers' vector
    /// kernels, so both run the same arithmetic.
    struct CG {
        XUpdate& u;
        double rho;
        bool residual() { return u.residual_.run(), true; }
        bool precondition() { return u.precondition(rho), true; }
        bool preconditioned() const { return u.precond_ != nullptr; }
        bool start_direction() { return u.run_vectors(u.start_, false), true; }
        bool gram() { return u.gram_.run(), true; }
        double dot_r_s() { return u.run_vectors(u.dot_rs_, true); }
        double dot_r_r() { return u.run_vectors(u.dot_rr_, true); }
        double dot_d_gd() { return u.run_vectors(u.dot_dgd_, true); }
        double update(float step) {
            u.factor_ = step;
            return u.run_vectors(u.update_, true);
        }
        bool direction(float beta) {
            u.factor_ = beta;
            return u.run_vectors(u.direction_, false), true;
        }
    };

    void conjugate_gradient(Image& x, double rho) {
        if (bound_x_ != &x) bind_vectors(x);
        // small vectors: on this thread (the pool's hand-offs would cost more than they save)
        std::optional<jit::SerialKernels> serial;
        if (x.size() < kSerialVectorsBelow && !jit::SerialKernels::active()) serial.emplace();
        CG run{*this, rho};
        algorithms::conjugate_gradient(run, {opt_.cg_tol, opt_.cg_max_iters}, cg_total_);
    }

    const ir::Problem& p_;
    const Options& opt_;
    jit::Call rhs_or_x_, residual_, gram_;
    Image rhs_, r_, d_, gd_, s_, pd_;  // pd_: P d, with a split Gram
    // CG's vector kernels, bound at the first solve; their scalar argument and partial sums
    const CGVectorKernels* vectors_ = nullptr;
    jit::Call update_, direction_, start_, dot_rs_, dot_rr_, dot_dgd_;
    const Image* bound_x_ = nullptr;
    float factor_ = 0, zero_ = 0;
    Image sums_;
    std::vector<std::vector<int>> shapes_;
    std::unique_ptr<CirculantPreconditioner> precond_;  // (none where p has no circulant stand-in)
    SpectralGram spectral_{p_};
    int cg_total_ = 0;
};

}  // namespace

double admm_rho(const ir::Problem& p, const Options& opt) {
    return opt.rho > 0 ? opt.rho : steps::initial_rho(curvature_scale(p), stacked_norm_bound(p));
}

double admm_rho(const steps::Inputs& in, const Options& opt) {
    return opt.rho > 0 ? opt.rho : steps::initial_rho(in.curvature_scale, in.norm);
}

steps::Inputs step_inputs(const ir::Problem& p, const Options& opt) {
    steps::Inputs in;
    in.norm = stacked_norm_bound(p);
    in.strong_convexity = p.omega_strong_convexity;
    in.curvature_scale = curvature_scale(p);
    in.smooth_lipschitz = smooth_lipschitz(p);
    in.tau = opt.tau;
    in.sigma = opt.sigma;
    in.lambda = opt.lambda;
    in.mu = opt.mu;
    in.accelerate = opt.accelerate;
    in.adapt = opt.adaptive_rho;
    in.omega_empty = p.omega.empty();
    return in;
}

namespace {

/// The JIT's runner of the ADMM and HQS cards (proxgen/algorithms/admm.hpp, hqs.hpp): x, the split
/// state, the x-update and the kernels bound to them once (swaps move contents, not the bound
/// objects; the runner never moves).
class QuadraticRunner {
public:
    /// shared: the solve's Monitor where this runner takes over from the per-card tier's (else its own).
    QuadraticRunner(const ir::Problem& p, const Options& opt, const Result* warm, Result& res, Monitor* shared = nullptr)
        : p_(p), hqs_(p.algorithm == Algorithm::hqs), state_(p, warm, p.algorithm), data_(p) {
        K_ = cached_as<QuadraticKernels>(quadratic_kernels_key(p),
                                         [&] { return std::make_shared<QuadraticKernels>(p); }, res.compile_seconds);
        x_ = initial_x(p, opt, warm);
        if (hqs_) {
            x_prev_ = Image(p.variable_shape);
            x_hat_ = Image(p.variable_shape);
            x_stage_ = x_.copy();  // x at the start of the current stage
        }
        shapes_ = ir::variable_shapes(p);
        xu_.emplace(p, *K_, opt, [this](const jit::KernelPtr& k) { return bound(k); });
        direction_ = &xu_->direction();
        state_.set_kernels(K_->zu_step ? bound(K_->zu_step) : jit::Call(), bound(K_->split_residual),
                           hqs_ && K_->zu_step ? bound_at(K_->zu_step, x_hat_) : jit::Call());
        if (K_->zu_and_x) {
            zu_and_x_ = bound(K_->zu_and_x);
            zu_and_x_.in_state("x_prev", hqs_ ? x_prev_ : x_, shapes_).in("momentum", momentum_);
            state_.bind_fused_outputs(zu_and_x_, zu_and_x_.out_state(0, xu_->output(), shapes_),
                                      int(p.variable_shape.size()));
        }
        if (hqs_) state_.measure_implicit_dual();
        if (shared) {
            mon_ = shared;
        } else {
            own_monitor_.emplace(p, opt, res);  // its clock starts after the compilation above
            mon_ = &*own_monitor_;
        }
    }
    QuadraticRunner(const QuadraticRunner&) = delete;
    QuadraticRunner& operator=(const QuadraticRunner&) = delete;

    Monitor& monitor() { return *mon_; }
    void finish(Result& res) {
        res.x = state_.solution(x_);
        if (res.x.data() != x_.data()) res.x_iterate = x_;
        res.duals = state_.duals();
        res.cg_iterations = xu_->cg_iterations();
    }

    // the cards' Runner: ADMM's step
    bool run_step(double rho, bool measure) {
        rho_f_ = float(rho);
        xu_->solve(x_, rho, output_ready());
        zu_step(rho, 0.0);
        if (measure) state_.measure(rho);
        return true;
    }
    // HQS's step: the z-step at x̂ = x + m (x − x_prev)
    bool run_step(double rho, double momentum, bool measure) {
        rho_f_ = float(rho);
        if (momentum > 0) {  // x̂ reads the x before this step
            // CG starts from x: a copy; the other x-updates write x without reading it: a swap
            if (p_.x_update == plan::XUpdate::cg) {
                const float* from = x_.data();
                float* to = x_prev_.data();
                jit::in_pieces(long(x_.size()), long(x_.size()), [&](long a, long b) { std::copy(from + a, from + b, to + a); });
            } else {
                std::swap(x_, x_prev_);
            }
        }
        xu_->solve(x_, rho, output_ready());
        zu_step(rho, momentum);
        if (measure) state_.measure(rho);
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
        state_.rescale_dual(factor);
        output_rho_.reset();  // the fused kernel's x-update output read the old u
    }

    double objective() { return mon_->returned_objective(x_); }

    bool stage_ended(int it) { return hqs_stage_ended(*mon_, x_, x_stage_, it); }

    bool after_iteration(int it) { return mon_->after_iteration(it); }

private:
    /// Whether the x-update's output for the current z, u and ρ is already there: the fused (z, u)
    /// kernel wrote it at the last step, with this ρ, and u has not been rescaled since.
    bool output_ready() const { return output_rho_ && *output_rho_ == rho_f_; }

    /// (z, u) ← the split step at x (HQS with momentum: at x̂), fused with the next x-update's
    /// output where the plan allows.
    void zu_step(double rho, double momentum) {
        if (!zu_and_x_.defined()) {
            if (momentum > 0) {
                const float m = float(momentum);  // in float32, as the fused kernel computes it
                const float *x = x_.data(), *xp = x_prev_.data();
                float* xh = x_hat_.data();
                jit::in_pieces(long(x_.size()), long(x_.size()), [&](long a, long b) {
                    for (long i = a; i < b; ++i) xh[i] = x[i] + m * (x[i] - xp[i]);
                });
                state_.update(rho, !hqs_, true);
            } else {
                state_.update(rho, !hqs_);
            }
            return;
        }
        momentum_ = float(momentum);
        state_.run_fused(zu_and_x_, rho, !hqs_);
        output_rho_ = rho_f_;
    }

    jit::Call bound_at(const jit::KernelPtr& k, const Image& at) {
        jit::Call c(k);
        data_.bind(c);
        state_.bind(c);
        c.in_state("x", at, shapes_).in("rho_x", rho_f_);
        if (direction_) c.in_state("direction", *direction_, shapes_);
        return c;
    }
    jit::Call bound(const jit::KernelPtr& k) {
        jit::Call c = bound_at(k, x_);
        if (!direction_) c.in_state("direction", x_, shapes_);  // the x-update binds its own before running
        return c;
    }

    const ir::Problem& p_;
    const bool hqs_;
    std::shared_ptr<const QuadraticKernels> K_;
    Image x_, x_prev_, x_hat_, x_stage_;
    SplitState state_;
    const lower::DataArgs data_;
    std::vector<std::vector<int>> shapes_;
    float rho_f_ = 0;
    const Image* direction_ = nullptr;  // set once the x-update owns its buffers
    std::optional<XUpdate> xu_;
    jit::Call zu_and_x_;
    float momentum_ = 0;
    std::optional<float> output_rho_;  // the ρ at which the fused kernel wrote the x-update's output
    std::optional<Monitor> own_monitor_;
    Monitor* mon_ = nullptr;
};

/// Runs run(loop) on the ADMM or HQS card's loop for p, started from a warm start's penalty and
/// balancing; res gets the steps (and HQS's reason for not converging); returns the progress.
template <class Run>
algorithms::Progress quadratic_loop(const ir::Problem& p, const Options& opt, const Result* warm, Result& res, Run&& run) {
    const algorithms::LoopOptions o = loop_options(p, opt);
    const steps::Inputs in = step_inputs(p, opt);  // (its curvature reads every weight image: once)
    const double rho0 = admm_rho(in, opt);
    ResidualBalancing balancing;
    const std::vector<double>* warm_rho = warm_steps(p, warm, 2);
    if (warm_rho) balancing.strength = (*warm_rho)[1];
    const double rho = warm_rho ? (*warm_rho)[0] : rho0;
    if (p.algorithm == Algorithm::hqs) {
        algorithms::HQS loop({rho0, rho0 * opt.hqs_max_ratio, opt.hqs_growth, opt.hqs_every}, !p.psi.empty(), o);
        loop.restart(rho);
        run(loop);
        if (res.message.empty()) res.message = loop.why_not_converged();
        res.steps = {loop.rho(), balancing.strength};
        return loop.progress();
    }
    algorithms::ADMM loop(rho0, steps::balance_residuals(in), o);
    loop.restart(rho, balancing);
    run(loop);
    res.steps = {loop.rho(), loop.balancing().strength};
    return loop.progress();
}

Result quadratic_split_fused(const ir::Problem& p, const Options& opt, const Result* warm) {
    Result res;
    QuadraticRunner runner(p, opt, warm, res);
    const algorithms::Progress done =
        quadratic_loop(p, opt, warm, res, [&](auto& loop) { loop.run(runner, opt.max_iters); });
    runner.monitor().finish(done.iterations, done.converged, done.stopped);
    runner.finish(res);
    return res;
}

/// Per card from the start: to the end (fused null: Tier::per_card), or until the fused kernels,
/// compiling meanwhile, take over (Tier::automatic, iterate_until_switch).
Result quadratic_split_per_card(const ir::Problem& p, const Options& opt, const Result* warm, const TierStart& tier) {
    Result res;
    Monitor monitor(p, opt, res);
    PerCardQuadraticRunner per_card(p, opt, warm, monitor);
    monitor.start_clock();
    std::optional<Handoff> handoff;
    std::optional<QuadraticRunner> runner;
    const algorithms::Progress done = quadratic_loop(p, opt, warm, res, [&](auto& loop) {
        const bool switched = iterate_until_switch(loop, per_card, tier, name(p.algorithm), [&](const ir::Problem& tight) {
            loop.retune(per_card, admm_rho(tight, opt));
        });
        res.per_card_iterations = loop.progress().iterations;
        if (!switched) return;
        handoff.emplace(p, opt, per_card.x(), per_card.duals());
        runner.emplace(tier.fused_plan(p), handoff->options, &handoff->warm, res, &monitor);
        loop.run(*runner, opt.max_iters - res.per_card_iterations);
    });
    monitor.finish(done.iterations, done.converged, done.stopped);
    if (runner) {
        runner->finish(res);
        res.cg_iterations += per_card.cg_iterations();
    } else {
        per_card.finish(res);
    }
    return res;
}

}  // namespace

Result quadratic_split(const ir::Problem& p, const Options& opt, const Result* warm, QuickStart* quick) {
    return solve_in_tier<QuadraticKernels>(p, opt, warm, quick, [&] { return quadratic_kernels_key(p); },
                                           quadratic_split_per_card, quadratic_split_fused);
}

}  // namespace proxgen::detail
