// The ADMM and HQS solvers of a generated library: the algorithm's card (proxgen/algorithms/
// admm.hpp, hqs.hpp: the loops the JIT runs too) over a runner calling the ahead-of-time step
// pipelines that the generated header `Description` names. HQS is ADMM's steps with u = 0 and ρ
// growing in stages. Runtime-only (no libHalide).
//
// Every pipeline takes the same inputs in one order (detail::QuadraticPipelines::arguments): data
// images, scalars, x (one buffer per variable), direction (per variable), rho_x, z_i, z_prev_i, u_i
// (per Ψ term), rho; then its outputs. The x-update (Description::x_update_kind) is the plan's:
//  - direct (elementwise, per-pixel blocks): `x_update` writes x⁺;
//  - fft / dct: `x_update` writes the right-hand side, which SpectralSolve (proxgen/aot/
//    spectral_solve.hpp) solves through the generated FFT passes; its eigenvalues from `gram`
//    (at ρ = 0: Ω's part) and `gram_psi` applied to an impulse. In several variables each block
//    (Description::block_kinds) keeps its own: a spectral block's right-hand side is solved by its
//    own transforms (eigenvalues from the impulse in that variable alone: the Gram is
//    block-diagonal there), a direct block's x is what `x_update` wrote;
//  - cg: `cg_residual` (rhs − G x at the warm start) and `gram` (G d) in the conjugate gradient
//    card, whose vector updates and inner products are pipelines too (`cg_update`, `cg_direction`,
//    `cg_dot`: float64 partial sums, totalled here), so a GPU library keeps CG's vectors on the
//    device; where the operators have circulant stand-ins (Description::cg_preconditioned),
//    preconditioned as the JIT's by the stand-in Gram's FFT inverse (eigenvalues from
//    `precond_gram`, `precond_gram_psi`), its Gram applied as the JIT's: `gram_split` (G d = P d +
//    (G − P) d) from P d, which `cg_direction_pair` carries beside d. A GPU library's FFT passes are not driven
//    (proxgen/aot/fft.hpp runs CPU libraries): there CG runs unpreconditioned, and a spectral
//    x-update fails at init with a sentence.
// Then `zu_step` ((z⁺, u⁺) per term) and, at checks, `residual` (the partial sums).
// HQS keeps u = 0: `zu_step` runs at x̂ = x⁺ + m (x⁺ − x) (its momentum), and what it writes as u⁺,
// K x̂ − z⁺, is the implicit scaled multiplier the residual measures. Its continuation compares
// objectives: `objective` (float64 summands per term, the weight applied here: run on the CPU side
// of a GPU library) at `feasible` (x projected onto the constraints on the variables), as the
// JIT's returned objective, without the constants the planner's merge of quadratics adds (they
// depend on the data; they shift the objective, not its changes).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "proxgen/algorithms/admm.hpp"
#include "proxgen/algorithms/conjugate_gradient.hpp"
#include "proxgen/algorithms/hqs.hpp"
#include "proxgen/aot/spectral_solve.hpp"
#include "proxgen/aot/split_solver.hpp"
#include "proxgen/solve/step_rules.hpp"

namespace proxgen::aot {

/// How a generated ADMM solver's x-update solves its quadratic (the plan's x-update).
enum class XUpdate { direct, fft, dct, cg };

/// ADMM (Card = algorithms::ADMM) or HQS (algorithms::HQS) over the generated steps: the
/// aliases proxgen::aot::ADMM and proxgen::aot::HQS below.
template <class Description, class Card>
class QuadraticSolver : public SplitSolver<Description, QuadraticSolver<Description, Card>> {
    using Split = SplitSolver<Description, QuadraticSolver>;
    using Base = SolverBase<Description, QuadraticSolver>;
    friend Base;
    friend Split;
    using Base::fail, Base::ran, Base::data_arguments, Base::variables_buffers;
    using Base::shapes_, Base::images_, Base::scalars_, Base::error_, Base::ready_, Base::n_var, Base::state_;
    using Split::x_, Split::z_, Split::z_next_, Split::u_, Split::u_next_, Split::n_psi;
    using typename Base::Variables;

public:
    using typename Base::Data;
    using typename Base::Buffer;
    using typename Base::Extents;

