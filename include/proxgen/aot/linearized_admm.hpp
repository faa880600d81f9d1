// The linearized ADMM solver of a generated library: the algorithm's card (proxgen/algorithms/
// linearized_admm.hpp: the loop the JIT runs too) over a runner calling the ahead-of-time step
// pipelines that the generated header `Description` names. Runtime-only (no libHalide).
//
// Every pipeline takes the same inputs in one order (detail::LADMMPipelines::arguments): data
// images, scalars, x (one buffer per variable), z_i, z_prev_i, u_i (per Ψ term), rho, lambda, mu,
// u_scale; then its outputs. With `fused` (CPU targets, plans whose Ψ terms lie over the
// variable's pixels): `step` writes {x⁺, then per term z⁺'s and u⁺'s components} in one call,
// `check` also the residuals' partial sums, `iterate` (iterations_per_call > 1) runs that many
// steps per call; otherwise `x_step` (x⁺ per variable), `zu_step` ((z⁺, u⁺) per term) and
// `residual` (the partial sums) run separately.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "proxgen/algorithms/linearized_admm.hpp"
#include "proxgen/aot/split_solver.hpp"
#include "proxgen/solve/step_rules.hpp"

namespace proxgen::aot {

template <class Description>
class LinearizedADMM : public SplitSolver<Description, LinearizedADMM<Description>> {
    using Split = SplitSolver<Description, LinearizedADMM<Description>>;
    using Base = SolverBase<Description, LinearizedADMM<Description>>;
    friend Base;
    friend Split;
    using Base::fail, Base::ran, Base::run, Base::data_arguments, Base::variables_buffers;
    using Base::shapes_, Base::images_, Base::scalars_, Base::error_, Base::ready_, Base::n_var, Base::state_;
    using Split::x_, Split::z_, Split::z_next_, Split::u_, Split::u_next_, Split::n_psi;
    using typename Base::Variables;

public:
    using typename Base::Data;
    using typename Base::Buffer;
    using typename Base::Extents;

    /// init (in proxgen/aot/solver_base.hpp) for a problem in any number of variables: one extents
    /// vector per variable, in the order of Description::variable_names (the problem's order of
    /// first use).
    Status init_variables(const Extents& variable_extents, const Data& data, const Options& options = {}) {
        const std::array<std::pair<const char*, double>, 6> ranges{
            {{"max_iters", double(options.max_iters)}, {"check_every", double(options.check_every)},
             {"eps_abs", options.eps_abs}, {"eps_rel", options.eps_rel}, {"lambda", options.lambda}, {"mu", options.mu}}};
        if (Status s = this->begin_init(variable_extents, data, options, ranges); s != Status::ok) return s;
        try {
            this->allocate_split();
            x_next_ = variables_buffers();
            for (auto* list : {&z_views_, &z_next_views_, &u_views_, &u_next_views_}) list->clear();
            for (int i = 0; i < n_psi; ++i) {  // (views after allocation: they point into the buffers)
                z_views_.push_back(Base::component_views(z_[i]));
                z_next_views_.push_back(Base::component_views(z_next_[i]));
                u_views_.push_back(Base::component_views(u_[i]));
                u_next_views_.push_back(Base::component_views(u_next_[i]));
            }
        } catch (const std::bad_alloc&) {
            return fail(Status::out_of_memory, "cannot allocate the solver's state for extents " + Base::extents_text(shapes_));
        }
        restart();
        ready_ = true;
        return Status::ok;
    }

private:
    // the card runs the steps below (its Runner)
    friend class algorithms::LinearizedADMM;
    friend class algorithms::Loop<algorithms::LinearizedADMM>;

    Status check_library() {
        const int inputs = Description::image_slots + Description::scalar_slots + n_var + 3 * n_psi + 4;
        int components = 0;
        for (int i = 0; i < n_psi; ++i) components += Description::psi_components[i];
        auto arguments = &Base::arguments_of;
        bool ok;
        if constexpr (Description::fused) {
            ok = arguments(Description::step_metadata()) == inputs + n_var + 2 * components &&
                 arguments(Description::check_metadata()) == inputs + n_var + 2 * components + 1 &&
                 (Description::iterations_per_call == 1 ||
                  arguments(Description::iterate_metadata()) == inputs + n_var + 2 * components);
        } else {
            ok = arguments(Description::x_step_metadata()) == inputs + n_var &&
                 (n_psi == 0 || arguments(Description::zu_step_metadata()) == inputs + 2 * n_psi) &&
                 arguments(Description::residual_metadata()) == inputs + 1;
        }
        if (!ok) return fail(Status::bad_library, "the linked step pipelines do not match this header; regenerate both");
        return Status::ok;
    }

