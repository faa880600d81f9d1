// The ADMM card (Boyd et al. 2011), with z_i = K_i x and scaled duals u_i:
//   x⁺ = argmin Ω(x) + ρ/2 Σ‖K_i x − z_i + u_i‖²   (the plan's x-update: closed form, FFT, DCT, CG)
//   z⁺ = prox_{Ψ/ρ}(K x⁺ + u),  u⁺ = u + K x⁺ − z⁺.
// Its loop, written once over a runner of the steps: the penalty ρ, the check cadence, Boyd's
// residuals, stopping, and residual balancing of ρ with u rescaled to follow it.
//
// A Runner provides:
//   bool run_step(double rho, bool measure)   one iteration (with `measure`, its residual sums)
//   bool sums(SplitSums& s)                   the last measured step's sums
//   Verdict record(int it, const Residuals& r, bool met)
//   void rescale_dual(double factor)          u ← u · factor
//   bool after_iteration(int it)              false stops the loop
#pragma once

#include "proxgen/algorithms/split.hpp"

namespace proxgen::algorithms {

class ADMM {
public:
    ADMM() = default;
    /// `rho`: ρ₀; `adaptive`: residual balancing on.
    ADMM(double rho, bool adaptive, const LoopOptions& options) : rho0_(rho), adaptive_(adaptive), options_(options) {
        restart();
    }

    void restart() { restart(rho0_, ResidualBalancing{}); }
    void restart(double rho, const ResidualBalancing& balancing) {
        rho_ = rho;
        balancing_ = balancing;
        progress_ = Progress{};
        progress_.finished = options_.cadence.max_iters <= 0;
    }

    /// Runs until converged, stopped or max_iters, at most `allowed` more iterations; false when a
    /// step failed (the runner holds the error).
    template <class Runner>
    bool run(Runner& runner, int allowed) {
        for (; !progress_.finished && allowed > 0; --allowed)
            if (!advance(runner)) return false;
        return true;
    }

    template <class Runner>
    bool advance(Runner& runner) {
        Progress& p = progress_;
        const int it = p.iterations + 1;
        const bool measure = options_.cadence.at(it);
        if (!runner.run_step(rho_, measure)) return false;
        p.iterations = it;
        if (measure) {
            SplitSums s;
            if (!runner.sums(s)) return false;
            const SplitResiduals r = split_residuals(s, rho_, options_.eps_abs, options_.eps_rel);
            p.last = r.residuals;
            const Verdict v = runner.record(it, p.last, p.last.met(options_.eps_abs, options_.eps_rel));
            if (v == Verdict::failed) return false;
            if (v == Verdict::converged) p.converged = true;
            if (v == Verdict::stop) p.stopped = true;
            if (v == Verdict::go_on && adaptive_)
                if (const double f = balancing_.factor(r.relative); f != 1.0) {
                    rho_ *= f;
                    runner.rescale_dual(1.0 / f);
                }
        }
        if (!p.stopped && !runner.after_iteration(it)) p.stopped = true;
        p.finished = p.converged || p.stopped || it >= options_.cadence.max_iters;
        return true;
    }

    double rho() const { return rho_; }
    const ResidualBalancing& balancing() const { return balancing_; }
    const Progress& progress() const { return progress_; }

private:
    double rho0_ = 1, rho_ = 1;
    bool adaptive_ = false;
    LoopOptions options_;
    ResidualBalancing balancing_;
    Progress progress_;
};

}  // namespace proxgen::algorithms