    /// init (in proxgen/aot/solver_base.hpp) for a problem in any number of variables: one extents
    /// vector per variable, in the order of Description::variable_names.
    Status init_variables(const Extents& variable_extents, const Data& data, const Options& options = {}) {
        const std::array<std::pair<const char*, double>, 10> ranges{
            {{"max_iters", double(options.max_iters)}, {"check_every", double(options.check_every)},
             {"eps_abs", options.eps_abs}, {"eps_rel", options.eps_rel}, {"rho", options.rho},
             {"cg_tol", options.cg_tol}, {"cg_max_iters", double(options.cg_max_iters)},
             {"hqs_growth", options.hqs_growth}, {"hqs_every", double(options.hqs_every)},
             {"hqs_max_ratio", options.hqs_max_ratio}}};
        if (Status s = this->begin_init(variable_extents, data, options, ranges); s != Status::ok) return s;
        try {
            this->allocate_split();
            if constexpr (hqs) {
                x_prev_ = variables_buffers(), x_hat_ = variables_buffers(), x_stage_ = variables_buffers();
                probe_ = variables_buffers();
                if constexpr (Description::has_feasible) feasible_ = variables_buffers();
                summands_.clear();
                for (int k = 0; k < Description::objective_terms; ++k)
                    summands_.emplace_back(Description::term_summand_shape(k, shapes_, images_.data()));
            }
            if constexpr (x_update == XUpdate::direct) x_next_ = variables_buffers();
            if constexpr (x_update != XUpdate::direct) d_ = variables_buffers();
            if constexpr (x_update == XUpdate::cg)
                r_ = variables_buffers(), gd_ = variables_buffers(), cg_sums_ = this->partial_sums_buffer({}, n_var);
            if constexpr (preconditioned) s_ = variables_buffers(), pd_ = variables_buffers();
            if constexpr (spectral) rhs_ = variables_buffers();
        } catch (const std::bad_alloc&) {
            return fail(Status::out_of_memory, "cannot allocate the solver's state for extents " + Base::extents_text(shapes_));
        }
        restart();
        if (Status s = init_spectral(); s != Status::ok) return s;
        ready_ = true;
        return Status::ok;
    }

    /// CG iterations run so far (cg x-updates; 0 for the others).
    int cg_iterations() const { return cg_total_; }

private:
    // the card runs the steps below (its Runner)
    friend Card;
    friend class algorithms::Loop<Card>;
    static constexpr bool hqs = std::is_same_v<Card, algorithms::HQS>;
    static constexpr XUpdate x_update = Description::x_update_kind;
    static constexpr bool spectral = x_update == XUpdate::fft || x_update == XUpdate::dct;
    static constexpr bool preconditioned = x_update == XUpdate::cg && Description::cg_preconditioned;
    static constexpr auto blocks = Description::block_kinds;
    static constexpr bool spectral_block(int j) { return blocks[std::size_t(j)] == XUpdate::fft || blocks[std::size_t(j)] == XUpdate::dct; }
    Status check_library() {
        const int inputs = Description::image_slots + Description::scalar_slots + 2 * n_var + 3 * n_psi + 2;
        auto arguments = &Base::arguments_of;
        bool ok = (n_psi == 0 || arguments(Description::zu_step_metadata()) == inputs + 2 * n_psi) &&
                  arguments(Description::residual_metadata()) == inputs + 1;
        if constexpr (x_update != XUpdate::cg) ok = ok && arguments(Description::x_update_metadata()) == inputs + n_var;
        if constexpr (x_update != XUpdate::direct) ok = ok && arguments(Description::gram_metadata()) == inputs + n_var;
        if constexpr (x_update == XUpdate::cg)
            ok = ok && arguments(Description::cg_residual_metadata()) == inputs + n_var &&
                 arguments(Description::cg_update_metadata()) == 6 * n_var + 2 &&
                 arguments(Description::cg_direction_metadata()) == 3 * n_var + 1 &&
                 arguments(Description::cg_dot_metadata()) == 2 * n_var + 1;
        if constexpr (spectral) ok = ok && arguments(Description::gram_psi_metadata()) == inputs + n_var;
        if constexpr (preconditioned)
            ok = ok && arguments(Description::precond_gram_metadata()) == inputs + n_var &&
                 arguments(Description::precond_gram_psi_metadata()) == inputs + n_var &&
                 arguments(Description::gram_split_metadata()) == inputs + 2 * n_var &&
                 arguments(Description::cg_direction_pair_metadata()) == 6 * n_var + 1;
        if constexpr (hqs) {  // data, x, then the outputs
            const int data = Description::image_slots + Description::scalar_slots;
            ok = ok && arguments(Description::objective_metadata()) == data + n_var + Description::objective_terms;
            if constexpr (Description::has_feasible) ok = ok && arguments(Description::feasible_metadata()) == data + 2 * n_var;
        }
        if (!ok) return fail(Status::bad_library, "the linked step pipelines do not match this header; regenerate both");
        return Status::ok;
    }

