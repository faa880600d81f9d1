// The Pock–Chambolle solver of a generated library: the algorithm's card (proxgen/algorithms/
// pock_chambolle.hpp: the loop the JIT runs too) over a runner calling the ahead-of-time step
// pipelines that the generated header `Description` names. Runtime-only (no libHalide).
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
#include "proxgen/aot/support.hpp"
#include "proxgen/check/rules.hpp"
#include "proxgen/solve/step_rules.hpp"

namespace proxgen::aot {

template <class Description>
class PockChambolle {
public:
    using Data = typename Description::Data;
    using Buffer = Halide::Runtime::Buffer<float>;
    /// One extents vector per variable (Halide order: width, height[, channels]).
    using Extents = typename Description::Extents;

    /// Checks and keeps the data, allocates the state (x = 0, y = 0) and computes the steps.
    /// `variable_extents`: the variable's extents in Halide order (width, height[, channels]). A
    /// problem in several variables takes init_variables.
    Status init(const std::vector<int>& variable_extents, const Data& data, const Options& options = {}) {
        if constexpr (Description::variable_count > 1) {
            install_error_handler();
            ready_ = false;
            return fail(Status::invalid_argument, "the problem has " + std::to_string(Description::variable_count) +
                                                      " variables (" + variable_list() +
                                                      "): pass each one's extents to init_variables, in that order");
        }
        return init_variables({variable_extents}, data, options);
    }

    /// The same for a problem in any number of variables: one extents vector per variable, in the
    /// order of Description::variable_names (the problem's order of first use).
    Status init_variables(const Extents& variable_extents, const Data& data, const Options& options = {}) {
        install_error_handler();
        last_error_message().clear();  // an ok leaves no earlier failure's message behind
        ready_ = false;
        if (Status s = check_library(); s != Status::ok) return s;
        if (Status s = check_variable_extents(variable_extents); s != Status::ok) return s;
        // the ranges and sentences of pg::Options (proxgen/check/rules.hpp)
        for (const auto& [name, value] :
             {std::pair<const char*, double>{"max_iters", double(options.max_iters)},
              {"check_every", double(options.check_every)},
              {"eps_abs", options.eps_abs}, {"eps_rel", options.eps_rel}, {"tau", options.tau}, {"sigma", options.sigma}})
            if (std::string m = rules::option(name, value); !m.empty()) return fail(Status::invalid_argument, "Options: " + m);
        data_ = data;
        options_ = options;
        shapes_ = variable_extents;
        Description::bind(data_, images_.data(), scalars_.data());
        for (int i = 0; i < Description::image_slots; ++i) {
            const halide_buffer_t* b = images_[i];
            const std::string what = std::string("data image '") + Description::image_names[i] + "'";
            if (!dense_float(b) || b->dimensions != Description::image_ranks[i])
                return fail(Status::invalid_argument, what + " must be a dense float32 buffer of rank " +
                                                          std::to_string(Description::image_ranks[i]));
            const std::vector<int> want = Description::image_shape(i, shapes_, images_.data());
            if (!want.empty() && want != extents(b))
                return fail(Status::shape_mismatch,
                            what + " is " + shape_text(extents(b)) + " but the problem needs " + shape_text(want));
            // the JIT's per-operator checks of sizes the header cannot fix (a conv kernel's)
            if (std::string m = Description::image_fit(i, shapes_, images_.data()); !m.empty())
                return fail(Status::shape_mismatch, what + ": " + m);
            if (std::string m = rules::finite_data(what, floats(b), extents(b)); !m.empty())
                return fail(Status::non_finite_input, m);
        }
        // the structure's rules the JIT checks when it builds the problem (haar's divisibility), on
        // extents that may depend on the (now checked) data images
        if (std::string m = Description::shape_fit(shapes_, images_.data()); !m.empty())
            return fail(Status::shape_mismatch, m);
        for (int i = 0; i < Description::scalar_slots; ++i) {
            const std::string what = std::string("scalar '") + Description::scalar_names[i] + "'";
            const std::string m = Description::scalar_is_weight[i] ? rules::weight(scalars_[i]) : rules::scale(scalars_[i]);
            if (!m.empty())
                return fail(std::isfinite(scalars_[i]) ? Status::invalid_argument : Status::non_finite_input,
                            what + ": " + m);
        }
        if (Status s = compute_steps(); s != Status::ok) return s;
        try {
            x_ = variables_buffers();
            for (auto& b : x_) b.fill(0.0f);
            x_next_ = variables_buffers();
            x_spare_ = Description::iterations_per_call > 1 ? variables_buffers() : Variables();
            y_.clear();
            y_next_.clear();
            y_views_.clear();
            y_next_views_.clear();
            psi_elements_ = 0;
            int rows = 1;
            for (const auto& v : shapes_) rows = std::max(rows, v.size() >= 2 ? v[1] : 1);
            for (int i = 0; i < Description::psi_terms; ++i) {
                const std::vector<int> s = Description::psi_shape(i, shapes_, images_.data());
                y_.push_back(state_buffer(s));
                y_.back().fill(0.0f);
                y_next_.push_back(state_buffer(s));
                y_next_.back().fill(0.0f);
                y_views_.push_back(views(y_.back()));
                y_next_views_.push_back(views(y_next_.back()));
                psi_elements_ += y_.back().number_of_elements();
                if (s.size() >= 2) rows = std::max(rows, s[1]);
            }
            // lower::square_sums: 16 lanes x strips of 16 rows x quantities (pc_residual_shapes)
            partials_ = state_buffer({16, (rows + 15) / 16, residual_quantities});
            x_prev_ = variables_buffers();
            solution_ = Description::has_feasible ? variables_buffers() : Variables();
            // x_prev2 is read by the separate residual only
            x_prev2_ = Description::fused ? Variables() : variables_buffers();
        } catch (const std::bad_alloc&) {
            return fail(Status::out_of_memory, "cannot allocate the solver's state for extents " + extents_text(shapes_));
        }
        restart();
        ready_ = true;
        return Status::ok;
    }

