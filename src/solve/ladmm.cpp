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
#include "card_runner.hpp"
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

/// The pipelines (built, not compiled); every one takes arguments().
struct LADMMPipelines {
    lower::Params params;
    lower::StateParams x;  // one ImageParam per variable
    Param<float> lambda{"lambda"}, mu{"mu"};
    /// The next fused kernel reads u as u_scale·u (residual balancing rescales the scaled dual
    /// when λ changes: folded into the next pass over u instead of a pass of its own).
    Param<float> u_scale{"u_scale"};
    Pipeline x_step;
    std::unique_ptr<SplitPipelines> split;
    /// Spectral x-updates: the data-only part of the right-hand side, once per solve (as PC's).
    Pipeline constant;
    std::optional<ImageParam> omega_constant;

    explicit LADMMPipelines(const ir::Problem& p) : params(p), x(p, "x") {
        const int rv = int(p.variable_shape.size());
        const lower::State xin = x.lowered();
        if (lower::spectral_constant_precomputed(p)) {
            omega_constant = ImageParam(Float(32), rv, "omega_constant");
            lower::Lowerer L(p, params, xin);
            constant = Pipeline(lower::omega_spectral_constant(L));
        }
        lower::Lowerer L(p, params, xin);
        L.omega_constant = omega_constant;
        split = std::make_unique<SplitPipelines>(p, L, x);
        std::vector<Lowered> z, u;
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            z.push_back(lower::input(split->z[i]));
            u.push_back(lower::input(split->u[i]));
        }
        Stages st;
        const std::vector<Func> outs = lower::omega_update_state(L, x_arg(L, xin, z, u, Expr(1.0f), st, false), mu, st);
        std::vector<int> ranks;
        for (const auto& v : xin) ranks.push_back(v.rank());
        lower::schedule_outputs(outs, ranks, st);
        x_step = Pipeline(outs);
    }

    /// v = x − (μ/λ) Σ K_iᵀ(K_i x − z_i + s·u_i), per variable; with `stage` (one variable), K x − z
    /// + s u is computed per strip (the adjoint reads it at neighbouring pixels) with its components
    /// unrolled.
    lower::State x_arg(lower::Lowerer& L, const lower::State& xin, const std::vector<Lowered>& z,
                       const std::vector<Lowered>& u, Expr scale, Stages& st, bool stage) const {
        const ir::Problem& p = L.problem();
        const int rv = xin.front().rank();
        std::vector<Lowered> ws;
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            const auto a = lower::args(z[i].rank());
            Lowered kx = L.forward(p.psi[i].expr, xin, Part::linear, st);
            Lowered w{Func("ladmm_residual_arg"), z[i].extents};
            w.f(a) = kx.f(a) - z[i].f(a) + scale * u[i].f(a);
            if (stage) {
                st.add(w.f, w.rank() > rv ? lower::fused_components(p, p.psi[i]) : 0);
                w.staged = true;
            }
            ws.push_back(w);
        }
        const std::vector<Expr> kt = lower::adjoint_sums(L, p.psi, ws, st);
        lower::State v;
        for (std::size_t j = 0; j < xin.size(); ++j) {
            const auto av = lower::args(xin[j].rank());
            Lowered vj{Func("x_arg"), xin[j].extents};
            vj.f(av) = xin[j].f(av) - (mu / lambda) * kt[j];
            v.push_back(vj);
        }
        return v;
    }

    /// One fused iteration's values: x⁺ per variable (staged), and per Ψ term z⁺ and u⁺ from
    /// K x⁺ + s·u.
    struct Level {
        lower::State x;
        std::vector<Lowered> z, u;
    };
    Level level(lower::Lowerer& L, const lower::State& xin, const std::vector<Lowered>& z,
                const std::vector<Lowered>& u, Expr scale, Stages& st, bool stage_zu, bool stage_w = true) const {
        const ir::Problem& p = L.problem();
        const int rv = xin.front().rank();
        Level next;
        const std::vector<Func> xn = lower::omega_update_state(L, x_arg(L, xin, z, u, scale, st, stage_w), mu, st);
        for (std::size_t j = 0; j < xn.size(); ++j) {
            st.add(xn[j]);  // K x⁺ reads it at neighbouring pixels
            next.x.push_back(Lowered{xn[j], xin[j].extents});
            next.x.back().staged = true;
        }
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            const auto& t = p.psi[i];
            const auto a = lower::args(z[i].rank());
            const int parts = z[i].rank() > rv ? lower::fused_components(p, t) : 0;
            Lowered kx = L.forward(t.expr, next.x, Part::linear, st);
            Func v("z_arg");
            v(a) = kx.f(a) + scale * u[i].f(a);
            const lower::ProxSpec f = L.prox_spec(t, xin, st);
            Func zf = lower::prox(f, Lowered{v, z[i].extents}, 1.0f / lambda, st);
            Lowered zl{zf, z[i].extents}, ul{Func("u_next"), z[i].extents};
            ul.f(a) = v(a) - zf(a);
            if (stage_zu) {
                st.add(zf, parts);
                st.add(ul.f, parts);
                zl.staged = ul.staged = true;
            }
            next.z.push_back(zl);
            next.u.push_back(ul);
        }
        return next;
    }

    /// The Tuple {x per variable, z_i components, u_i components per term} over the fusion domain.
    static std::vector<Expr> elements(const ir::Problem& p, const Level& l) {
        const int rv = l.x.front().rank();
        std::vector<Expr> e;
        for (const auto& xj : l.x) e.push_back(xj.f(lower::args(rv)));
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            const int parts = lower::fused_components(p, p.psi[i]);
            for (Expr c : lower::components(l.z[i].f, rv, parts)) e.push_back(c);
            for (Expr c : lower::components(l.u[i].f, rv, parts)) e.push_back(c);
        }
        return e;
    }

    Pipeline fused(const ir::Problem& p, bool with_check) {
        const lower::State xin = x.lowered();
        const int rv = xin.front().rank();
        const auto av = lower::args(rv);
        lower::Lowerer L(p, params, xin);
        Stages st;
        std::vector<Lowered> z, u;
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            z.push_back(lower::input(split->z[i]));
            u.push_back(lower::input(split->u[i]));
        }
        // with the check, z⁺ and u⁺ are staged too: Kᵀ(z⁺ − z) and Kᵀu⁺ read them at neighbours
        const Level next = level(L, xin, z, u, u_scale, st, with_check);
        Func out("ladmm_step");
        out(av) = Tuple(elements(p, next));
        if (!with_check) {
            lower::schedule_output(out, rv, st);
            return Pipeline(out);
        }
        // split_residual_shapes: Kᵀ(z⁺ − z) and Kᵀu⁺ per variable, then (K x⁺ − z⁺, K x⁺, z⁺) per term
        std::vector<Lowered> dzs, per_term;
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            const auto a = lower::args(z[i].rank());
            Lowered dz{Func("dz"), z[i].extents};
            dz.f(a) = next.z[i].f(a) - z[i].f(a);
            dzs.push_back(dz);
            Lowered kx = L.forward(p.psi[i].expr, next.x, Part::linear, st);
            Lowered r{Func("primal_residual" + std::to_string(i)), z[i].extents};
            r.f(a) = kx.f(a) - next.z[i].f(a);
            per_term.push_back(r);
            per_term.push_back(kx);
            per_term.push_back(next.z[i]);
        }
        const std::vector<Expr> kdz = lower::adjoint_sums(L, p.psi, dzs, st),
                                ktu = lower::adjoint_sums(L, p.psi, next.u, st);
        std::vector<Lowered> q;
        for (const auto* sums : {&kdz, &ktu})
            for (std::size_t j = 0; j < xin.size(); ++j) {
                Lowered l{Func(sums == &kdz ? "kt_dz" : "kt_u"), xin[j].extents};
                l.f(av) = (*sums)[j];
                q.push_back(l);
            }
        q.insert(q.end(), per_term.begin(), per_term.end());
        const lower::SquareSums sums = lower::square_sums(q);
        lower::schedule_output(out, rv, st);
        lower::schedule_square_sums_with(sums, out);
        return Pipeline({out, sums.out});
    }

    /// n fused iterations per call with fixed λ, μ: the Tuple of the last one.
    Pipeline iterations(const ir::Problem& p, int n) {
        PROXGEN_INTERNAL_ASSERT(n >= 2 && lower::psi_blockable(p));
        const int rv = int(p.variable_shape.size());
        const Lowered xin = lower::input(x.vars.front());
        lower::Lowerer L(p, params, xin.extents);
        Stages st;
        Level cur;
        cur.x = {xin};
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            cur.z.push_back(lower::input(split->z[i]));
            cur.u.push_back(lower::input(split->u[i]));
        }
        // K x − z + u is recomputed where the adjoint reads it (a sliding window more per level
        // made Halide's loop trimming take minutes)
        for (int k = 0; k < n; ++k)
            cur = level(L, cur.x, cur.z, cur.u, k == 0 ? Expr(u_scale) : Expr(1.0f), st, false, false);
        Func out("ladmm_iterations");
        out(lower::args(rv)) = Tuple(elements(p, cur));
        // K x − z + u is inlined, so a level's x is read over K's and Kᵀ's reach and the inlined
        // z, u chains': 8 rows were too few (Halide's fold check failed), 16 suffice
        lower::schedule_blocked(out, rv, st, 32, 16);
        return Pipeline(out);
    }

    std::vector<Argument> arguments() const {
        auto a = params.arguments();
        x.append_to(a);
        for (auto& s : split->arguments()) a.push_back(s);
        a.emplace_back(lambda);
        a.emplace_back(mu);
        a.emplace_back(u_scale);
        if (omega_constant) a.emplace_back(*omega_constant);
        return a;
    }
    Pipeline zu_step() const { return split->zu_step; }
    Pipeline residual() const { return split->residual; }
};

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

