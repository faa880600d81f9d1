// The Pock–Chambolle loop of a generated solver: the same iteration, step sizes, residuals and
// stopping rule as the JIT loop (src/solve/pock_chambolle.cpp), calling the ahead-of-time step
// pipelines that the generated header `Description` names. Runtime-only (no libHalide).
//
// `Description` (written by the generator) provides: Data (named buffers and scalars), the slot
// counts and ranks, bind(), image_shape(), psi_shape(), norm_bound(), strong_convexity(), and
// the three pipelines (dual, primal, residual) with their metadata. Every pipeline takes the same
// inputs in one order (data images, scalars, x, x_prev, x_prev2, y_i, y_prev_i, sigma, tau, theta,
// res_sigma, res_tau, res_theta), then its outputs.
#pragma once

#include <array>

#include "proxgen/aot/runtime.hpp"

namespace proxgen::aot {

template <class Description>
class PockChambolle {
public:
    using Data = typename Description::Data;
    using Buffer = Halide::Runtime::Buffer<float>;

    /// Checks and keeps the data, allocates the state (x = 0, y = 0) and computes the steps.
    /// `variable_extents`: the variable's extents in Halide order (width, height[, channels]).
    Status init(const std::vector<int>& variable_extents, const Data& data, const Options& options = {}) {
        install_error_handler();
        ready_ = false;
        if (Status s = check_library(); s != Status::ok) return s;
        if (int(variable_extents.size()) != Description::variable_rank)
            return fail(Status::invalid_argument, "the variable has rank " + std::to_string(Description::variable_rank) +
                                                      ", got " + std::to_string(variable_extents.size()) + " extents");
        for (int e : variable_extents)
            if (e < 1) return fail(Status::invalid_argument, "variable extents must be >= 1, got " + shape_text(variable_extents));
        if (options.max_iters < 0 || options.check_every < 1 || !(options.eps_abs >= 0) || !(options.eps_rel >= 0) ||
            !(options.tau >= 0) || !(options.sigma >= 0))
            return fail(Status::invalid_argument,
                        "options: need max_iters >= 0, check_every >= 1 and non-negative eps_abs, eps_rel, tau, sigma");
        data_ = data;
        options_ = options;
        shape_ = variable_extents;
        Description::bind(data_, images_.data(), scalars_.data());
        for (int i = 0; i < Description::image_slots; ++i) {
            const halide_buffer_t* b = images_[i];
            const std::string what = std::string("data image '") + Description::image_names[i] + "'";
            if (!dense_float(b) || b->dimensions != Description::image_ranks[i])
                return fail(Status::invalid_argument, what + " must be a dense float32 buffer of rank " +
                                                          std::to_string(Description::image_ranks[i]));
            const std::vector<int> want = Description::image_shape(i, shape_, images_.data());
            if (!want.empty() && want != extents(b))
                return fail(Status::shape_mismatch,
                            what + " is " + shape_text(extents(b)) + " but the problem needs " + shape_text(want));
            if (!all_finite(b)) return fail(Status::non_finite_input, what + " contains NaN or Inf");
        }
        for (int i = 0; i < Description::scalar_slots; ++i)
            if (!std::isfinite(scalars_[i]))
                return fail(Status::non_finite_input,
                            std::string("scalar '") + Description::scalar_names[i] + "' is not finite");
        if (Status s = compute_steps(); s != Status::ok) return s;
        try {
            x_ = state_buffer(shape_);
            x_.fill(0.0f);
            y_.clear();
            y_next_.clear();
            residual_.clear();
            psi_elements_ = 0;
            for (int i = 0; i < Description::psi_terms; ++i) {
                const std::vector<int> s = Description::psi_shape(i, shape_, images_.data());
                y_.push_back(state_buffer(s));
                y_.back().fill(0.0f);
                y_next_.push_back(state_buffer(s));
                y_next_.back().fill(0.0f);
                residual_.push_back(state_buffer(s));
                residual_.push_back(state_buffer(s));
                psi_elements_ += y_.back().number_of_elements();
            }
            r_primal_ = state_buffer(shape_);
            r_kty_ = state_buffer(shape_);
            x_prev_ = state_buffer(shape_);
            x_prev2_ = state_buffer(shape_);
        } catch (const std::bad_alloc&) {
            return fail(Status::out_of_memory, "cannot allocate the solver's state for extents " + shape_text(shape_));
        }
        restart();
        ready_ = true;
        return Status::ok;
    }