    // Same rules as detail::ladmm_steps and the JIT's runner.
    Status compute_steps() {
        steps::Inputs in;
        std::array<double, (n_psi > 0 ? n_psi : 1)> norms{};
        if (Status s = this->step_inputs(in, norms.data()); s != Status::ok) return s;
        in.lambda = options_.lambda;
        in.mu = options_.mu;
        const steps::LinearizedADMM rule = steps::linearized_admm(in);
        if (steps::too_large(rule.product))
            return fail(Status::invalid_argument, "mu = " + std::to_string(rule.mu) + " exceeds lambda / ||K||^2 = " +
                                                      std::to_string(rule.lambda / (in.norm * in.norm)) +
                                                      "; the iteration may diverge");
        // λ plays 1/ρ: residual balancing as in ADMM scales λ and μ together (μ/λ stays ≤ 1/‖K‖²)
        const bool adaptive = steps::balance_residuals(in) && options_.lambda == 0 && options_.mu == 0;
        loop_ = algorithms::LinearizedADMM(rule, adaptive, this->loop_options(options_));
        return Status::ok;
    }

    void restart() {
        this->reset_split();
        u_scale_ = 1;
        loop_.restart();
        sync_state();
    }

    /// state() from the card's progress and steps.
    void sync_state() {
        const algorithms::LADMMSteps s = loop_.steps();
        this->sync_progress();
        state_.lambda = s.lambda;
        state_.mu = s.mu;
    }

    /// The argument vector every pipeline shares; outputs are appended by the caller. z_prev is
    /// z_next_, which holds the previous z after a step.
    std::vector<void*> inputs() {
        std::vector<void*> a;
        data_arguments(a);
        for (Buffer& b : x_) a.push_back(b.raw_buffer());
        for (auto* list : {&z_, &z_next_, &u_})
            for (Buffer& b : *list) a.push_back(b.raw_buffer());
        for (float* s : {&rho_, &lambda_, &mu_, &u_scale_}) a.push_back(s);
        return a;
    }

    /// The fused kernels' outputs after x⁺: each term's z⁺ components, then its u⁺ components.
    void fused_outputs(std::vector<void*>& a) {
        for (int i = 0; i < n_psi; ++i) {
            for (Buffer& b : z_next_views_[i]) a.push_back(b.raw_buffer());
            for (Buffer& b : u_next_views_[i]) a.push_back(b.raw_buffer());
        }
    }

    /// After a step wrote z_next_ and u_next_: they become the state, their views with them.
    void advance_split(bool keep_dual) {
        Split::advance_split(keep_dual);
        std::swap(z_views_, z_next_views_);
        if (keep_dual) std::swap(u_views_, u_next_views_);
    }

    void set(const algorithms::LADMMSteps& s) {
        lambda_ = float(s.lambda);
        mu_ = float(s.mu);
        rho_ = float(1.0 / s.lambda);  // the separate (z, u) step's penalty, as the JIT's
    }

    // The card's Runner (proxgen/algorithms/linearized_admm.hpp); iterations_per_call, record and
    // after_iteration are SolverBase's.
    bool run_step(const algorithms::LADMMSteps& now, bool measure) {
        set(now);
        if constexpr (Description::fused) {
            auto args = inputs();
            for (Buffer& b : x_next_) args.push_back(b.raw_buffer());
            fused_outputs(args);
            if (measure) args.push_back(this->partials_.raw_buffer());
            if (!ran(measure ? &Description::check : &Description::step, args)) return false;
            std::swap(x_, x_next_);
            advance_split(true);
            u_scale_ = 1;
        } else {
            {
                auto args = inputs();
                for (Buffer& b : x_next_) args.push_back(b.raw_buffer());
                if (!ran(&Description::x_step, args)) return false;
                std::swap(x_, x_next_);
            }
            if (n_psi > 0) {
                auto args = inputs();
                this->zu_outputs(args);
                if (!ran(&Description::zu_step, args)) return false;
                advance_split(true);
            }
            if (measure) {
                auto args = inputs();
                args.push_back(this->partials_.raw_buffer());
                if (!ran(&Description::residual, args)) return false;
            }
        }
        return true;
    }

    bool run_block(const algorithms::LADMMSteps& now) {
        set(now);
        auto args = inputs();
        args.push_back(x_next_.front().raw_buffer());  // (one variable: lower::psi_blockable)
        fused_outputs(args);
        if (!ran(&Description::iterate, args)) return false;
        std::swap(x_, x_next_);
        advance_split(true);
        u_scale_ = 1;
        return true;
    }

    using Split::sums;

    /// u ← u · factor: read so by the next fused kernel, else scaled here (as the JIT's).
    void rescale_dual(double factor) {
        if constexpr (Description::fused) {
            u_scale_ = float(factor);
        } else {
            this->scale_dual(factor);
        }
    }


    Options options_;
    Variables x_next_;
    std::vector<std::vector<Buffer>> z_views_, z_next_views_, u_views_, u_next_views_;  // fused kernels' Tuple elements
    float rho_ = 0, lambda_ = 0, mu_ = 0, u_scale_ = 1;
    algorithms::LinearizedADMM loop_;  // the algorithm's state and rules
};

}  // namespace proxgen::aot
