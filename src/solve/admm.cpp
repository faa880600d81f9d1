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
#include "spectral_gram.hpp"
#include "quadratic_pipelines.hpp"
#include "split_steps.hpp"

namespace proxgen::detail {

using namespace Halide;
using lower::Lowered;
using lower::Part;
using lower::Stages;

namespace {

struct QuadraticKernels {
    jit::KernelPtr rhs_or_x, gram_apply, residual, zu_step, split_residual;
    explicit QuadraticKernels(const ir::Problem& p) {
        LazyPipelines<QuadraticPipelines> pipes(p);
        const std::string a = p.algorithm == Algorithm::hqs ? "hqs" : "admm";
        auto source = [&](auto pick) {
            return [&, pick] { return jit::Source{pick(*pipes), pipes->arguments()}; };
        };
        if (p.x_update == plan::XUpdate::cg) {
            gram_apply = kernel_for(p, a + ".gram", pipes.source(&QuadraticPipelines::gram_apply));
            residual = kernel_for(p, a + ".cg_residual", pipes.source(&QuadraticPipelines::residual));
        } else {
            rhs_or_x = kernel_for(p, a + ".x", pipes.source(&QuadraticPipelines::rhs_or_x));
        }
        if (!p.psi.empty())
            zu_step = kernel_for(p, a + ".zu", source([](QuadraticPipelines& q) { return q.split->zu_step; }));
        split_residual = kernel_for(p, a + ".residual", source([](QuadraticPipelines& q) { return q.split->residual; }));
    }
};

// CG's vector loops: float data, float64 sums; `omp simd` (compiled with -fopenmp-simd, no
// threads) lets the compiler vectorize the float64 reductions it must otherwise keep in order.
double dot(const Image& a, const Image& b) {
    const float *pa = a.data(), *pb = b.data();
    const std::size_t n = a.size();
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (std::size_t i = 0; i < n; ++i) s += double(pa[i]) * double(pb[i]);
    return s;
}

/// x += step d, r −= step gd; returns ‖r‖² after the update.
double cg_update(Image& x, Image& r, const Image& d, const Image& gd, float step) {
    float *px = x.data(), *pr = r.data();
    const float *pd = d.data(), *pg = gd.data();
    const float s = float(step);
    const std::size_t n = x.size();
    double rr = 0;
#pragma omp simd reduction(+ : rr)
    for (std::size_t i = 0; i < n; ++i) {
        px[i] += s * pd[i];
        pr[i] -= s * pg[i];
        rr += double(pr[i]) * double(pr[i]);
    }
    return rr;
}

/// d = s + beta d.
void cg_direction(Image& d, const Image& s, float beta) {
    float* pd = d.data();
    const float* ps = s.data();
    const float b = float(beta);
    const std::size_t n = d.size();
#pragma omp simd
    for (std::size_t i = 0; i < n; ++i) pd[i] = ps[i] + b * pd[i];
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
        if (const std::optional<ir::Problem> c = circulant_problem(p))
            for (const auto* terms : {&c->omega, &c->psi})
                for (const auto& t : *terms) approx_.push_back(t.expr);
    }
    /// The "direction" input of kernels that do not use it (every kernel takes it).
    const Image& direction() const { return d_.empty() ? rhs_ : d_; }

    /// x ← argmin for the current z, u and ρ (bound by the caller to every kernel; x is the one
    /// the kernels are bound to); x is also the CG warm start.
    void solve(Image& x, double rho) {
        switch (p_.x_update) {
        case plan::XUpdate::elementwise:
        case plan::XUpdate::pixel_block: rhs_or_x_.run(); std::swap(x, rhs_); return;
        case plan::XUpdate::fft:
        case plan::XUpdate::dct:
            rhs_or_x_.run();
            spectral_.solve(rhs_, x, 0.0, 1.0, rho);
            return;
        case plan::XUpdate::cg: conjugate_gradient(x, rho); return;
        case plan::XUpdate::closed_form_prox: break;
        }
        PROXGEN_INTERNAL_ASSERT(false);
    }
    int cg_iterations() const { return cg_total_; }

private:

    /// s = M⁻¹ r: the circulant preconditioner (FFT solve); without one s is r itself.
    void precondition(double rho) {
        if (approx_.empty()) return;
        if (!precond_ || precond_rho_ != rho) {
            precond_ = std::make_unique<spectral::GramSolver>(spectral::Basis::fft, p_.variable_shape);
            std::size_t i = 0;
            for (const auto& t : p_.omega) precond_->add_term(approx_[i++], 2.0 * t.weight * double(t.beta) * t.beta);
            for (std::size_t j = 0; j < p_.psi.size(); ++j) precond_->add_term(approx_[i++], rho);
            precond_->finalize();
            precond_rho_ = rho;
        }
        precond_->solve(r_, s_);
    }