    /// Starts again from x0 (dense float32 with the variable's extents) and y = 0.
    Status set_x0(const Buffer& x0) { return set_x0_variables({x0}); }

    /// The same for several variables: one start per variable, in init_variables' order.
    Status set_x0_variables(const std::vector<Buffer>& x0) {
        last_error_message().clear();
        if (!ready_) return fail(Status::not_initialized, "set_x0 before a successful init");
        if (int(x0.size()) != Description::variable_count)
            return fail(Status::invalid_argument, "set_x0: the problem has " + std::to_string(Description::variable_count) +
                                                      " variables (" + variable_list() + "), got " +
                                                      std::to_string(x0.size()) + " starts");
        for (int j = 0; j < Description::variable_count; ++j) {
            const std::string what =
                n_var > 1 ? std::string("x0 of '") + Description::variable_names[j] + "'" : std::string("x0");
            if (!dense_float(x0[j].raw_buffer()) || extents(x0[j].raw_buffer()) != shapes_[j])
                return fail(Status::shape_mismatch, what + " must be dense float32 of extents " + shape_text(shapes_[j]));
            if (std::string m = rules::finite_data(what, floats(x0[j].raw_buffer()), shapes_[j]); !m.empty())
                return fail(Status::non_finite_input, m);
        }
        for (int j = 0; j < Description::variable_count; ++j) {
            x_[j].copy_from(x0[j]);
            x_[j].set_host_dirty();
        }
        for (auto& y : y_) {
            y.fill(0.0f);
            y.set_host_dirty();
        }
        restart();
        return Status::ok;
    }

    /// Runs up to `iterations` more iterations (fewer when the tolerances are met or max_iters is
    /// reached); residuals are measured as in solve().
    Status step(int iterations) {
        last_error_message().clear();
        if (!ready_) return fail(Status::not_initialized, "step before a successful init");
        if (iterations < 0) return fail(Status::invalid_argument, "step: iterations must be >= 0");
        const bool ok = loop_.run(*this, iterations);
        sync_state();
        return ok ? Status::ok : error_;
    }

    /// Iterates until the tolerances are met or options.max_iters iterations have run.
    Status solve() {
        last_error_message().clear();
        if (!ready_) return fail(Status::not_initialized, "solve before a successful init");
        while (!loop_.progress().finished) {
            const bool ok = loop_.run(*this, options_.max_iters);
            sync_state();
            if (!ok) return error_;
        }
        return Status::ok;
    }