namespace {

/// The JIT's runner of the linearized ADMM card (proxgen/algorithms/linearized_admm.hpp): x, the
/// split state and the compiled kernels bound to them once (swaps move contents, not the bound
/// objects; the runner never moves).
class LADMMRunner {
public:
    LADMMRunner(const ir::Problem& p, const Options& opt, const Result* warm, Result& res)
        : p_(p), state_(p, warm, Algorithm::ladmm), gram_(p), data_(p) {
        K_ = cached_as<LADMMKernels>(kernels_key("ladmm", p), [&] { return std::make_shared<LADMMKernels>(p); },
                                     res.compile_seconds);
        rule_ = ladmm_steps(p, opt);
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
        // λ plays 1/ρ: residual balancing as in ADMM scales λ and μ together (μ/λ stays ≤ 1/‖K‖²)
        adaptive_ = steps::balance_residuals(step_inputs(p, opt)) && opt.lambda == 0 && opt.mu == 0;
        if (const auto* s = adaptive_ ? detail::warm_steps(p, warm, 3) : nullptr) {
            warm_start_ = algorithms::LADMMSteps{(*s)[0], (*s)[1]};
            warm_balancing_.strength = (*s)[2];
            warm_ = true;
        }
        mon_.emplace(p, opt, res);  // its clock starts after the compilation above
    }
    LADMMRunner(const LADMMRunner&) = delete;
    LADMMRunner& operator=(const LADMMRunner&) = delete;