    /// The conjugate gradient card's runner (proxgen/algorithms/conjugate_gradient.hpp) over this
    /// x-update's kernels and buffers, for one solve at penalty ρ.
    struct CG {
        XUpdate& u;
        Image& x;
        double rho;
        const Image& s() const { return u.approx_.empty() ? u.r_ : u.s_; }
        bool residual() { return u.residual_.run(), true; }
        bool precondition() { return u.precondition(rho), true; }
        bool preconditioned() const { return !u.approx_.empty(); }
        bool start_direction() { return std::copy(s().data(), s().data() + s().size(), u.d_.data()), true; }
        bool gram() { return u.gram_.run(), true; }
        double dot_r_s() { return dot(u.r_, s()); }
        double dot_r_r() { return dot(u.r_, u.r_); }
        double dot_d_gd() { return dot(u.d_, u.gd_); }
        double update(float step) { return cg_update(x, u.r_, u.d_, u.gd_, step); }
        bool direction(float beta) { return cg_direction(u.d_, s(), beta), true; }
    };

    void conjugate_gradient(Image& x, double rho) {
        CG run{*this, x, rho};
        algorithms::conjugate_gradient(run, {opt_.cg_tol, opt_.cg_max_iters}, cg_total_);
    }

    const ir::Problem& p_;
    const Options& opt_;
    jit::Call rhs_or_x_, residual_, gram_;
    Image rhs_, r_, d_, gd_, s_;
    std::vector<ir::Node> approx_;  // circulant stand-ins, Ω terms then Ψ terms (empty: none)
    std::unique_ptr<spectral::GramSolver> precond_;
    double precond_rho_ = 0;
    SpectralGram spectral_{p_};
    int cg_total_ = 0;
};

}  // namespace

double admm_rho(const ir::Problem& p, const Options& opt) {
    return opt.rho > 0 ? opt.rho : steps::initial_rho(curvature_scale(p), stacked_norm_bound(p));
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
    QuadraticRunner(const ir::Problem& p, const Options& opt, const Result* warm, Result& res)
        : p_(p), hqs_(p.algorithm == Algorithm::hqs), state_(p, warm, p.algorithm), data_(p) {
        K_ = cached_as<QuadraticKernels>(std::string(hqs_ ? "hqs:" : "admm:") + ir::signature(p),
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
        if (hqs_) state_.measure_implicit_dual();
        mon_.emplace(p, opt, res);  // its clock starts after the compilation above
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
        xu_->solve(x_, rho);
        state_.update(rho, true);
        if (measure) state_.measure(rho);
        return true;
    }
    // HQS's step: the z-step at x̂ = x + m (x − x_prev)
    bool run_step(double rho, double momentum, bool measure) {
        rho_f_ = float(rho);
        if (momentum > 0) std::copy(x_.data(), x_.data() + x_.size(), x_prev_.data());  // x̂ reads it
        xu_->solve(x_, rho);
        if (momentum > 0) {
            for (std::size_t i = 0; i < x_.size(); ++i)
                x_hat_.data()[i] = float(x_.data()[i] + momentum * (x_.data()[i] - x_prev_.data()[i]));
            state_.update(rho, false, true);
        } else {
            state_.update(rho, false);
        }
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

    void rescale_dual(double factor) { state_.rescale_dual(factor); }

    double objective() { return mon_->returned_objective(x_); }

    bool stage_ended(int it) {
        // the penalty's growth shrinks every step of a drift to -inf (so the residuals never
        // stall as Monitor::likely_infeasible waits for): the ray of this stage's steps tells
        Image step(x_.sizes());
        for (std::size_t i = 0; i < x_.size(); ++i) step.data()[i] = x_.data()[i] - x_stage_.data()[i];
        if (mon_->unbounded_along(x_, step, it)) return false;
        std::copy(x_.data(), x_.data() + x_.size(), x_stage_.data());
        return true;
    }

    bool after_iteration(int it) { return mon_->after_iteration(it); }

private:
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
    std::optional<Monitor> mon_;
};

}  // namespace

Result quadratic_split(const ir::Problem& p, const Options& opt, const Result* warm) {
    Result res;
    QuadraticRunner runner(p, opt, warm, res);
    const algorithms::LoopOptions o = loop_options(p, opt);
    const double rho0 = admm_rho(p, opt);
    ResidualBalancing balancing;
    const std::vector<double>* warm_rho = warm_steps(p, warm, 2);
    if (warm_rho) balancing.strength = (*warm_rho)[1];
    const double rho = warm_rho ? (*warm_rho)[0] : rho0;
    double rho_end = rho;
    algorithms::Progress done;
    if (p.algorithm == Algorithm::hqs) {
        algorithms::HQS loop({rho0, rho0 * opt.hqs_max_ratio, opt.hqs_growth, opt.hqs_every}, !p.psi.empty(), o);
        loop.restart(rho);
        loop.run(runner, opt.max_iters);
        done = loop.progress();
        rho_end = loop.rho();
        if (res.message.empty()) res.message = loop.why_not_converged();
    } else {
        algorithms::ADMM loop(rho0, steps::balance_residuals(step_inputs(p, opt)), o);
        loop.restart(rho, balancing);
        loop.run(runner, opt.max_iters);
        done = loop.progress();
        rho_end = loop.rho();
        balancing = loop.balancing();
    }
    runner.monitor().finish(done.iterations, done.converged, done.stopped);
    runner.finish(res);
    res.steps = {rho_end, balancing.strength};
    return res;
}

}  // namespace proxgen::detail
