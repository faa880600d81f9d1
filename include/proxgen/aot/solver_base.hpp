// What every generated solver does the same whatever its algorithm (the algorithm's own state and
// runner are in proxgen/aot/<algorithm>.hpp, the class `Solver` that derives from this one):
// the public entry points around the algorithm's (init, set_x0, step, solve, state, x, variable),
// checking and binding the Data and the variables' extents, the options' ranges, x0, the variables'
// buffers, calling a step pipeline and turning its error into a Status. Runtime-only (no
// libHalide).
//
// `Solver` provides init_variables, set_x0_variables and x(j) (public), and loop_ (the algorithm's
// card), sync_state() and options_ (reachable by this base).
//
// `Description` (written by the generator) provides: Data (named buffers and scalars), the slot
// counts, ranks, names and rules (bind, image_shape, image_fit, shape_fit, scalar_is_weight), the
// variables (variable_count, variable_names, variable_ranks) and the name of the solver.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "proxgen/algorithms/norm_estimate.hpp"
#include "proxgen/aot/support.hpp"
#include "proxgen/check/rules.hpp"
#include "proxgen/solve/step_rules.hpp"

namespace proxgen::aot {

template <class Description, class Solver>
class SolverBase {
public:
    using Data = typename Description::Data;
    using Buffer = Halide::Runtime::Buffer<float>;
    /// One extents vector per variable (Halide order: width, height[, channels]).
    using Extents = typename Description::Extents;

    /// Checks and keeps the data, allocates the state (x = 0, the algorithm's other state 0) and
    /// computes the steps. `variable_extents`: the variable's extents in Halide order (width,
    /// height[, channels]). A problem in several variables takes init_variables.
    Status init(const std::vector<int>& variable_extents, const Data& data, const Options& options = {}) {
        if constexpr (n_var > 1) {
            install_error_handler();
            ready_ = false;
            return fail(Status::invalid_argument, "the problem has " + std::to_string(n_var) + " variables (" +
                                                      variable_list() +
                                                      "): pass each one's extents to init_variables, in that order");
        }
        return self().init_variables({variable_extents}, data, options);
    }

    /// Starts again from x0 (dense float32 with the variable's extents), the rest of the state 0.
    Status set_x0(const Buffer& x0) { return self().set_x0_variables({x0}); }

    /// Runs up to `iterations` more iterations (fewer when the tolerances are met or max_iters is
    /// reached); residuals are measured as in solve().
    Status step(int iterations) {
        last_error_message().clear();
        if (!ready_) return fail(Status::not_initialized, "step before a successful init");
        if (iterations < 0) return fail(Status::invalid_argument, "step: iterations must be >= 0");
        const bool ok = self().loop_.run(self(), iterations);
        self().sync_state();
        return ok ? self().stop_status() : error_;
    }

    /// Iterates until the tolerances are met or options.max_iters iterations have run.
    Status solve() {
        last_error_message().clear();
        if (!ready_) return fail(Status::not_initialized, "solve before a successful init");
        while (!self().loop_.progress().finished) {
            const bool ok = self().loop_.run(self(), self().options_.max_iters);
            self().sync_state();
            if (!ok) return error_;
        }
        return self().stop_status();
    }

    const State& state() const { return state_; }

    /// The first variable's value (x(j) and variable(name) for each).
    const Buffer& x() { return self().x(0); }

    /// The value of the variable named `name` in the problem; an empty buffer, and a message in
    /// last_error(), for a name the problem does not have.
    const Buffer& variable(const std::string& name) {
        const int j = variable_named(name);
        return j < 0 ? no_variable_ : self().x(j);
    }

    const char* last_error() const { return last_error_message().c_str(); }

protected:
    using Variables = std::vector<Buffer>;  // one buffer per variable
    static constexpr int n_var = Description::variable_count;
    static constexpr int image_count = Description::image_slots > 0 ? Description::image_slots : 1;
    static constexpr int scalar_count = Description::scalar_slots > 0 ? Description::scalar_slots : 1;

    Solver& self() { return static_cast<Solver&>(*this); }