    // Same rules as the JIT's (detail::admm_rho, steps::balance_residuals).
    Status compute_steps() {
        steps::Inputs in;
        std::array<double, (n_psi > 0 ? n_psi : 1)> norms{};
        if (Status s = this->step_inputs(in, norms.data()); s != Status::ok) return s;
        in.adapt = options_.adaptive_rho;
        const double rho0 = options_.rho > 0 ? options_.rho : steps::initial_rho(in.curvature_scale, in.norm);
        if constexpr (hqs)
            loop_ = algorithms::HQS({rho0, rho0 * options_.hqs_max_ratio, options_.hqs_growth, options_.hqs_every},
                                    n_psi > 0, this->loop_options(options_));
        else
            loop_ = algorithms::ADMM(rho0, steps::balance_residuals(in), this->loop_options(options_));
        return Status::ok;
    }

    /// The eigenvalues of the x-update's Gram (each spectral block's) or of its circulant stand-in
    /// (CG's preconditioner) from their parts applied to the impulse at (0, 0) of that variable.
    Status init_spectral() {
        if constexpr (spectral || preconditioned) {
            if constexpr (preconditioned && n_var > 1)
                return fail(Status::bad_library, "a preconditioned CG x-update in several variables is not generated");
            use_preconditioner_ = false;
            if (preconditioned && Description::fft_kernels().gpu) return Status::ok;  // (see the top of this file)
            Variables g_omega = variables_buffers(), g_psi = variables_buffers();
            for (int j = 0; j < n_var; ++j) {
                if (spectral && !spectral_block(j)) continue;
                for (int i = 0; i < n_var; ++i) {
                    d_[i].fill(0.0f);
                    if (i == j) d_[i].data()[0] = 1.0f;
                    d_[i].set_host_dirty();
                }
                rho_ = 0;  // G at ρ = 0 is G_Ω
                if (!call(spectral ? &Description::gram : &Description::precond_gram, g_omega) ||
                    !call(spectral ? &Description::gram_psi : &Description::precond_gram_psi, g_psi))
                    return error_;
                g_omega[j].copy_to_host();
                g_psi[j].copy_to_host();
                const SpectralBasis basis = blocks[std::size_t(j)] == XUpdate::dct ? SpectralBasis::dct : SpectralBasis::fft;
                if (Status s = spectral_[j].init(Description::fft_kernels(), basis, g_omega[j], g_psi[j]); s != Status::ok)
                    return fail(s, std::string("the x-update's transforms: ") + last_error_message());
            }
            use_preconditioner_ = preconditioned;
        }
        return Status::ok;
    }

    void restart() {
        this->reset_split();
        loop_.restart();
        stop_ = Status::ok;
        if constexpr (hqs)
            for (int j = 0; j < n_var; ++j) {  // the first stage starts at x
                x_[j].copy_to_host();
                x_stage_[j].copy_from(x_[j]);
            }
        sync_state();
    }

    /// state() from the card's progress and penalty.
    void sync_state() {
        this->sync_progress();
        state_.rho = loop_.rho();
    }

    /// The argument vector every pipeline shares; outputs are appended by the caller. z_prev is
    /// z_next_, which holds the previous z after a step; the direction is d_ (x where no step reads it).
    /// `at`: the x the step reads (x̂ for HQS's z-step), `u`: the duals (HQS measures its implicit one).
    std::vector<void*> inputs(Variables* at = nullptr, std::vector<Buffer>* u = nullptr) {
        std::vector<void*> a;
        data_arguments(a);
        for (Buffer& b : at ? *at : x_) a.push_back(b.raw_buffer());
        for (Buffer& b : (d_.empty() ? x_ : d_)) a.push_back(b.raw_buffer());
        a.push_back(&rho_);
        for (auto* list : {&z_, &z_next_, u ? u : &u_})
            for (Buffer& b : *list) a.push_back(b.raw_buffer());
        a.push_back(&rho_);
        return a;
    }

