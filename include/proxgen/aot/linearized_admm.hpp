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
#include "proxgen/aot/solver_base.hpp"
#include "proxgen/solve/step_rules.hpp"

namespace proxgen::aot {

template <class Description>
class LinearizedADMM : public SolverBase<Description, LinearizedADMM<Description>> {
    using Base = SolverBase<Description, LinearizedADMM<Description>>;
    friend Base;
    using Base::fail, Base::ran, Base::run, Base::data_arguments, Base::variables_buffers;
    using Base::shapes_, Base::images_, Base::scalars_, Base::no_variable_, Base::error_, Base::ready_, Base::n_var, Base::state_;
    using typename Base::Variables;

public:
    using typename Base::Data;
    using typename Base::Buffer;
    using typename Base::Extents;
    using Base::x;  // x() beside x(j) below

    /// init (in proxgen/aot/solver_base.hpp) for a problem in any number of variables: one extents
    /// vector per variable, in the order of Description::variable_names (the problem's order of
    /// first use).
    Status init_variables(const Extents& variable_extents, const Data& data, const Options& options = {}) {
        const std::array<std::pair<const char*, double>, 6> ranges{
            {{"max_iters", double(options.max_iters)}, {"check_every", double(options.check_every)},
             {"eps_abs", options.eps_abs}, {"eps_rel", options.eps_rel}, {"lambda", options.lambda}, {"mu", options.mu}}};
        if (Status s = this->begin_init(variable_extents, data, options, ranges); s != Status::ok) return s;
        try {
            x_ = variables_buffers();
            x_next_ = variables_buffers();
            for (auto* list : {&z_, &z_next_, &u_, &u_next_}) list->clear();
            for (auto* list : {&z_views_, &z_next_views_, &u_views_, &u_next_views_}) list->clear();
            psi_elements_ = 0;
            std::vector<std::vector<int>> psi_shapes;
            for (int i = 0; i < n_psi; ++i) {
                const std::vector<int> s = Description::psi_shape(i, shapes_, images_.data());
                for (auto* list : {&z_, &z_next_, &u_, &u_next_}) list->push_back(state_buffer(s));
                psi_elements_ += z_.back().number_of_elements();
                psi_shapes.push_back(s);
            }
            for (int i = 0; i < n_psi; ++i) {  // (views after the last push_back: they point into the buffers)
                z_views_.push_back(Base::component_views(z_[i]));
                z_next_views_.push_back(Base::component_views(z_next_[i]));
                u_views_.push_back(Base::component_views(u_[i]));
                u_next_views_.push_back(Base::component_views(u_next_[i]));
            }
            partials_ = this->partial_sums_buffer(psi_shapes, residual_quantities);  // (split_residual_shapes)
        } catch (const std::bad_alloc&) {
            return fail(Status::out_of_memory, "cannot allocate the solver's state for extents " + Base::extents_text(shapes_));
        }
        for (auto& b : x_) b.fill(0.0f);
        restart();
        ready_ = true;
        return Status::ok;
    }

    /// set_x0 for several variables: one start per variable, in init_variables' order.
    Status set_x0_variables(const std::vector<Buffer>& x0) {
        last_error_message().clear();
        if (Status s = this->check_x0(x0); s != Status::ok) return s;
        for (int j = 0; j < n_var; ++j) {
            x_[j].copy_from(x0[j]);
            x_[j].set_host_dirty();
        }
        restart();
        return Status::ok;
    }

    /// Variable j's value (Description::variable_names[j]; x() is x(0)), copied back from the device
    /// for GPU targets, or, where x's only constraint is split as a term on x itself
    /// (Description::solution_term), its split copy z, which meets the constraint exactly where x
    /// may miss it by the primal residual — what pg::solve returns. An empty buffer, and a message
    /// in last_error(), for a j out of range.
    const Buffer& x(int j) {
        if (!this->variable_index(j) || !ready_) return no_variable_;
        Buffer& b = Description::solution_term >= 0 ? z_[Description::solution_term] : x_[j];
        b.copy_to_host();
        return b;
    }

private:
    // the card runs the steps below (its Runner)
    friend class algorithms::LinearizedADMM;
    friend class algorithms::Loop<algorithms::LinearizedADMM>;
    static constexpr int n_psi = Description::psi_terms;
    /// The residual's quantities (split_residual_shapes): Kᵀ(z − z_prev) and Kᵀu per variable,
    /// then (K_i x − z_i, K_i x, z_i) per Ψ term.
    static constexpr int residual_quantities = 2 * n_var + 3 * n_psi;

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
        if (Status s = this->stacked_norm(in.norm, norms.data()); s != Status::ok) return s;
        in.strong_convexity = Description::strong_convexity(images_.data(), scalars_.data());
        in.curvature_scale = this->curvature_scale();
        in.lambda = options_.lambda;
        in.mu = options_.mu;
        in.omega_empty = Description::omega_terms == 0;
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

    void restart() {  // allocates nothing: init made every buffer
        for (auto* list : {&z_, &z_next_, &u_, &u_next_})
            for (Buffer& b : *list) {
                b.set_device_dirty(false);  // overwritten whole: what a GPU last wrote there is stale
                b.fill(0.0f);
                b.set_host_dirty();
            }
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

    /// After a step wrote z_next_ and u_next_: they become the state (z_next_: the previous z).
    void advance_split(bool keep_dual) {
        std::swap(z_, z_next_);
        std::swap(z_views_, z_next_views_);
        if (keep_dual) {
            std::swap(u_, u_next_);
            std::swap(u_views_, u_next_views_);
        }
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
            if (measure) args.push_back(partials_.raw_buffer());
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
                for (int i = 0; i < n_psi; ++i) {
                    args.push_back(z_next_[i].raw_buffer());
                    args.push_back(u_next_[i].raw_buffer());
                }
                if (!ran(&Description::zu_step, args)) return false;
                advance_split(true);
            }
            if (measure) {
                auto args = inputs();
                args.push_back(partials_.raw_buffer());
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

    /// The last measured step's sums of squares, from the pipelines' partial sums.
    bool sums(algorithms::SplitSums& out) {
        double totals[residual_quantities] = {};
        Base::partial_totals(partials_, totals);
        std::size_t n = 0;
        for (int j = 0; j < n_var; ++j) n += x_[j].number_of_elements();
        out = algorithms::split_sums(totals, n_var, n_psi, double(n), double(psi_elements_));
        return true;
    }

    /// u ← u · factor: read so by the next fused kernel, else scaled here (as the JIT's).
    void rescale_dual(double factor) {
        if constexpr (Description::fused) {
            u_scale_ = float(factor);
        } else {
            for (Buffer& u : u_) {
                u.copy_to_host();
                float* d = u.data();
                for (std::size_t k = 0, n = u.number_of_elements(); k < n; ++k) d[k] = float(d[k] * factor);
                u.set_host_dirty();
            }
        }
    }


    Options options_;
    Variables x_, x_next_;
    std::vector<Buffer> z_, z_next_, u_, u_next_;  // per Ψ term
    std::vector<std::vector<Buffer>> z_views_, z_next_views_, u_views_, u_next_views_;  // fused kernels' Tuple elements
    Buffer partials_;  // the residual quantities' partial sums of squares
    std::size_t psi_elements_ = 0;
    float rho_ = 0, lambda_ = 0, mu_ = 0, u_scale_ = 1;
    algorithms::LinearizedADMM loop_;  // the algorithm's state and rules
};

}  // namespace proxgen::aot