    /// Starts again from x0 (dense float32 with the variable's extents) and y = 0.
    Status set_x0(const Buffer& x0) {
        if (!ready_) return fail(Status::not_initialized, "set_x0 before a successful init");
        if (!dense_float(x0.raw_buffer()) || extents(x0.raw_buffer()) != shape_)
            return fail(Status::shape_mismatch, "x0 must be dense float32 of extents " + shape_text(shape_));
        if (!all_finite(x0.raw_buffer())) return fail(Status::non_finite_input, "x0 contains NaN or Inf");
        x_.copy_from(x0);
        x_.set_host_dirty();
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
        if (!ready_) return fail(Status::not_initialized, "step before a successful init");
        if (iterations < 0) return fail(Status::invalid_argument, "step: iterations must be >= 0");
        for (int left = iterations; left > 0 && !state_.finished;) {
            const int done = state_.iterations;
            if (Status s = iterate(left); s != Status::ok) return s;
            left -= state_.iterations - done;
        }
        return Status::ok;
    }

    /// Iterates until the tolerances are met or options.max_iters iterations have run.
    Status solve() {
        if (!ready_) return fail(Status::not_initialized, "solve before a successful init");
        while (!state_.finished)
            if (Status s = iterate(options_.max_iters); s != Status::ok) return s;
        return Status::ok;
    }

    const State& state() const { return state_; }
    /// The current x (copied back from the device for GPU targets).
    const Buffer& x() {
        x_.copy_to_host();
        return x_;
    }
    const char* last_error() const { return last_error_message().c_str(); }

private:
    static constexpr int n_psi = Description::psi_terms;
    static constexpr int image_count = Description::image_slots > 0 ? Description::image_slots : 1;
    static constexpr int scalar_count = Description::scalar_slots > 0 ? Description::scalar_slots : 1;

    Status fail(Status s, const std::string& message) {
        last_error_message() = std::string(Description::name) + ": " + message;
        return s;
    }

    Status check_library() {
        const int inputs = Description::image_slots + Description::scalar_slots + 3 + 2 * n_psi + 6;
        const int dual = Description::dual_metadata()->num_arguments, primal = Description::primal_metadata()->num_arguments,
                  residual = Description::residual_metadata()->num_arguments;
        const bool fused_ok = Description::iterations_per_call == 1 ||
                              Description::iterate_metadata()->num_arguments == inputs + 3 + 2 * n_psi;
        if (dual != inputs + n_psi || primal != inputs + 1 || residual != inputs + 2 + 2 * n_psi || !fused_ok)
            return fail(Status::bad_library, "the linked step pipelines do not match this header; regenerate both");
        return Status::ok;
    }

    // Same rules as detail::pc_steps.
    Status compute_steps() {
        double sum = 0;
        for (int i = 0; i < n_psi; ++i) {
            const double b = Description::norm_bound(i, images_.data(), scalars_.data());
            // pg::solve estimates a missing bound by power iteration, which needs K and Kᵀ
            // pipelines a generated solver does not have
            if (!(b > 0) || !std::isfinite(b))
                return fail(Status::invalid_argument, "the ||K|| bound of split term " + std::to_string(i) + " is " +
                                                          std::to_string(b) + " (all-zero data?); no step sizes");
            sum += b * b;
        }
        const double L = std::sqrt(sum);
        gamma_ = Description::strong_convexity(images_.data(), scalars_.data());
        accelerated_ = options_.accelerate && gamma_ > 0;
        const double t = options_.tau, s = options_.sigma;
        adaptive_ = false;
        if (L <= 0) {
            tau0_ = t > 0 ? t : 1.0;
            sigma0_ = 1.0;
        } else if (t > 0 && s > 0) {
            tau0_ = t, sigma0_ = s;
        } else if (t > 0) {
            tau0_ = t, sigma0_ = 1.0 / (t * L * L);
        } else if (s > 0) {
            sigma0_ = s, tau0_ = 1.0 / (s * L * L);
        } else {
            // σ₀ = ρ₀ = ω/‖K‖² (1 when nothing is smooth), as detail::admm_rho
            const double omega = Description::curvature_scale(images_.data(), scalars_.data());
            const double rho0 = omega > 0 ? omega / (L * L) : 1.0;
            tau0_ = accelerated_ ? 5.0 / gamma_ : 1.0 / (rho0 * L * L);
            sigma0_ = 1.0 / (tau0_ * L * L);
            adaptive_ = !accelerated_;
        }
        if (L > 0 && tau0_ * sigma0_ * L * L > 1.0 + 1e-6)
            return fail(Status::invalid_argument, "tau * sigma * ||K||^2 = " + std::to_string(tau0_ * sigma0_ * L * L) +
                                                      " > 1; the iteration may diverge");
        return Status::ok;
    }

