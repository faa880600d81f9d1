// The Pock–Chambolle card (primal–dual hybrid gradient, Chambolle & Pock 2011):
//   y⁺ = prox_{σF*}(y + σ K x̄),   x⁺ = prox_{τΩ}(x − τ Kᵀ y⁺),   x̄⁺ = x⁺ + θ (x⁺ − x).
// Its loop, written once for the JIT (src/solve/pock_chambolle.cpp) and for generated solvers
// (proxgen/aot/pock_chambolle.hpp), and Condat–Vũ's (proxgen/algorithms/condat_vu.hpp): the step schedule (fixed with τσ‖K‖² = 1, or Algorithm 2's
// acceleration θ = 1/√(1+2γτ), τ ← θτ, σ ← σ/θ when Ω is strongly convex), the check cadence, the
// residuals from one check's sums of squares, stopping, and residual balancing of τ/σ.
//
// A Runner runs the steps on its state (x, x̄'s history, the duals y_i) and provides:
//   int  iterations_per_call() const         n > 1: run_block runs n iterations in one call
//   bool run_step(const PCSteps& s, bool measure)
//        one iteration with these steps; with `measure`, also the sums of squares that sums()
//        reads (of this step's x, x_prev and y)
//   bool run_block(const float* levels)      n iterations, level k's {σ, τ, θ} at levels[3k..3k+2]
//   bool sums(PCSums& s)                     the last measured step's sums
//   Verdict record(int it, const Residuals& r, bool met)   met: the card's tolerance test
//   bool after_iteration(int it)             false stops the loop (a user's callback)
// Each returns false (Verdict::failed) when a step failed; the card then stops and returns false.
#pragma once

#include <vector>

#include "proxgen/algorithms/loop.hpp"
#include "proxgen/solve/step_rules.hpp"

namespace proxgen::algorithms {

/// The steps of one iteration: σ (dual), τ (primal), θ (extrapolation).
struct PCSteps {
    double sigma = 0, tau = 0, theta = 1;
};

/// One check's float64 sums of squares, over every variable and Ψ term: P = (x_prev − x)/τ −
/// Kᵀ(y_prev − y) (primal residual), Kᵀy (its scale), D = (y_prev − y)/σ − K(x̄_prev − x) (dual
/// residual), K x (its scale); and the element counts of x (n) and of every y (m).
struct PCSums {
    double primal = 0, kty = 0, dual = 0, kx = 0;
    double n = 0, m = 0;
};

/// The sums from the residual kernels' totals in their order (P and Kᵀy per variable, then (D_i,
/// K_i x) per Ψ term).
inline PCSums pc_sums(const double* totals, int variables, int psi_terms, double n, double m) {
    PCSums s;
    for (int j = 0; j < variables; ++j) {
        s.primal += totals[j];
        s.kty += totals[variables + j];
    }
    for (int i = 0; i < psi_terms; ++i) {
        s.dual += totals[2 * variables + 2 * i];
        s.kx += totals[2 * variables + 2 * i + 1];
    }
    s.n = n;
    s.m = m;
    return s;
}

/// The loop's state and rules. It holds no runner: each call takes the one whose state it advances
/// (so that a solver holding both stays copyable).
class PockChambolle : public Loop<PockChambolle> {
public:
    PockChambolle() = default;
    /// `rule`: the steps and their schedule (steps::pock_chambolle); restart(steps, balance) starts
    /// from a warm start's adapted steps instead.
    PockChambolle(const steps::PockChambolle& rule, const LoopOptions& options) : Loop(options), rule_(rule) {
        restart();
    }

    /// Algorithm 2 shrinks τ like 1/k, and the primal residual ‖(x_prev − x)/τ − Kᵀ(y_prev − y)‖ with
    /// it decays only like 1/k although the objective converges faster: TV denoising at 128² reached
    /// a better objective than linearized ADMM's converged one within 50 iterations but met the 1e-4
    /// tolerances only after 890. Once τ has shrunk by this factor the steps stay (θ = 1: plain PDHG
    /// from the step ratio the acceleration found, τσ unchanged): the same solve then converged
    /// after 70 iterations, 1.4e-5 from the optimum; on the convergence suite no problem needed
    /// more iterations to 1e-4 (denoise 100 → 90, volume 70 → 40; 10 took 90, 100 took 110).
    static constexpr double acceleration_range = 50;