    Status fail(Status s, const std::string& message) {
        last_error_message() = std::string(Description::name) + ": " + message;
        return s;
    }

    /// The start of every init_variables: the error handler installed, no earlier failure's message,
    /// not ready; the linked library, the variables' extents, the options' ranges
    /// (proxgen/check/rules.hpp: `names_values`, the algorithm's options with their values) and the
    /// data checked, kept and bound; then the algorithm's steps (Solver::compute_steps).
    template <std::size_t N>
    Status begin_init(const Extents& variable_extents, const Data& data, const Options& options,
                      const std::array<std::pair<const char*, double>, N>& names_values) {
        install_error_handler();
        last_error_message().clear();
        ready_ = false;
        if (Status s = self().check_library(); s != Status::ok) return s;
        for (int k = 0; k < Description::norm_grams; ++k)  // the ||K|| estimates' Gram pipelines
            if (arguments_of(Description::norm_gram_metadata(k)) !=
                Description::image_slots + Description::scalar_slots + 2 * n_var)
                return fail(Status::bad_library, "the linked norm_gram pipelines do not match this header; regenerate both");
        if (Status s = check_inputs(variable_extents, data, names_values); s != Status::ok) return s;
        self().options_ = options;
        return self().compute_steps();
    }

    /// Copies the card's progress into state() (Solver::sync_state adds the algorithm's steps).
    void sync_progress() {
        const algorithms::Progress& p = self().loop_.progress();
        state_.iterations = p.iterations;
        state_.converged = p.converged;
        state_.finished = p.finished;
        state_.primal_residual = p.last.primal;
        state_.dual_residual = p.last.dual;
        state_.eps_primal = p.last.eps_primal;
        state_.eps_dual = p.last.eps_dual;
    }

    // What every card's Runner answers alike (proxgen/algorithms/loop.hpp).
    int iterations_per_call() const { return Description::iterations_per_call; }
    algorithms::Verdict record(int it, const algorithms::Residuals& r, bool met) {
        if (!r.finite()) {
            error_ = fail(Status::diverged, "diverged at iteration " + std::to_string(it) + "; reduce the step sizes");
            return algorithms::Verdict::failed;
        }
        return met ? algorithms::Verdict::converged : algorithms::Verdict::go_on;
    }
    bool after_iteration(int) { return true; }
    /// What step() and solve() return when the card's loop ran without a failed step: ok, or why
    /// the runner stopped it (a Solver may say).
    Status stop_status() const { return Status::ok; }

private:
    /// The variables' extents, the options' ranges and the data: kept and bound when they pass.
    template <std::size_t N>
    Status check_inputs(const Extents& variable_extents, const Data& data,
                        const std::array<std::pair<const char*, double>, N>& names_values) {
        if (Status s = check_variable_extents(variable_extents); s != Status::ok) return s;
        for (const auto& [name, value] : names_values)
            if (std::string m = rules::option(name, value); !m.empty()) return fail(Status::invalid_argument, "Options: " + m);
        data_ = data;
        shapes_ = variable_extents;
        made_.clear();
        try {
            Description::bind(data_, images_.data(), scalars_.data(), made_);
        } catch (const std::bad_alloc&) {
            return fail(Status::out_of_memory, "cannot allocate the data the rewrite rules make of the inputs");
        }
        for (int i = 0; i < Description::image_slots; ++i)  // a caller's newer device copy first
            if (images_[i]->device_dirty()) halide_copy_to_host(nullptr, images_[i]);
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
        // Read and written on the host (checked here, made by bind): a GPU target copies them to the
        // device at the first step that reads them only when they are marked so
        for (int i = 0; i < Description::image_slots; ++i) images_[i]->set_host_dirty(true);
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
        return Status::ok;
    }

protected:
    /// set_x0's checks: one dense, finite start per variable with its extents.
    Status check_x0(const std::vector<Buffer>& x0) {
        if (!ready_) return fail(Status::not_initialized, "set_x0 before a successful init");
        if (int(x0.size()) != n_var)
            return fail(Status::invalid_argument, "set_x0: the problem has " + std::to_string(n_var) + " variables (" +
                                                      variable_list() + "), got " + std::to_string(x0.size()) +
                                                      " starts");
        for (int j = 0; j < n_var; ++j) {
            const std::string what =
                n_var > 1 ? std::string("x0 of '") + Description::variable_names[j] + "'" : std::string("x0");
            if (!dense_float(x0[j].raw_buffer()) || extents(x0[j].raw_buffer()) != shapes_[j])
                return fail(Status::shape_mismatch, what + " must be dense float32 of extents " + shape_text(shapes_[j]));
            if (std::string m = rules::finite_data(what, floats(x0[j].raw_buffer()), shapes_[j]); !m.empty())
                return fail(Status::non_finite_input, m);
        }
        return Status::ok;
    }