    /// Runs a step whose outputs are one buffer per variable.
    bool call(int (*pipeline)(void**), Variables& out) {
        auto args = inputs();
        for (Buffer& b : out) args.push_back(b.raw_buffer());
        return ran(pipeline, args);
    }

    // ---- the x-update ----
    bool solve_x(double rho) {
        if constexpr (x_update == XUpdate::direct) {
            if (!call(&Description::x_update, x_next_)) return false;
            std::swap(x_, x_next_);
            return true;
        } else if constexpr (spectral) {
            if (!call(&Description::x_update, rhs_)) return false;
            for (int j = 0; j < n_var; ++j) {
                if (!spectral_block(j)) {  // x_update wrote this block's x⁺
                    std::swap(x_[j], rhs_[j]);
                    continue;
                }
                rhs_[j].copy_to_host();
                if (Status s = spectral_[j].solve(rhs_[j], x_[j], rho); s != Status::ok) {
                    error_ = fail(s, std::string("the x-update's transforms: ") + last_error_message());
                    return false;
                }
                x_[j].set_host_dirty();
            }
            return true;
        } else {
            return conjugate_gradient(rho);
        }
    }

    /// Runs one of CG's vector pipelines (detail::CGVectorPipelines): the inputs (a buffer per
    /// variable, list after list), the scalar where it takes one, the outputs (likewise), and the
    /// partial sums where it writes them.
    bool vectors(int (*pipeline)(void**), std::initializer_list<Variables*> in, float* factor,
                 std::initializer_list<Variables*> out, bool sums) {
        std::vector<void*> args;
        for (auto* list : {&in, &out}) {
            for (Variables* v : *list)
                for (Buffer& b : *v) args.push_back(b.raw_buffer());
            if (list == &in && factor) args.push_back(factor);
        }
        if (sums) args.push_back(cg_sums_.raw_buffer());
        return ran(pipeline, args);
    }

    /// The total of the last partial sums over every variable, in float64 (as the JIT's).
    double cg_total() {
        double totals[n_var] = {};
        Base::partial_totals(cg_sums_, totals);
        double t = 0;
        for (double v : totals) t += v;
        return t;
    }

    /// Σ a·b over every variable.
    double dot(Variables& a, Variables& b) { return vectors(&Description::cg_dot, {&a, &b}, nullptr, {}, true) ? cg_total() : NAN; }

    /// s = M⁻¹ r by the circulant stand-in's FFT inverse; false (error_ set) on a failure.
    bool precondition(double rho) {
        r_.front().copy_to_host();
        if (Status st = spectral_.front().solve(r_.front(), s_.front(), rho); st != Status::ok) {
            error_ = fail(st, std::string("the x-update's preconditioner: ") + last_error_message());
            return false;
        }
        return true;
    }

    /// The conjugate gradient card's runner (proxgen/algorithms/conjugate_gradient.hpp): the
    /// operator, the vector updates and the inner products are pipelines, so the vectors stay where
    /// the steps run; the preconditioner's transforms run on the CPU side. An inner product that
    /// failed is NaN, which ends the card's loop; the failure is in error_.
    struct CG {
        QuadraticSolver& a;
        double rho;
        Variables& s() { return a.use_preconditioner_ ? a.s_ : a.r_; }
        bool residual() { return a.call(&Description::cg_residual, a.r_); }  // r = rhs − G x
        bool precondition() { return !a.use_preconditioner_ || a.precondition(rho); }
        bool preconditioned() const { return a.use_preconditioner_; }
        bool start_direction() {  // d = s + 0 · s (and P d = r: P s = r)
            float zero = 0;
            if (a.use_preconditioner_)
                return a.vectors(&Description::cg_direction_pair, {&a.s_, &a.s_, &a.r_, &a.r_}, &zero, {&a.d_, &a.pd_}, false);
            return a.vectors(&Description::cg_direction, {&s(), &s()}, &zero, {&a.d_}, false);
        }
        bool gram() {  // gd = G d: P d + (G − P) d where P d is carried, else G d in space
            if (!a.use_preconditioner_) return a.call(&Description::gram, a.gd_);
            auto args = a.inputs();
            for (auto* list : {&a.pd_, &a.gd_})
                for (Buffer& b : *list) args.push_back(b.raw_buffer());
            return a.ran(&Description::gram_split, args);
        }
        double dot_r_s() { return a.dot(a.r_, s()); }
        double dot_r_r() { return a.dot(a.r_, a.r_); }
        double dot_d_gd() { return a.dot(a.d_, a.gd_); }
        double update(float step) {  // x += step d, r −= step gd, and ‖r‖²
            return a.vectors(&Description::cg_update, {&a.x_, &a.r_, &a.d_, &a.gd_}, &step, {&a.x_, &a.r_}, true)
                       ? a.cg_total()
                       : NAN;
        }
        bool direction(float beta) {  // d = s + β d (and P d = r + β P d)
            if (a.use_preconditioner_)
                return a.vectors(&Description::cg_direction_pair, {&a.s_, &a.d_, &a.r_, &a.pd_}, &beta, {&a.d_, &a.pd_}, false);
            return a.vectors(&Description::cg_direction, {&s(), &a.d_}, &beta, {&a.d_}, false);
        }
    };

