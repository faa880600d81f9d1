// The Pock–Chambolle solver of a generated library: the algorithm's card (proxgen/algorithms/
// pock_chambolle.hpp: the loop the JIT runs too) over a runner calling the ahead-of-time step
// pipelines that the generated header `Description` names. Runtime-only (no libHalide). It is
// Condat–Vũ's solver too (aot::CondatVu below): a Description with gradient_steps takes
// steps::condat_vu's rule, and its generated primal step and residual carry ∇h.
//
// `Description` (written by the generator) provides: Data (named buffers and scalars), the slot
// counts and ranks, bind(), image_shape(), psi_shape(), psi_components, norm_bound(),
// strong_convexity(), the variables (variable_count, variable_names, variable_ranks), and the
// pipelines with their metadata. Every pipeline takes the same inputs in one order (data images,
// scalars, x, x_prev, x_prev2 (each one buffer per variable), y_i, y_prev_i, sigma, tau, theta,
// res_sigma, res_tau, res_theta; `iterate` then sigma_k, tau_k, theta_k per level), then its
// outputs (the primal step and `feasible`: one buffer per variable). With `fused` (CPU targets,
// plans in one variable whose Ψ terms lie over its pixels): `step` writes {x⁺, y⁺_i components}
// in one call, `check` also the residuals' partial sums, `iterate` (iterations_per_call > 1) runs
// that many steps per call; otherwise `dual`, `primal` and `residual` (the partial sums) run
// separately.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "proxgen/algorithms/pock_chambolle.hpp"
#include "proxgen/aot/solver_base.hpp"
#include "proxgen/solve/step_rules.hpp"

namespace proxgen::aot {

template <class Description>
class PockChambolle : public SolverBase<Description, PockChambolle<Description>> {
    using Base = SolverBase<Description, PockChambolle<Description>>;
    friend Base;
    using Base::fail, Base::ran, Base::run, Base::data_arguments, Base::variables_buffers, Base::variable_list;
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
             {"eps_abs", options.eps_abs}, {"eps_rel", options.eps_rel}, {"tau", options.tau}, {"sigma", options.sigma}}};
        if (Status s = this->begin_init(variable_extents, data, options, ranges); s != Status::ok) return s;
        try {
            x_ = variables_buffers();
            for (auto& b : x_) {
                b.fill(0.0f);
                b.set_host_dirty();  // (a GPU target copies it to the device at the first step)
            }
            x_next_ = variables_buffers();
            x_spare_ = Description::iterations_per_call > 1 ? variables_buffers() : Variables();
            y_.clear();
            y_next_.clear();
            y_views_.clear();
            y_next_views_.clear();
            psi_elements_ = 0;
            std::vector<std::vector<int>> psi_shapes;
            for (int i = 0; i < Description::psi_terms; ++i) {
                const std::vector<int> s = Description::psi_shape(i, shapes_, images_.data());
                y_.push_back(state_buffer(s));
                y_.back().fill(0.0f);
                y_.back().set_host_dirty();
                y_next_.push_back(state_buffer(s));
                y_next_.back().fill(0.0f);
                y_next_.back().set_host_dirty();
                y_views_.push_back(Base::component_views(y_.back()));
                y_next_views_.push_back(Base::component_views(y_next_.back()));
                psi_elements_ += y_.back().number_of_elements();
                psi_shapes.push_back(s);
            }
            partials_ = this->partial_sums_buffer(psi_shapes, residual_quantities);  // (pc_residual_shapes)
            x_prev_ = variables_buffers();
            solution_ = Description::has_feasible ? variables_buffers() : Variables();
            // x_prev2 is read by the separate residual only
            x_prev2_ = Description::fused ? Variables() : variables_buffers();
        } catch (const std::bad_alloc&) {
            return fail(Status::out_of_memory, "cannot allocate the solver's state for extents " + Base::extents_text(shapes_));
        }
        restart();
        ready_ = true;
        return Status::ok;
    }

    /// set_x0 for several variables: one start per variable, in init_variables' order.
    Status set_x0_variables(const std::vector<Buffer>& x0) {
        last_error_message().clear();
        if (Status s = this->check_x0(x0); s != Status::ok) return s;
        for (int j = 0; j < Description::variable_count; ++j) {
            x_[j].set_device_dirty(false);  // overwritten whole: what a GPU last wrote there is stale
            x_[j].copy_from(x0[j]);
            x_[j].set_host_dirty();
        }
        for (auto& y : y_) {
            y.set_device_dirty(false);
            y.fill(0.0f);
            y.set_host_dirty();
        }
        restart();
        return Status::ok;
    }

    /// Variable j's value (Description::variable_names[j]; x() is x(0)), copied back from the device
    /// for GPU targets; with constraints on the variable itself (`Description::has_feasible`), its
    /// projection onto them, as pg::solve returns: the iterate meets a split constraint only up to
    /// the primal residual. An empty buffer, and a message in last_error(), for a j out of range.
    const Buffer& x(int j) {
        if (!this->variable_index(j)) return no_variable_;
        if constexpr (Description::has_feasible) {
            if (ready_) {
                std::array<float, 6> steps{};
                auto args = inputs(x_, x_prev_, x_prev2_, y_, y_, steps);
                for (auto& b : solution_) args.push_back(b.raw_buffer());
                if (run(&Description::feasible, args) == Status::ok) {
                    solution_[j].copy_to_host();
                    return solution_[j];
                }
            }
        }
        if (!ready_) return no_variable_;
        x_[j].copy_to_host();
        return x_[j];
    }