    /// Whether j names a variable; the message for one that does not.
    bool variable_index(int j) {
        if (j >= 0 && j < n_var) return true;
        fail(Status::invalid_argument, "x(" + std::to_string(j) + "): the problem's variables are 0.." +
                                           std::to_string(n_var - 1) + " (" + variable_list() + ")");
        return false;
    }

private:
    /// The index of the variable named `name`, or −1 (with the message).
    int variable_named(const std::string& name) {
        for (int j = 0; j < n_var; ++j)
            if (name == Description::variable_names[j]) return j;
        fail(Status::invalid_argument, "the problem has no variable '" + name + "'; its variables are " + variable_list());
        return -1;
    }

protected:
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

    Variables variables_buffers() const {
        Variables v;
        for (const auto& s : shapes_) v.push_back(state_buffer(s));
        return v;
    }

    /// The data images' and scalars' arguments, the first of every pipeline's.
    void data_arguments(std::vector<void*>& a) {
        for (int i = 0; i < Description::image_slots; ++i) a.push_back(images_[i]);
        for (int i = 0; i < Description::scalar_slots; ++i) a.push_back(&scalars_[i]);
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

    /// ‖K‖ of the stacked Ψ operators for the step rules, each Ψ term's into norms[i], and the Ω
    /// terms' for curvature_scale(), by the JIT's rule (detail::estimate_norms): the planner's
    /// bounds from the run-time data, each one that is not exact tightened by an estimate on the
    /// operator and data (the norm-estimate card over the generated Gram pipelines), then Σ‖K_i‖²
    /// within each coupled group of Ψ terms (Description::psi_groups), or the estimate of the
    /// group's stack where it is smaller (two or more general operators), the largest group's. A Ψ
    /// bound that is not positive and finite (all-zero data) fails: no step sizes.
    Status stacked_norm(double& norm, double* norms) {
        constexpr int n_psi = Description::psi_terms, n_omega = Description::omega_terms;
        psi_norms_.assign(std::size_t(n_psi), 0.0);
        omega_norms_.assign(std::size_t(n_omega), 0.0);
        std::array<double, (n_psi > 0 ? n_psi : 1)> group_squares{};
        std::array<int, (n_psi > 0 ? n_psi : 1)> group_general{};
        for (int i = 0; i < n_psi; ++i) {
            double b = Description::norm_bound(i, images_.data(), scalars_.data());
            if (!(b > 0) || !std::isfinite(b))
                return fail(Status::invalid_argument, "the ||K|| bound of split term " + std::to_string(i) + " is " +
                                                          std::to_string(b) + " (all-zero data?); no step sizes");
            if (Description::psi_norm_estimated[i])
                if (Status s = tightened(b, {Description::psi_gram[i]}, "split term " + std::to_string(i)); s != Status::ok)
                    return s;
            psi_norms_[std::size_t(i)] = norms[i] = b;
            group_squares[Description::psi_groups[i]] += b * b;
            group_general[Description::psi_groups[i]] += Description::psi_general[i] ? 1 : 0;
        }
        for (int j = 0; j < n_omega; ++j) {
            double b = Description::omega_norm_bound(j, images_.data(), scalars_.data());
            // (a gradient step needs ‖A‖: one without a bound is estimated, as the JIT's)
            if (b > 0 && (std::isfinite(b) || Description::omega_gradient_step[j]) && Description::omega_norm_estimated[j])
                if (Status s = tightened(b, {Description::omega_gram[j]}, "absorbed term " + std::to_string(j)); s != Status::ok)
                    return s;
            omega_norms_[std::size_t(j)] = b;
        }
        double worst = 0;
        for (int g = 0; g < n_psi; ++g) {
            double squares = group_squares[g];
            if (group_general[g] >= 2) {
                std::vector<int> grams;
                for (int i = 0; i < n_psi; ++i)
                    if (Description::psi_groups[i] == g) grams.push_back(Description::psi_gram[i]);
                double stacked = std::sqrt(squares);
                if (Status s = tightened(stacked, grams, "the stacked split terms"); s != Status::ok) return s;
                squares = stacked * stacked;
            }
            worst = std::max(worst, squares);
        }
        norm = std::sqrt(worst);
        return Status::ok;
    }

    /// What every algorithm's step rule reads of the plan and the data, as the JIT's step_inputs:
    /// ‖K‖ (stacked_norm; each Ψ term's into norms), Ω's strong convexity, curvature scale ω and
    /// Condat–Vũ's L (from the norms as tightened), whether Ω is empty. The algorithm adds its own options.
    Status step_inputs(steps::Inputs& in, double* norms) {
        if (Status s = stacked_norm(in.norm, norms); s != Status::ok) return s;
        in.strong_convexity = Description::strong_convexity(images_.data(), scalars_.data());
        in.curvature_scale =
            Description::curvature_scale(images_.data(), scalars_.data(), psi_norms_.data(), omega_norms_.data());
        in.smooth_lipschitz = Description::smooth_lipschitz(images_.data(), scalars_.data(), omega_norms_.data());
        if (Description::gradient_steps && !(in.smooth_lipschitz >= 0 && std::isfinite(in.smooth_lipschitz)))
            return fail(Status::invalid_argument, "the Lipschitz constant of the gradient-step terms is " +
                                                      std::to_string(in.smooth_lipschitz) + "; no step sizes");
        in.omega_empty = Description::omega_terms == 0;
        return Status::ok;
    }

    /// The loop's options from the solver's (as the JIT's loop_options).
    algorithms::LoopOptions loop_options(const Options& o) {
        algorithms::LoopOptions l;
        l.cadence = {o.check_every, o.max_iters, Description::psi_terms == 0};  // as the JIT's (a first check unsplit)
        l.eps_abs = o.eps_abs;
        l.eps_rel = o.eps_rel;
        l.data_unit = algorithms::data_unit(Description::data_peak(images_.data(), scalars_.data()));
        return l;
    }

    /// lower::square_sums' partial sums: 16 lanes x strips of 16 rows x `quantities`, the rows those
    /// of the variables and of the Ψ terms' shapes.
    Buffer partial_sums_buffer(const std::vector<std::vector<int>>& psi_shapes, int quantities) const {
        int rows = 1;
        for (const auto* list : {&shapes_, &psi_shapes})
            for (const auto& s : *list) rows = std::max(rows, s.size() >= 2 ? s[1] : 1);
        return state_buffer({16, (rows + 15) / 16, quantities});
    }

    /// Each quantity's total of the partial sums, in float64 in memory order (as the JIT's).
    static void partial_totals(Buffer& partials, double* totals) {
        partials.copy_to_host();
        const int per_quantity = partials.dim(0).extent() * partials.dim(1).extent();
        for (int q = 0; q < partials.dim(2).extent(); ++q) {
            totals[q] = 0;
            for (int i = 0; i < per_quantity; ++i) totals[q] += partials.data()[q * per_quantity + i];
        }
    }

    /// The Tuple-element views of a Ψ state buffer (lower::components) for fused kernels: itself,
    /// or its slices along the last axis.
    static std::vector<Buffer> component_views(Buffer& b) {
        if (!Description::fused || b.dimensions() == Description::variable_rank) return {b};
        std::vector<Buffer> v;
        for (int k = 0; k < b.dim(b.dimensions() - 1).extent(); ++k) v.push_back(b.sliced(b.dimensions() - 1, k));
        return v;
    }

    /// The number of arguments a linked pipeline takes (−1: none linked).
    static int arguments_of(const halide_filter_metadata_t* m) { return m ? m->num_arguments : -1; }

    Data data_;
    Extents shapes_;  // each variable's extents
    std::array<halide_buffer_t*, image_count> images_{};
    std::array<float, scalar_count> scalars_{};
    MadeData made_;  // data slots init made of the named inputs (Description::bind)
    Buffer no_variable_;        // what x(j) returns for a j the problem does not have
    Status error_ = Status::ok;  // why the last runner call failed
    bool ready_ = false;
    State state_;  // the card's progress and steps as the last call left them (Solver::sync_state)
    std::vector<double> psi_norms_, omega_norms_;  // each term's ‖K‖ as stacked_norm() tightened it

private:
    /// bound ← min(bound, the estimate of ‖[K_k…]‖ for these Gram pipelines).
    Status tightened(double& bound, const std::vector<int>& grams, const std::string& what) {
        struct Runner {
            SolverBase& base;
            const std::vector<int>& grams;
            Variables v;
            std::vector<Variables> w;
            std::size_t n = 0;
            std::size_t size() const { return n; }
            bool apply(const std::vector<double>& q, std::vector<double>& out) {
                std::size_t o = 0;
                for (Buffer& b : v) {
                    float* d = b.data();
                    for (std::size_t i = 0, m = b.number_of_elements(); i < m; ++i) d[i] = float(q[o + i]);
                    o += b.number_of_elements();
                    b.set_host_dirty();
                }
                std::fill(out.begin(), out.end(), 0.0);
                for (std::size_t k = 0; k < grams.size(); ++k) {
                    std::vector<void*> args;
                    base.data_arguments(args);
                    for (Buffer& b : v) args.push_back(b.raw_buffer());
                    for (Buffer& b : w[k]) args.push_back(b.raw_buffer());
                    last_error_message().clear();
                    if (const int rc = Description::norm_gram(grams[k], args.data()); rc != 0) {
                        base.error_ = base.fail(status_of_pipeline_error(rc), "estimating ||K||: the Gram pipeline failed "
                                                "(Halide error " + std::to_string(rc) + "): " + last_error_message());
                        return false;
                    }
                    for (Buffer& b : w[k]) b.copy_to_host();  // a GPU target's result is on the device
                }
                // Σ_k in float64 in the terms' order, as the JIT's
                o = 0;
                for (int j = 0; j < n_var; ++j) {
                    const std::size_t m = v[std::size_t(j)].number_of_elements();
                    for (std::size_t i = 0; i < m; ++i) {
                        double s = 0;
                        for (auto& wk : w) s += wk[std::size_t(j)].data()[i];
                        out[o + i] = s;
                    }
                    o += m;
                }
                return true;
            }
        };
        try {
            Runner run{*this, grams, variables_buffers(), {}, 0};
            for (std::size_t k = 0; k < grams.size(); ++k) run.w.push_back(variables_buffers());
            for (const Buffer& b : run.v) run.n += b.number_of_elements();
            double estimate = 0;
            // (the bound as the ceiling: an estimate that cannot end below it stops early, as the JIT's)
            const algorithms::NormEstimate outcome = algorithms::lanczos_norm(run, estimate, bound);
            switch (outcome) {
            case algorithms::NormEstimate::failed: return error_;
            case algorithms::NormEstimate::non_finite:
                return fail(Status::invalid_argument, "estimating ||K|| of " + what + ": the operator produced non-finite values");
            case algorithms::NormEstimate::ok: break;
            }
            bound = std::min(bound, estimate);
        } catch (const std::bad_alloc&) {
            return fail(Status::out_of_memory, "cannot allocate the ||K|| estimate's vectors");
        }
        return Status::ok;
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
};

}  // namespace proxgen::aot