    bool conjugate_gradient(double rho) {
        CG run{*this, rho};
        return algorithms::conjugate_gradient(run, {options_.cg_tol, options_.cg_max_iters}, cg_total_) &&
               error_ == Status::ok;  // a failed inner product ended the loop as a NaN
    }

    // The card's Runner (proxgen/algorithms/admm.hpp, hqs.hpp); iterations_per_call and record
    // are SolverBase's.
    /// ADMM's step.
    bool run_step(double rho, bool measure) {
        rho_ = float(rho);
        if (!solve_x(rho)) return false;
        return split_step(nullptr, measure);
    }
    /// HQS's: the z-step at x̂ = x⁺ + m (x⁺ − x), the implicit multiplier kept in u_next_.
    bool run_step(double rho, double momentum, bool measure) {
        rho_ = float(rho);
        if (momentum > 0)  // x before the x-update, which x̂ reads
            for (int j = 0; j < n_var; ++j) {
                x_[j].copy_to_host();
                x_prev_[j].copy_from(x_[j]);
            }
        if (!solve_x(rho)) return false;
        if (momentum <= 0) return split_step(nullptr, measure);
        for (int j = 0; j < n_var; ++j) {  // in float64, rounded once, as the JIT's
            x_[j].copy_to_host();
            const float *px = x_[j].data(), *pp = x_prev_[j].data();
            float* ph = x_hat_[j].data();
            for (std::size_t i = 0, n = x_[j].number_of_elements(); i < n; ++i)
                ph[i] = float(px[i] + momentum * (px[i] - pp[i]));
            x_hat_[j].set_host_dirty();
        }
        return split_step(&x_hat_, measure);
    }
    /// (z⁺, u⁺) at `at` (x where null), then at checks the residual's partial sums.
    bool split_step(Variables* at, bool measure) {
        if (n_psi > 0) {
            auto args = inputs(at);
            this->zu_outputs(args);
            if (!ran(&Description::zu_step, args)) return false;
            this->advance_split(!hqs);
        }
        if (measure) {
            auto args = inputs(nullptr, hqs ? &u_next_ : nullptr);
            args.push_back(this->partials_.raw_buffer());
            if (!ran(&Description::residual, args)) return false;
        }
        return true;
    }

    /// u ← u · factor (ρ changed: the scaled dual follows), as the JIT's.
    void rescale_dual(double factor) { this->scale_dual(factor); }
    using Split::sums;