    const State& state() const { return state_; }
    /// The current x (copied back from the device for GPU targets); with constraints on the
    /// variable itself (`Description::has_feasible`), its projection onto them, as pg::solve
    /// returns: the iterate meets a split constraint only up to the primal residual. Several
    /// variables: the first one's (x(j), variable(name) for each).
    const Buffer& x() { return x(0); }

    /// Variable j's value (Description::variable_names[j]); an empty buffer, and a message in
    /// last_error(), for a j out of range.
    const Buffer& x(int j) {
        if (j < 0 || j >= n_var) {
            fail(Status::invalid_argument, "x(" + std::to_string(j) + "): the problem's variables are 0.." +
                                               std::to_string(n_var - 1) + " (" + variable_list() + ")");
            return no_variable_;
        }
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

    /// The value of the variable named `name` in the problem; an empty buffer, and a message in
    /// last_error(), for a name the problem does not have.
    const Buffer& variable(const std::string& name) {
        for (int j = 0; j < Description::variable_count; ++j)
            if (name == Description::variable_names[j]) return x(j);
        fail(Status::invalid_argument, "the problem has no variable '" + name + "'; its variables are " + variable_list());
        return no_variable_;
    }

    const char* last_error() const { return last_error_message().c_str(); }

private:
    // the card runs the steps below (its Runner)
    friend class algorithms::PockChambolle;
    friend class algorithms::Loop<algorithms::PockChambolle>;
    using Variables = std::vector<Buffer>;  // one buffer per variable
    static constexpr int n_psi = Description::psi_terms, n_var = Description::variable_count;
    /// The residual's quantities: P and Kᵀy per variable, then (D_i, K_i x) per Ψ term.
    static constexpr int residual_quantities = 2 * n_var + 2 * n_psi;
    static constexpr int image_count = Description::image_slots > 0 ? Description::image_slots : 1;
    static constexpr int scalar_count = Description::scalar_slots > 0 ? Description::scalar_slots : 1;

    Status fail(Status s, const std::string& message) {
        last_error_message() = std::string(Description::name) + ": " + message;
        return s;
    }

    /// "x, y": the variables' names in order.
    static std::string variable_list() {
        std::string s;
        for (int j = 0; j < n_var; ++j) s += (j ? ", " : "") + std::string(Description::variable_names[j]);
        return s;
    }

    static std::string extents_text(const Extents& e) {
        std::string s;
        for (std::size_t j = 0; j < e.size(); ++j) s += (j ? ", " : "") + shape_text(e[j]);
        return s;
    }

    /// One extents vector per variable, each of its variable's rank and positive; the variable named.
    Status check_variable_extents(const Extents& e) {
        if (int(e.size()) != n_var) {
            std::string missing;
            for (int j = int(e.size()); j < n_var; ++j)
                missing += (missing.empty() ? "" : ", ") + std::string(Description::variable_names[j]);
            return fail(Status::invalid_argument,
                        "the problem has " + std::to_string(n_var) + " variable" + (n_var > 1 ? "s" : "") + " (" +
                            variable_list() + "), got extents for " + std::to_string(e.size()) +
                            (missing.empty() ? "" : "; missing: " + missing));
        }
        for (int j = 0; j < n_var; ++j) {
            // one variable keeps the sentences of the one-variable interface
            const std::string what =
                n_var > 1 ? std::string("variable '") + Description::variable_names[j] + "'" : std::string("the variable");
            if (int(e[j].size()) != Description::variable_ranks[j])
                return fail(Status::invalid_argument, what + " has rank " + std::to_string(Description::variable_ranks[j]) +
                                                          ", got " + std::to_string(e[j].size()) + " extents");
            for (int x : e[j])
                if (x < 1)
                    return fail(Status::invalid_argument,
                                (n_var > 1 ? what + ": extents" : std::string("variable extents")) + " must be >= 1, got " +
                                    shape_text(e[j]));
        }
        return Status::ok;
    }

    Variables variables_buffers() const {
        Variables v;
        for (const auto& s : shapes_) v.push_back(state_buffer(s));
        return v;
    }

    Status check_library() {
        const int inputs = Description::image_slots + Description::scalar_slots + 3 * n_var + 2 * n_psi + 6 + n_psi;
        int components = 0;
        for (int i = 0; i < n_psi; ++i) components += Description::psi_components[i];
        auto arguments = [](const halide_filter_metadata_t* m) { return m ? m->num_arguments : -1; };
        bool ok;
        if constexpr (Description::fused) {
            ok = arguments(Description::step_metadata()) == inputs + 1 + components &&
                 arguments(Description::check_metadata()) == inputs + 2 + components &&
                 (Description::iterations_per_call == 1 ||
                  arguments(Description::iterate_metadata()) ==
                      inputs + 3 * Description::iterations_per_call + 2 + components);
        } else {
            ok = arguments(Description::dual_metadata()) == inputs + n_psi &&
                 arguments(Description::primal_metadata()) == inputs + n_var &&
                 arguments(Description::residual_metadata()) == inputs + 1;
        }
        if constexpr (Description::has_feasible) ok = ok && arguments(Description::feasible_metadata()) == inputs + n_var;
        if (!ok) return fail(Status::bad_library, "the linked step pipelines do not match this header; regenerate both");
        return Status::ok;
    }

    // Same rules as detail::pc_steps.
    Status compute_steps() {
        std::array<double, (n_psi > 0 ? n_psi : 1)> norms{}, group_squares{};
        for (int i = 0; i < n_psi; ++i) {
            const double b = norms[i] = Description::norm_bound(i, images_.data(), scalars_.data());
            // pg::solve estimates a missing bound by power iteration, which needs K and Kᵀ
            // pipelines a generated solver does not have
            if (!(b > 0) || !std::isfinite(b))
                return fail(Status::invalid_argument, "the ||K|| bound of split term " + std::to_string(i) + " is " +
                                                          std::to_string(b) + " (all-zero data?); no step sizes");
            group_squares[Description::psi_groups[i]] += b * b;
        }
        // the JIT's step rules, read from this solver's data; ||K|| is the largest coupled group's
        steps::Inputs in;
        double worst = 0;
        for (double g : group_squares) worst = g > worst ? g : worst;
        in.norm = std::sqrt(worst);
        std::array<double, (n_psi > 0 ? n_psi : 1)> scales{};
        scales.fill(1.0);
        if (options_.precondition && n_psi >= 2)
            if (const double lp = steps::block_preconditioning(norms.data(), n_psi, scales.data()); lp > 0) in.norm = lp;
        for (int i = 0; i < n_psi; ++i) sigma_scales_[i] = float(scales[i]);
        in.strong_convexity = Description::strong_convexity(images_.data(), scalars_.data());
        in.curvature_scale = Description::curvature_scale(images_.data(), scalars_.data());
        in.tau = options_.tau;
        in.sigma = options_.sigma;
        in.accelerate = options_.accelerate;
        in.omega_empty = Description::omega_terms == 0;
        const steps::PockChambolle rule = steps::pock_chambolle(in);
        if (steps::too_large(rule.product))
            return fail(Status::invalid_argument, "tau * sigma * ||K||^2 = " + std::to_string(rule.product) +
                                                      " > 1; the iteration may diverge");
        algorithms::LoopOptions o;
        o.cadence = {options_.check_every, options_.max_iters, n_psi == 0};  // as the JIT's (a first check unsplit)
        o.eps_abs = options_.eps_abs;
        o.eps_rel = options_.eps_rel;
        o.data_unit = algorithms::data_unit(Description::data_peak(images_.data(), scalars_.data()));
        loop_ = algorithms::PockChambolle(rule, o);
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
        const algorithms::Progress& p = loop_.progress();
        const algorithms::PCSteps s = loop_.steps();
        state_.iterations = p.iterations;
        state_.converged = p.converged;
        state_.finished = p.finished;
        state_.primal_residual = p.last.primal;
        state_.dual_residual = p.last.dual;
        state_.eps_primal = p.last.eps_primal;
        state_.eps_dual = p.last.eps_dual;
        state_.tau = s.tau;
        state_.sigma = s.sigma;
        state_.theta = s.theta;
    }

    /// The argument vector every pipeline shares; outputs are appended by the caller.
    std::vector<void*> inputs(Variables& x, Variables& x_prev, Variables& x_prev2, std::vector<Buffer>& y,
                              std::vector<Buffer>& y_prev, std::array<float, 6>& steps) {
        std::vector<void*> a;
        for (int i = 0; i < Description::image_slots; ++i) a.push_back(images_[i]);
        for (int i = 0; i < Description::scalar_slots; ++i) a.push_back(&scalars_[i]);
        for (Variables* v : {&x, &x_prev, x_prev2.empty() ? &x_prev : &x_prev2})
            for (Buffer& b : *v) a.push_back(b.raw_buffer());
        for (auto& b : y) a.push_back(b.raw_buffer());
        for (auto& b : y_prev) a.push_back(b.raw_buffer());
        for (float& s : steps) a.push_back(&s);
        for (int i = 0; i < n_psi; ++i) a.push_back(&sigma_scales_[i]);
        return a;
    }

    Status run(int (*pipeline)(void**), std::vector<void*>& args) {
        last_error_message().clear();
        const int rc = pipeline(args.data());
        if (rc != 0)
            return fail(status_of_pipeline_error(rc), "step pipeline failed (Halide error " + std::to_string(rc) +
                                                          "): " + last_error_message());
        return Status::ok;
    }
    /// run() for the card's runner methods: false, with the status kept in error_, on a failure.
    bool ran(int (*pipeline)(void**), std::vector<void*>& args) {
        error_ = run(pipeline, args);
        return error_ == Status::ok;
    }

    /// The Tuple-element views of a Ψ state buffer (lower::components): itself, or its slices
    /// along the last axis.
    std::vector<Buffer> views(Buffer& b) {
        if (!Description::fused || b.dimensions() == Description::variable_rank) return {b};
        std::vector<Buffer> v;
        for (int k = 0; k < b.dim(b.dimensions() - 1).extent(); ++k) v.push_back(b.sliced(b.dimensions() - 1, k));
        return v;
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

    // The card's Runner (proxgen/algorithms/pock_chambolle.hpp).
    int iterations_per_call() const { return Description::iterations_per_call; }

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
            {
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
        partials_.copy_to_host();
        double totals[residual_quantities] = {};
        const int per_quantity = partials_.dim(0).extent() * partials_.dim(1).extent();
        for (int q = 0; q < residual_quantities; ++q)
            for (int i = 0; i < per_quantity; ++i) totals[q] += partials_.data()[q * per_quantity + i];
        std::size_t n = 0;
        for (int j = 0; j < n_var; ++j) n += x_[j].number_of_elements();
        out = algorithms::pc_sums(totals, n_var, n_psi, double(n), double(psi_elements_));
        return true;
    }

    algorithms::Verdict record(int it, const algorithms::Residuals& r, bool met) {
        if (!r.finite()) {
            error_ = fail(Status::diverged, "diverged at iteration " + std::to_string(it) + "; reduce the step sizes");
            return algorithms::Verdict::failed;
        }
        return met ? algorithms::Verdict::converged : algorithms::Verdict::go_on;
    }

    bool after_iteration(int) { return true; }

    Data data_;
    Options options_;
    Extents shapes_;  // each variable's extents
    std::array<halide_buffer_t*, image_count> images_{};
    std::array<float, scalar_count> scalars_{};
    Variables x_, x_prev_, x_prev2_, x_next_, x_spare_;  // x_spare_: x_{n−1} of a block
    Variables solution_;  // x projected onto the constraints on the variables (has_feasible)
    Buffer no_variable_;  // what x(j) returns for a j the problem does not have
    std::vector<Buffer> y_, y_next_;
    std::vector<std::vector<Buffer>> y_views_, y_next_views_;  // the fused kernels' Tuple elements
    Buffer partials_;  // the residual quantities' partial sums of squares
    std::size_t psi_elements_ = 0;
    algorithms::PockChambolle loop_;  // the algorithm's state and rules
    Status error_ = Status::ok;      // why the last runner call failed
    std::array<float, (n_psi > 0 ? n_psi : 1)> sigma_scales_{};  // term i's dual step is σ·scale_i
    bool ready_ = false;
    State state_;
};

}  // namespace proxgen::aot
