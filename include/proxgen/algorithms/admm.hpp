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

class ADMM : public Loop<ADMM> {
public:
    ADMM() = default;
    /// `rho`: ρ₀; `adaptive`: residual balancing on.
    ADMM(double rho, bool adaptive, const LoopOptions& options) : Loop(options), rho0_(rho), adaptive_(adaptive) {
        restart();
    }

    void restart() { restart(rho0_, ResidualBalancing{}); }
    void restart(double rho, const ResidualBalancing& balancing) {
        rho_ = rho;
        balancing_ = balancing;
        reset_progress();
    }

    /// One iteration with its check.
    template <class Runner>
    bool advance(Runner& runner, int /*allowed*/) {
        const int it = progress_.iterations + 1;
        const bool measure = measured(it);
        if (!runner.run_step(rho_, measure)) return false;
        progress_.iterations = it;
        if (measure) {
            SplitSums s;
            if (!runner.sums(s)) return false;
            const SplitResiduals r = split_residuals(s, rho_, options_.eps_abs, options_.eps_rel,
                                                     options_.data_unit);
            Verdict v;
            if (!checked(runner, it, r.residuals, v)) return false;
            if (v == Verdict::go_on && adaptive_)
                if (const double f = balancing_.factor(r.relative); f != 1.0) {
                    rho_ *= f;
                    runner.rescale_dual(1.0 / f);
                }
        }
        ended(runner, it);
        return true;
    }

    /// ρ₀ made from tighter norms than this one's (estimates that arrived after the run had started
    /// on the planner's bounds): ρ moves by the same factor, keeping what the balancing did, and the
    /// scaled dual u = y/ρ against it before the next step reads it.
    template <class Runner>
    void retune(Runner& runner, double rho0) {
        const double f = rho0_ > 0 ? rho0 / rho0_ : 1;
        rho0_ = rho0;
        rho_ *= f;
        if (f != 1.0) runner.rescale_dual(1.0 / f);
    }

    double rho() const { return rho_; }
    const ResidualBalancing& balancing() const { return balancing_; }

private:
    double rho0_ = 1, rho_ = 1;
    bool adaptive_ = false;
    ResidualBalancing balancing_;
};

}  // namespace proxgen::algorithms