    /// Runs a CPU-side step (objective, feasible) on the data and `at` (copied back from a GPU
    /// first), writing `outputs`; false, with stop_ set, when it fails.
    template <class Outputs>
    bool ran_on_host(int (*pipeline)(void**), Variables& at, Outputs& outputs) {
        std::vector<void*> args;
        data_arguments(args);
        for (Buffer& b : at) {
            b.copy_to_host();
            args.push_back(b.raw_buffer());
        }
        for (auto& b : outputs) args.push_back(b.raw_buffer());
        if (ran(pipeline, args)) return true;
        stop_ = error_;
        return false;
    }
    /// HQS: the objective at `at` (float64, the summands' sums in memory order, term by term, each
    /// times its weight as the JIT's); NaN, with stop_ set, when the pipeline fails.
    double objective_at(Variables& at) {
        if (!ran_on_host(&Description::objective, at, summands_)) return std::numeric_limits<double>::quiet_NaN();
        double f = 0;
        for (int k = 0; k < Description::objective_terms; ++k) {
            const auto& s = summands_[std::size_t(k)];
            double value = 0;
            for (std::size_t i = 0, n = s.number_of_elements(); i < n; ++i) value += s.data()[i];
            f += double(scalars_[std::size_t(Description::term_weight_slot[k])]) * value;
        }
        return f;
    }
    /// HQS: the objective of what a solve stopped now returns (x projected onto its constraints).
    double objective() {
        if constexpr (Description::has_feasible) {
            if (!ran_on_host(&Description::feasible, x_, feasible_)) return std::numeric_limits<double>::quiet_NaN();
            return objective_at(feasible_);
        } else {
            return objective_at(x_);
        }
    }
    /// HQS: at the end of a stage, false where the objective falls without bound along the step the
    /// stage took (algorithms::unbounded_along, the JIT's test); x_stage_ moves on.
    bool stage_ended(int it) {
        if (!(options_.eps_abs > 0 || options_.eps_rel > 0)) return keep_stage();
        double step_squares = 0, x_squares = 0;
        for (int j = 0; j < n_var; ++j) {
            x_[j].copy_to_host();
            const float *px = x_[j].data(), *ps = x_stage_[j].data();
            for (std::size_t i = 0, n = x_[j].number_of_elements(); i < n; ++i) {
                const float step = px[i] - ps[i];
                step_squares += double(step) * step;
                x_squares += double(px[i]) * px[i];
            }
        }
        std::array<double, 3> f{};
        const bool falls = algorithms::unbounded_along(std::sqrt(x_squares), std::sqrt(step_squares), [&](double t) {
            if (t == 0) return objective_at(x_);
            for (int j = 0; j < n_var; ++j) {
                const float *px = x_[j].data(), *ps = x_stage_[j].data();
                float* py = probe_[j].data();
                for (std::size_t i = 0, n = x_[j].number_of_elements(); i < n; ++i)
                    py[i] = float(px[i] + t * double(px[i] - ps[i]));
                probe_[j].set_host_dirty();
            }
            return objective_at(probe_);
        }, f);
        if (falls) {
            stop_ = fail(Status::unbounded,
                         "the problem looks unbounded: at iteration " + std::to_string(it) + " the objective " +
                             std::to_string(f[0]) + " falls to " + std::to_string(f[1]) + " and " + std::to_string(f[2]) +
                             " along the direction of the last iterations, 100 and 1000 times max(1, ||x||) out; the "
                             "objective has no minimum (is a data term, a constraint or a regularizer that bounds x "
                             "missing?)");
            return false;
        }
        return keep_stage();
    }
    bool keep_stage() {
        for (int j = 0; j < n_var; ++j) {
            x_[j].copy_to_host();
            x_stage_[j].copy_from(x_[j]);
        }
        return true;
    }
    bool after_iteration(int) { return stop_ == Status::ok; }
    Status stop_status() const { return stop_; }

    Options options_;
    Variables x_next_;      // the direct x-update's output
    Variables d_, r_, gd_, s_;  // CG's direction, residual, G d and M⁻¹ r (d_: the spectral impulses)
    Variables pd_;              // preconditioned CG: P d, carried beside d
    Buffer cg_sums_;            // CG's partial sums (an inner product's, or ‖r‖²'s after an update)
    Variables rhs_;         // spectral: the right-hand side
    float rho_ = 0;
    int cg_total_ = 0;
    std::array<SpectralSolve, n_var> spectral_;  // each spectral block's x-update, or CG's preconditioner (the first)
    bool use_preconditioner_ = false;
    // HQS: x before the x-update, x̂, x at the start of the stage, a point along its ray, x's feasible
    // copy and each term's float64 summands
    Variables x_prev_, x_hat_, x_stage_, probe_, feasible_;
    std::vector<Halide::Runtime::Buffer<double>> summands_;
    Status stop_ = Status::ok;  // HQS: why the runner stopped the loop (an unbounded ray, a failed objective)
    Card loop_;  // the algorithm's state and rules
};

/// The generated ADMM solver (Boyd et al.; ρ by residual balancing).
template <class Description>
using ADMM = QuadraticSolver<Description, algorithms::ADMM>;
/// The generated half-quadratic splitting solver (ρ growing in stages).
template <class Description>
using HQS = QuadraticSolver<Description, algorithms::HQS>;

}  // namespace proxgen::aot
