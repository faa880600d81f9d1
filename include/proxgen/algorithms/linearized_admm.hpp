// The linearized ADMM card (Parikh & Boyd, Proximal Algorithms §4.4.2), with z_i = K_i x:
//   x⁺ = prox_{μΩ}(x − (μ/λ) Kᵀ(K x − z + u)),  z⁺ = prox_{λΨ}(K x⁺ + u),  u⁺ = u + K x⁺ − z⁺.
// Its loop, written once over a runner of the steps: fixed λ (playing 1/ρ) and μ = λ/‖K‖², the
// check cadence, Boyd's residuals, stopping, and residual balancing that scales λ and μ together
// (μ/λ stays ≤ 1/‖K‖²) and the scaled dual u with them.
//
// A Runner provides:
//   int  iterations_per_call() const       n > 1: run_block runs n iterations with fixed steps
//   bool run_step(const LADMMSteps& s, bool measure)   one iteration (with `measure`, its sums)
//   bool run_block(const LADMMSteps& s)
//   bool sums(SplitSums& s)                the last measured step's sums
//   Verdict record(int it, const Residuals& r, bool met)
//   void rescale_dual(double factor)       u ← u · factor (before the next step reads it)
//   bool after_iteration(int it)           false stops the loop
#pragma once

#include "proxgen/algorithms/split.hpp"

namespace proxgen::algorithms {

struct LADMMSteps {
    double lambda = 1, mu = 1;
};

class LinearizedADMM : public Loop<LinearizedADMM> {
public:
    LinearizedADMM() = default;
    /// `adaptive`: residual balancing on (the rule's steps are its start).
    LinearizedADMM(const steps::LinearizedADMM& rule, bool adaptive, const LoopOptions& options)
        : Loop(options), rule_(rule), adaptive_(adaptive) {
        restart();
    }

    void restart() { restart({rule_.lambda, rule_.mu}, ResidualBalancing{}); }
    void restart(const LADMMSteps& steps, const ResidualBalancing& balancing) {
        steps_ = steps;
        balancing_ = balancing;
        reset_progress();
    }

    /// One iteration with its check, or n in one call when no check falls among them.
    template <class Runner>
    bool advance(Runner& runner, int allowed) {
        if (const int n = runner.iterations_per_call(); block_fits(n, allowed)) {
            if (!runner.run_block(steps_)) return false;
            blocked(n);
            return true;
        }
        const int it = progress_.iterations + 1;
        const bool measure = measured(it);
        if (!runner.run_step(steps_, measure)) return false;
        progress_.iterations = it;
        if (measure) {
            SplitSums s;
            if (!runner.sums(s)) return false;
            const SplitResiduals r = split_residuals(s, 1.0 / steps_.lambda, options_.eps_abs, options_.eps_rel,
                                                     options_.data_unit);
            Verdict v;
            if (!checked(runner, it, r.residuals, v)) return false;
            if (v == Verdict::go_on && adaptive_)
                if (const double f = balancing_.factor(r.relative); f != 1.0) {
                    steps_.lambda /= f;
                    steps_.mu /= f;
                    runner.rescale_dual(1.0 / f);
                }
        }
        ended(runner, it);
        return true;
    }

    /// The rule made from tighter norms than this one's (estimates that arrived after the run had
    /// started on the planner's bounds): λ and μ move by the factors between the two rules, keeping
    /// what the balancing did to them, and u (scaled by λ) with λ before the next step reads it.
    template <class Runner>
    void retune(Runner& runner, const steps::LinearizedADMM& rule) {
        const double fl = rule_.lambda > 0 ? rule.lambda / rule_.lambda : 1, fm = rule_.mu > 0 ? rule.mu / rule_.mu : 1;
        steps_.lambda *= fl;
        steps_.mu *= fm;
        rule_ = rule;
        if (fl != 1.0) runner.rescale_dual(fl);
    }

    LADMMSteps steps() const { return steps_; }
    const ResidualBalancing& balancing() const { return balancing_; }

private:
    steps::LinearizedADMM rule_;
    bool adaptive_ = false;
    LADMMSteps steps_;
    ResidualBalancing balancing_;
};

}  // namespace proxgen::algorithms