    /// The steps after k: Algorithm 2's while τ > τ₀ / acceleration_range, then fixed.
    static void next(const steps::PockChambolle& rule, PCSteps& k) {
        if (!rule.accelerated) return;
        if (k.tau * acceleration_range <= rule.tau) {
            k.theta = 1;
            return;
        }
        steps::accelerate(rule.gamma, k.tau, k.sigma, k.theta);
    }
    /// The steps of n iterations from the rule's initial ones without balancing (fixed, or the
    /// accelerated sequence, fixed once it has shrunk τ by acceleration_range).
    static std::vector<PCSteps> schedule(const steps::PockChambolle& rule, int n) {
        std::vector<PCSteps> s;
        PCSteps k{rule.sigma, rule.tau, 1.0};
        for (int i = 0; i < n; ++i) {
            s.push_back(k);
            next(rule, k);
        }
        return s;
    }

    /// From the rule's initial steps, iteration 0.
    void restart() { restart({rule_.sigma, rule_.tau, 1.0}, steps::Balance{}); }
    void restart(const PCSteps& steps, const steps::Balance& balance) {
        steps_ = steps;
        balance_ = balance;
        reset_progress();
    }

    /// One iteration with its check, or, when the runner blocks iterations and no check falls among
    /// the next n (n ≤ allowed), n of them in one call with the schedule's steps precomputed.
    template <class Runner>
    bool advance(Runner& runner, int allowed) {
        if (const int n = runner.iterations_per_call(); block_fits(n, allowed)) {
            levels_.resize(3 * std::size_t(n));
            for (int k = 0; k < n; ++k) {
                levels_[3 * k] = float(steps_.sigma);
                levels_[3 * k + 1] = float(steps_.tau);
                levels_[3 * k + 2] = float(steps_.theta);
                next_steps();
            }
            if (!runner.run_block(levels_.data())) return false;
            blocked(n);
            return true;
        }
        const int it = progress_.iterations + 1;
        const bool measure = measured(it);
        if (!runner.run_step(steps_, measure)) return false;
        progress_.iterations = it;
        next_steps();
        if (measure) {
            PCSums s;
            Verdict v;
            if (!runner.sums(s) || !checked(runner, it, residuals(s), v)) return false;
            if (v == Verdict::go_on && rule_.adaptive) {
                const auto rel = steps::relative_residuals(progress_.last.primal, std::sqrt(s.kty), s.n,
                                                           progress_.last.dual, std::sqrt(s.kx), s.m);
                balance_.apply(rel.primal, rel.dual, steps_.tau, steps_.sigma);
                steps::keep_condition(rule_, steps_.tau, steps_.sigma);
            }
        }
        ended(runner, it);
        return true;
    }

    /// The rule made from tighter norms than this one's (estimates that arrived after the run had
    /// started on the planner's bounds): τ and σ move by the factors between the two rules' first
    /// steps, keeping what the schedule and the balancing did to them (their product, hence
    /// τσ‖K‖² = 1, and τ's place in Algorithm 2's range), and the balancing's range and revert target
    /// move with them. Condat–Vũ's condition is kept.
    void retune(const steps::PockChambolle& rule) {
        const double ft = rule_.tau > 0 ? rule.tau / rule_.tau : 1, fs = rule_.sigma > 0 ? rule.sigma / rule_.sigma : 1;
        steps_.tau *= ft;
        steps_.sigma *= fs;
        balance_.tau0 *= ft;
        balance_.sigma0 *= fs;
        rule_ = rule;
        steps::keep_condition(rule_, steps_.tau, steps_.sigma);
    }

    PCSteps steps() const { return steps_; }
    const steps::Balance& balance() const { return balance_; }
    const steps::PockChambolle& rule() const { return rule_; }

    /// The residuals and tolerances of one check's sums (the dual residual lives in K x's space: its
    /// absolute tolerance in the data's unit).
    Residuals residuals(const PCSums& s) const {
        Residuals r;
        r.primal = std::sqrt(s.primal);
        r.dual = std::sqrt(s.dual);
        r.eps_primal = tolerance(s.n, options_.eps_abs, options_.eps_rel, std::sqrt(s.kty));
        r.eps_dual = tolerance(s.m, options_.eps_abs * options_.data_unit, options_.eps_rel, std::sqrt(s.kx));
        return r;
    }

private:
    void next_steps() {
        next(rule_, steps_);
    }

    steps::PockChambolle rule_;
    PCSteps steps_;
    steps::Balance balance_;
    std::vector<float> levels_;
};

}  // namespace proxgen::algorithms