private:
    // the card runs the steps below (its Runner)
    friend class algorithms::PockChambolle;
    friend class algorithms::Loop<algorithms::PockChambolle>;
    static constexpr int n_psi = Description::psi_terms;
    /// The residual's quantities: P and Kᵀy per variable, then (D_i, K_i x) per Ψ term.
    static constexpr int residual_quantities = 2 * n_var + 2 * n_psi;

    Status check_library() {
        const int inputs = Description::image_slots + Description::scalar_slots + 3 * n_var + 2 * n_psi + 6 + n_psi;
        int components = 0;
        for (int i = 0; i < n_psi; ++i) components += Description::psi_components[i];
        auto arguments = &Base::arguments_of;
        bool ok;
        if constexpr (Description::fused) {
            ok = arguments(Description::step_metadata()) == inputs + 1 + components &&
                 arguments(Description::check_metadata()) == inputs + 2 + components &&
                 (Description::iterations_per_call == 1 ||
                  arguments(Description::iterate_metadata()) ==
                      inputs + 3 * Description::iterations_per_call + 2 + components);
        } else {
            ok = (n_psi == 0 || arguments(Description::dual_metadata()) == inputs + n_psi) &&
                 arguments(Description::primal_metadata()) == inputs + n_var &&
                 arguments(Description::residual_metadata()) == inputs + 1;
        }
        if constexpr (Description::has_feasible) ok = ok && arguments(Description::feasible_metadata()) == inputs + n_var;
        if (!ok) return fail(Status::bad_library, "the linked step pipelines do not match this header; regenerate both");
        return Status::ok;
    }

    // Same rules as detail::pc_steps.
    Status compute_steps() {
        // the JIT's step rules, read from this solver's data
        steps::Inputs in;
        std::array<double, (n_psi > 0 ? n_psi : 1)> norms{};
        if (Status s = this->step_inputs(in, norms.data()); s != Status::ok) return s;
        std::array<double, (n_psi > 0 ? n_psi : 1)> scales{};
        scales.fill(1.0);
        if (options_.precondition && n_psi >= 2)
            if (const double lp = steps::block_preconditioning(norms.data(), n_psi, scales.data()); lp > 0) in.norm = lp;
        for (int i = 0; i < n_psi; ++i) sigma_scales_[i] = float(scales[i]);
        in.tau = options_.tau;
        in.sigma = options_.sigma;
        in.accelerate = options_.accelerate;
        const steps::PockChambolle rule = Description::gradient_steps ? steps::condat_vu(in) : steps::pock_chambolle(in);
        if (steps::too_large(rule.product))
            return fail(Status::invalid_argument,
                        (Description::gradient_steps ? "tau * (sigma * ||K||^2 + L/2) = " : "tau * sigma * ||K||^2 = ") +
                            std::to_string(rule.product) + " > 1; the iteration may diverge");
        loop_ = algorithms::PockChambolle(rule, this->loop_options(options_));
        return Status::ok;
    }

    void restart() {  // allocates nothing: init made every buffer
        for (Variables* v : {&x_prev_, &x_prev2_})  // (no x_prev2 with fused kernels)
            for (std::size_t j = 0; j < v->size(); ++j) {
                Buffer& b = (*v)[j];
                b.set_device_dirty(false);  // overwritten whole: what a GPU last wrote there is stale
                b.copy_from(x_[j]);
                b.set_host_dirty();
            }
        loop_.restart();
        sync_state();
    }

    /// state() from the card's progress and steps.
    void sync_state() {
        const algorithms::PCSteps s = loop_.steps();
        this->sync_progress();
        state_.tau = s.tau;
        state_.sigma = s.sigma;
        state_.theta = s.theta;
    }

    /// The argument vector every pipeline shares; outputs are appended by the caller.
    std::vector<void*> inputs(Variables& x, Variables& x_prev, Variables& x_prev2, std::vector<Buffer>& y,
                              std::vector<Buffer>& y_prev, std::array<float, 6>& steps) {
        std::vector<void*> a;
        data_arguments(a);
        for (Variables* v : {&x, &x_prev, x_prev2.empty() ? &x_prev : &x_prev2})
            for (Buffer& b : *v) a.push_back(b.raw_buffer());
        for (auto& b : y) a.push_back(b.raw_buffer());
        for (auto& b : y_prev) a.push_back(b.raw_buffer());
        for (float& s : steps) a.push_back(&s);
        for (int i = 0; i < n_psi; ++i) a.push_back(&sigma_scales_[i]);
        return a;
    }

    // after a step wrote x_next_: x ← x_{n+1}, x_prev ← x_n, x_prev2 ← x_{n−1}
    void rotate_x() {
        Variables newest = std::move(x_next_);
        if (!x_prev2_.empty()) {
            x_next_ = std::move(x_prev2_);
            x_prev2_ = std::move(x_prev_);
        } else {
            x_next_ = std::move(x_prev_);
        }
        x_prev_ = std::move(x_);
        x_ = std::move(newest);
    }

    void swap_duals() {
        std::swap(y_, y_next_);  // y_next_ now holds the previous y
        std::swap(y_views_, y_next_views_);
    }

    // The card's Runner (proxgen/algorithms/pock_chambolle.hpp); iterations_per_call, record and
    // after_iteration are SolverBase's.
    /// One step (with `measure`, the one whose residuals are checked next).
    bool run_step(const algorithms::PCSteps& now, bool measure) {
        // sigma, tau, theta, res_sigma, res_tau, res_theta, as the JIT sets its float Params
        std::array<float, 6> steps{float(now.sigma), float(now.tau), float(now.theta),
                                   float(now.sigma), float(now.tau), float(now.theta)};
        if constexpr (Description::fused) {
            auto args = inputs(x_, x_prev_, x_prev2_, y_, y_next_, steps);
            args.push_back(x_next_.front().raw_buffer());  // (one variable: fused)
            for (auto& parts : y_next_views_)
                for (auto& b : parts) args.push_back(b.raw_buffer());
            if (measure) args.push_back(partials_.raw_buffer());
            if (!ran(measure ? &Description::check : &Description::step, args)) return false;
            swap_duals();
        } else {
            if constexpr (n_psi > 0) {  // (forward–backward, nothing split: no dual step)
                auto args = inputs(x_, x_prev_, x_prev2_, y_, y_, steps);
                for (auto& b : y_next_) args.push_back(b.raw_buffer());
                if (!ran(&Description::dual, args)) return false;
                swap_duals();
            }
            auto args = inputs(x_, x_prev_, x_prev2_, y_, y_next_, steps);
            for (auto& b : x_next_) args.push_back(b.raw_buffer());
            if (!ran(&Description::primal, args)) return false;
        }
        rotate_x();
        if constexpr (!Description::fused) {
            if (measure) {  // the residual quantities of the step just made, from the state after it
                auto args = inputs(x_, x_prev_, x_prev2_, y_, y_next_, steps);
                args.push_back(partials_.raw_buffer());
                if (!ran(&Description::residual, args)) return false;
            }
        }
        return true;
    }

    /// iterations_per_call steps in one call, level k's {σ, τ, θ} at levels[3k..3k+2].
    bool run_block(const float* levels) {
        std::array<float, 6> steps{levels[0], levels[1], levels[2], 0.f, 0.f, 0.f};
        std::array<float, 3 * Description::iterations_per_call> level_steps{};
        std::copy(levels, levels + level_steps.size(), level_steps.begin());
        auto args = inputs(x_, x_prev_, x_prev2_, y_, y_next_, steps);
        for (float& l : level_steps) args.push_back(&l);
        args.push_back(x_next_.front().raw_buffer());  // (one variable: blocks need fused kernels)
        args.push_back(x_spare_.front().raw_buffer());
        for (auto& parts : y_next_views_)
            for (auto& b : parts) args.push_back(b.raw_buffer());
        if (!ran(&Description::iterate, args)) return false;
        swap_duals();
        std::swap(x_, x_next_);  // x ← x_n, x_prev ← x_{n−1}
        std::swap(x_prev_, x_spare_);
        return true;
    }

    /// The last measured step's sums of squares, from the pipelines' partial sums.
    bool sums(algorithms::PCSums& out) {
        double totals[residual_quantities] = {};
        Base::partial_totals(partials_, totals);
        std::size_t n = 0;
        for (int j = 0; j < n_var; ++j) n += x_[j].number_of_elements();
        out = algorithms::pc_sums(totals, n_var, n_psi, double(n), double(psi_elements_));
        return true;
    }


    Options options_;
    Variables x_, x_prev_, x_prev2_, x_next_, x_spare_;  // x_spare_: x_{n−1} of a block
    Variables solution_;  // x projected onto the constraints on the variables (has_feasible)
    std::vector<Buffer> y_, y_next_;
    std::vector<std::vector<Buffer>> y_views_, y_next_views_;  // the fused kernels' Tuple elements
    Buffer partials_;  // the residual quantities' partial sums of squares
    std::size_t psi_elements_ = 0;
    algorithms::PockChambolle loop_;  // the algorithm's state and rules
    std::array<float, (n_psi > 0 ? n_psi : 1)> sigma_scales_{};  // term i's dual step is σ·scale_i
};

/// Condat–Vũ's generated solver: Pock–Chambolle's class over its card (proxgen/algorithms/
/// condat_vu.hpp); Description::gradient_steps selects the rule.
template <class Description>
using CondatVu = PockChambolle<Description>;

}  // namespace proxgen::aot