    const steps::LinearizedADMM& rule() const { return rule_; }
    bool adaptive() const { return adaptive_; }
    bool warm_steps(algorithms::LADMMSteps& s, ResidualBalancing& b) const {
        s = warm_start_;
        b = warm_balancing_;
        return warm_;
    }
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
    steps::LinearizedADMM rule_;
    bool fused_ = false, adaptive_ = false, warm_ = false;
    int per_call_ = 1;
    jit::KernelPtr block_;
    std::vector<std::vector<int>> shapes_;
    Image x_, x_next_, omega_constant_;
    SplitState state_;
    SpectralGram gram_;
    const lower::DataArgs data_;
    float lambda_f_ = 0, mu_f_ = 0, u_scale_f_ = 1;
    algorithms::LADMMSteps warm_start_;
    ResidualBalancing warm_balancing_;
    jit::Call x_step_, step_, check_, block_call_;
    std::optional<Monitor> mon_;
};

}  // namespace

Result linearized_admm(const ir::Problem& p, const Options& opt, const Result* warm) {
    Result res;
    LADMMRunner runner(p, opt, warm, res);
    const algorithms::LoopOptions o = loop_options(p, opt);
    algorithms::LinearizedADMM loop(runner.rule(), runner.adaptive(), o);
    algorithms::LADMMSteps start;
    ResidualBalancing balancing;
    if (runner.warm_steps(start, balancing)) loop.restart(start, balancing);
    loop.run(runner, opt.max_iters);
    const algorithms::Progress& done = loop.progress();
    runner.monitor().finish(done.iterations, done.converged, done.stopped);
    runner.finish(res);
    const algorithms::LADMMSteps s = loop.steps();
    res.steps = {s.lambda, s.mu, loop.balancing().strength};
    return res;
}

}  // namespace proxgen::detail