    void restart() {  // allocates nothing: init made every buffer
        for (Buffer* b : {&x_prev_, &x_prev2_}) {
            b->set_device_dirty(false);  // overwritten whole: what a GPU last wrote there is stale
            b->copy_from(x_);
            b->set_host_dirty();
        }
        state_ = State{};
        state_.tau = tau0_;
        state_.sigma = sigma0_;
        state_.finished = options_.max_iters == 0;
        adapt_ = 0.5;  // Goldstein et al.'s α₀
    }

    /// The argument vector every pipeline shares; outputs are appended by the caller.
    std::vector<void*> inputs(Buffer& x, Buffer& x_prev, Buffer& x_prev2, std::vector<Buffer>& y,
                              std::vector<Buffer>& y_prev, std::array<float, 6>& steps) {
        std::vector<void*> a;
        for (int i = 0; i < Description::image_slots; ++i) a.push_back(images_[i]);
        for (int i = 0; i < Description::scalar_slots; ++i) a.push_back(&scalars_[i]);
        for (Buffer* b : {&x, &x_prev, &x_prev2}) a.push_back(b->raw_buffer());
        for (auto& b : y) a.push_back(b.raw_buffer());
        for (auto& b : y_prev) a.push_back(b.raw_buffer());
        for (float& s : steps) a.push_back(&s);
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

    /// One iteration of detail::pock_chambolle's loop, or, with fixed steps and a fused pipeline,
    /// iterations_per_call of them when that many remain (at most `allowed`) before the next
    /// residual check.
    Status iterate(int allowed) {
        State& s = state_;
        const double theta_used = s.theta, sigma_used = s.sigma, tau_used = s.tau;
        // sigma, tau, theta, res_sigma, res_tau, res_theta, as the JIT sets its float Params
        std::array<float, 6> steps{float(s.sigma), float(s.tau), float(s.theta), 0.f, 0.f, 0.f};
        const int check_every = options_.check_every;
        const int next_check = std::min(options_.max_iters, (s.iterations / check_every + 1) * check_every);
        constexpr int fused = Description::iterations_per_call;
        if (fused > 1 && !accelerated_ && next_check - s.iterations >= fused && allowed >= fused) {
            if (Status st = run_fused(steps); st != Status::ok) return st;
            s.iterations += fused;
        } else {
            if (Status st = run_one(steps); st != Status::ok) return st;
            s.iterations += 1;
            if (accelerated_) {
                s.theta = 1.0 / std::sqrt(1.0 + 2.0 * gamma_ * s.tau);
                s.tau *= s.theta;
                s.sigma /= s.theta;
            }
        }
        const int it = s.iterations;
        const bool last = it >= options_.max_iters;
        if (it % check_every == 0 || last) {
            steps[3] = float(sigma_used);
            steps[4] = float(tau_used);
            steps[5] = float(theta_used);
            if (Status st = check(it, steps); st != Status::ok) return st;
        }
        s.finished = s.converged || last;
        return Status::ok;
    }

    Status run_one(std::array<float, 6>& steps) {
        {
            auto args = inputs(x_, x_prev_, x_prev2_, y_, y_, steps);
            for (auto& b : y_next_) args.push_back(b.raw_buffer());
            if (Status st = run(&Description::dual, args); st != Status::ok) return st;
            std::swap(y_, y_next_);  // y_next_ now holds the previous y
        }
        auto args = inputs(x_, x_prev_, x_prev_, y_, y_next_, steps);
        args.push_back(x_prev2_.raw_buffer());
        if (Status st = run(&Description::primal, args); st != Status::ok) return st;
        // rotate: x ← x_{n+1} (just written), x_prev ← x_n, x_prev2 ← x_{n−1}
        Buffer newest = std::move(x_prev2_);
        x_prev2_ = std::move(x_prev_);
        x_prev_ = std::move(x_);
        x_ = std::move(newest);
        return Status::ok;
    }

    Status run_fused(std::array<float, 6>& steps) {
        if (fused_x_.size() != 3) {  // outputs: x_n, x_{n−1}, x_{n−2}, y_n, y_{n−1}
            try {
                fused_x_.assign({state_buffer(shape_), state_buffer(shape_), state_buffer(shape_)});
                fused_y_.clear();
                for (int k = 0; k < 2; ++k)
                    for (auto& y : y_) fused_y_.push_back(state_buffer(extents(y.raw_buffer())));
            } catch (const std::bad_alloc&) {
                fused_x_.clear();
                fused_y_.clear();
                return fail(Status::out_of_memory, "cannot allocate the fused iteration's outputs");
            }
        }
        auto args = inputs(x_, x_prev_, x_prev2_, y_, y_next_, steps);
        for (auto& b : fused_x_) args.push_back(b.raw_buffer());
        for (auto& b : fused_y_) args.push_back(b.raw_buffer());
        if (Status st = run(&Description::iterate, args); st != Status::ok) return st;
        std::swap(x_, fused_x_[0]);
        std::swap(x_prev_, fused_x_[1]);
        std::swap(x_prev2_, fused_x_[2]);
        for (int i = 0; i < n_psi; ++i) {
            std::swap(y_[i], fused_y_[i]);
            std::swap(y_next_[i], fused_y_[n_psi + i]);  // y_next_ holds the previous y, as after run_one
        }
        return Status::ok;
    }

    Status check(int it, std::array<float, 6>& steps) {
        State& s = state_;
        auto args = inputs(x_, x_prev_, x_prev2_, y_, y_next_, steps);
        args.push_back(r_primal_.raw_buffer());
        args.push_back(r_kty_.raw_buffer());
        for (auto& b : residual_) args.push_back(b.raw_buffer());
        if (Status st = run(&Description::residual, args); st != Status::ok) return st;
        double d2 = 0, kx2 = 0;
        for (int i = 0; i < n_psi; ++i) {
            d2 += std::pow(norm2(residual_[2 * i]), 2);
            kx2 += std::pow(norm2(residual_[2 * i + 1]), 2);
        }
        const double sqrt_n = std::sqrt(double(x_.number_of_elements())), sqrt_m = std::sqrt(double(psi_elements_));
        s.primal_residual = norm2(r_primal_);
        s.dual_residual = std::sqrt(d2);
        s.eps_primal = sqrt_n * options_.eps_abs + options_.eps_rel * norm2(r_kty_);
        s.eps_dual = sqrt_m * options_.eps_abs + options_.eps_rel * std::sqrt(kx2);
        if (!std::isfinite(s.primal_residual) || !std::isfinite(s.dual_residual))
            return fail(Status::diverged, "diverged at iteration " + std::to_string(it) + "; reduce the step sizes");
        const bool tolerance_set = options_.eps_abs > 0 || options_.eps_rel > 0;
        s.converged = tolerance_set && s.primal_residual <= s.eps_primal && s.dual_residual <= s.eps_dual;
        if (adaptive_ && !s.converged) balance_steps(s.primal_residual / sqrt_n, s.dual_residual / sqrt_m);
        return Status::ok;
    }

    // Adaptive PDHG (Goldstein, Li, Yuan, Esser & Baraniuk 2015), as the JIT loop's balance_steps:
    // shift τ/σ towards the lagging residual (τσ kept), with a geometrically decaying shift.
    void balance_steps(double primal_rms, double dual_rms) {
        constexpr double delta = 2.0, eta = 0.5;  // as detail::balance_steps
        State& s = state_;
        if (primal_rms > delta * dual_rms) {
            s.tau /= 1 - adapt_;
            s.sigma *= 1 - adapt_;
        } else if (dual_rms > delta * primal_rms) {
            s.tau *= 1 - adapt_;
            s.sigma /= 1 - adapt_;
        } else {
            return;
        }
        adapt_ *= eta;
    }

    Data data_;
    Options options_;
    std::vector<int> shape_;
    std::array<halide_buffer_t*, image_count> images_{};
    std::array<float, scalar_count> scalars_{};
    Buffer x_, x_prev_, x_prev2_, r_primal_, r_kty_;
    std::vector<Buffer> y_, y_next_, residual_;  // residual_: (dual residual, K x) per Ψ term
    std::vector<Buffer> fused_x_, fused_y_;       // outputs of the fused pipeline, swapped in
    std::size_t psi_elements_ = 0;
    double tau0_ = 1, sigma0_ = 1, gamma_ = 0;
    double adapt_ = 0.5;
    bool accelerated_ = false, adaptive_ = false, ready_ = false;
    State state_;
};

}  // namespace proxgen::aot
