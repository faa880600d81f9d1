// The step-size rules of the algorithms, written once and read by the JIT's loops (src/solve) and
// by the generated solvers' loops (proxgen/aot/): header-only, depending on nothing but <cmath>,
// so that a deployed solver compiles it without ProxGen's library. Each rule takes the numbers a
// plan gives (‖K‖ of the stacked split operators, Ω's strong convexity γ, the smooth terms'
// curvature scale ω) and the user's requests (0: automatic).
#pragma once

#include <cmath>

namespace proxgen::steps {

/// What the step rules read of a planned problem and its options.
struct Inputs {
    double norm = 0;              ///< ‖K‖ bound of the stacked Ψ operators (0: nothing is split)
    double strong_convexity = 0;  ///< γ: Ω(x) − γ/2‖x‖² is convex
    double curvature_scale = 0;   ///< ω: Σ α β² ‖K‖² c over the smooth terms (0: none)
    double smooth_lipschitz = 0;  ///< Condat–Vũ: L of ∇h, its gradient-step terms (0: none)
    double tau = 0, sigma = 0;    ///< Pock–Chambolle's requested steps (0: automatic)
    double lambda = 0, mu = 0;    ///< linearized ADMM's requested steps (0: automatic)
    bool accelerate = true;       ///< Pock–Chambolle's Algorithm 2 when Ω is strongly convex
    bool adapt = true;            ///< residual balancing of automatic steps (Options::adaptive_rho)
    bool omega_empty = false;     ///< no term is absorbed into the x-update
};

/// Whether residual balancing runs (PC's τ/σ, L-ADMM's λ, ADMM's ρ): asked for, and Ω (the terms
/// the x-update absorbs) not empty. With Ω = 0, PC's primal residual (x − x⁺)/τ is Kᵀy⁺ itself, so
/// its size relative to its scale is 1 at every iterate and says nothing about the steps; on the
/// convergence suite's two such problems (Poisson deblurring, l1 deblurring + TV) the balanced runs
/// of PC, L-ADMM and ADMM took up to 3× the iterations of fixed steps to 1e-4, and never fewer
/// (docs/performance.md).
inline bool balance_residuals(const Inputs& in) { return in.adapt && !in.omega_empty; }

/// ADMM's ρ₀ (and what σ and 1/λ start from): ω/‖K‖², the curvature of the smooth terms per unit of
/// ‖K‖², or 1 when nothing is smooth.
inline double initial_rho(double curvature_scale, double norm) {
    return curvature_scale > 0 && norm > 0 ? curvature_scale / (norm * norm) : 1.0;
}

struct PockChambolle {
    double tau = 1, sigma = 1, gamma = 0;
    bool accelerated = false;
    bool adaptive = false;  ///< balance τ/σ from the residuals (automatic steps without acceleration)
    /// τσ‖K‖² (Condat–Vũ: τ(σ‖K‖² + L/2)), which must not exceed 1 (the caller reports a larger
    /// one: the iteration may diverge).
    double product = 0;
    /// Condat–Vũ: L of ∇h (0: Pock–Chambolle, or nothing smooth) and the ‖K‖² its condition reads.
    double smooth = 0, norm2 = 0;
};

/// Pock–Chambolle's initial steps. Accelerated: γτ₀ = 5 starts the θ_n decay at once without a tiny
/// σ₀ (measured on TV denoising: 1e-4 of the optimum in ~200 iterations, vs ~1000 from
/// τ₀ = 1/‖K‖). Otherwise σ₀ = ADMM's ρ₀ (σ plays ρ: the dual step), τ₀ = 1/(σ₀‖K‖²), then adapted.
inline PockChambolle pock_chambolle(const Inputs& in) {
    PockChambolle s;
    const double L = in.norm;
    s.gamma = in.strong_convexity;
    s.accelerated = in.accelerate && s.gamma > 0;
    if (L <= 0) {  // nothing split: the x-update alone solves the problem
        // x⁺ = prox_τΩ(x) is then a proximal-point step, whose error shrinks by 1/(1 + γτ): with a
        // strongly convex Ω a step of γτ = 1e6 makes the first x-update the minimizer to float32
        // precision (and the accelerated rule, which shrinks τ, would only slow it down)
        s.accelerated = false;
        s.tau = in.tau > 0 ? in.tau : s.gamma > 0 ? 1e6 / s.gamma : 1.0;
        s.sigma = 1.0;
        return s;
    }
    if (in.tau > 0 && in.sigma > 0) {
        s.tau = in.tau;
        s.sigma = in.sigma;
    } else if (in.tau > 0) {
        s.tau = in.tau;
        s.sigma = 1.0 / (s.tau * L * L);
    } else if (in.sigma > 0) {
        s.sigma = in.sigma;
        s.tau = 1.0 / (s.sigma * L * L);
    } else {
        s.tau = s.accelerated ? 5.0 / s.gamma : 1.0 / (initial_rho(in.curvature_scale, L) * L * L);
        s.sigma = 1.0 / (s.tau * L * L);
        s.adaptive = !s.accelerated && balance_residuals(in);
    }
    s.product = s.tau * s.sigma * L * L;
    return s;
}

/// Condat–Vũ's margin below its condition τ(σ‖K‖² + L/2) ≤ 1: at equality the iteration may stall.
inline constexpr double condat_vu_margin = 0.99;

/// Condat–Vũ's steps (Condat 2013, Algorithm 3.2, ρ = 1): Pock–Chambolle's with a gradient step on h,
/// under the condition 1/τ − σ‖K‖² ≥ L/2. σ₀ is PC's (ADMM's ρ₀), then τ₀ the largest the
/// condition allows with condat_vu_margin; nothing split (‖K‖ = 0): forward–backward with
/// τ = margin · 2/L. A requested τ or σ sets the other from the condition; both requested are
/// taken as given (product says whether they meet it). Balanced like PC's (keep_condition clamps
/// τ after each move); never accelerated (Algorithm 2's τ-shrinking rule is PC's, with L = 0).
inline PockChambolle condat_vu(const Inputs& in) {
    const double h = in.smooth_lipschitz;
    if (!(h > 0)) return pock_chambolle(in);  // nothing smooth: Pock–Chambolle itself
    PockChambolle s;
    const double L2 = in.norm * in.norm;
    s.smooth = h;
    s.norm2 = L2;
    s.gamma = in.strong_convexity;
    if (in.norm <= 0) {
        s.sigma = 1.0;
        s.tau = in.tau > 0 ? in.tau : condat_vu_margin * 2.0 / h;
    } else if (in.tau > 0 && in.sigma > 0) {
        s.tau = in.tau;
        s.sigma = in.sigma;
    } else if (in.tau > 0) {
        s.tau = in.tau;
        s.sigma = (condat_vu_margin / s.tau - h / 2) / L2;
        if (!(s.sigma > 0)) s.sigma = condat_vu_margin / (s.tau * L2);  // reported through product
    } else {
        s.sigma = in.sigma > 0 ? in.sigma : initial_rho(in.curvature_scale, in.norm);
        s.tau = condat_vu_margin / (s.sigma * L2 + h / 2);
        s.adaptive = in.sigma <= 0 && balance_residuals(in);
    }
    s.product = s.tau * (s.sigma * L2 + h / 2);
    return s;
}

/// After a balancing move of Condat–Vũ's steps: τ no larger than its condition allows at this σ
/// (balancing keeps τσ, so a larger τ would also raise τL/2). Pock–Chambolle's rule: unchanged.
inline void keep_condition(const PockChambolle& rule, double& tau, double sigma) {
    if (rule.smooth > 0) tau = std::fmin(tau, condat_vu_margin / (sigma * rule.norm2 + rule.smooth / 2));
}

/// Block-diagonal preconditioning (Pock & Chambolle 2011, α = 1, on the Ψ terms' blocks): term i's
/// dual step is σ·s_i with s_i = max_j‖K_j‖ / ‖K_i‖, and the rule above runs with the returned
/// norm L_p = √(Σ_i s_i‖K_i‖²) = √(max_j‖K_j‖ · Σ_i‖K_i‖) in place of ‖K‖. Then
/// ‖Σ^{1/2} K T^{1/2}‖² ≤ τσ Σ_i s_i‖K_i‖² = τσ L_p² ≤ 1 (the blocks' Gram matrices summed), the
/// condition of their Lemma 2; the largest operator keeps s = 1, so σ₀'s curvature heuristic reads
/// as before, and small operators (data terms beside a TV) get proportionally larger dual steps.
/// norms[i] ≤ 0 or non-finite: no scaling (returns 0, scales 1).
inline double block_preconditioning(const double* norms, int n, double* scales) {
    double largest = 0, sum = 0;
    bool ok = n > 0;
    for (int i = 0; i < n; ++i) {
        scales[i] = 1.0;
        ok = ok && norms[i] > 0 && std::isfinite(norms[i]);
        if (ok) largest = std::fmax(largest, norms[i]), sum += norms[i];
    }
    if (!ok) return 0;
    for (int i = 0; i < n; ++i) scales[i] = largest / norms[i];
    return std::sqrt(largest * sum);
}

/// Whether τσ‖K‖² exceeds 1 beyond rounding.
inline bool too_large(double product) { return product > 1.0 + 1e-6; }

/// Algorithm 2 of Chambolle & Pock: θ = 1/√(1 + 2γτ), τ ← θτ, σ ← σ/θ.
inline void accelerate(double gamma, double& tau, double& sigma, double& theta) {
    theta = 1.0 / std::sqrt(1.0 + 2.0 * gamma * tau);
    tau *= theta;
    sigma /= theta;
}

/// The safeguard of residual balancing (PC's Balance, ADMM's and L-ADMM's ResidualBalancing),
/// called at every check with the relative residuals the balancing compares. Balancing is only as
/// good as its signal: both relative residuals must fall as the run converges. Where Ω holds only
/// constraints that are inactive at most pixels (TV + nonneg + a data term the x-update cannot
/// absorb: masked super-resolution, sums of masked convolutions), Kᵀy is the normal cone of the
/// constraint, close to 0, and the residual measured against it does not fall: PC's relative
/// primal residual is exactly 1 at every check (as with Ω = 0, balance_residuals), L-ADMM's
/// relative dual residual rose from 0.03 to 0.3 while the absolute one fell 100×. The balancing
/// then moves the steps one way at every check until its decaying shift stops it (PC's τ 2.3×
/// its start), whatever the problem needs: on such a problem L-ADMM took 1210 iterations to 1e-4
/// against 680 with fixed steps. Late in a run, float32 noise in the residuals is no signal either.
///
/// The rule: at checks 10, 20, 40, 80, … a relative residual whose best value over the last half
/// of the checks is not 10 % below its best over the first half has stopped falling. Then
/// balancing stops for good, and where that residual never fell to a tenth of its first value (it
/// was never a signal) the steps go back to their values at the first check (revert): the run
/// continues as the fixed-step run would. A residual that fell and then stalls (float32 noise
/// near the optimum) only stops the balancing (hold). Below 1e-6 relative, nothing moves.
/// Sooner, at any check: a relative residual that rose at kRises checks in a row to more than
/// kAway times its first value is no signal either, and reverts at once. (L-ADMM on masked
/// super-resolution with a random mask: its relative dual residual rose at every check from 0.026
/// to 0.195 of its scale while the balancing lowered ρ; reverted at check 10 the run crossed 1e-4
/// at 650 iterations against the fixed steps' 630, at check 5 at 630. Across the convergence
/// suite's 13 problems at 64² this rule fires in one other run: Condat–Vũ on superres, 820 → 870
/// iterations, still below the fixed steps' 910.)
/// Allocates nothing (the generated solvers' iterations do not).
class BalanceGuard {
public:
    enum class Action { balance, hold, revert };
    Action check(double primal, double dual) {
        if (stopped_) return Action::hold;
        ++checks_;
        primal_.add(primal);
        dual_.add(dual);
        if (!(std::fmax(primal, dual) >= kNoise)) return Action::hold;  // (NaN: hold)
        if (primal_.rising_away() || dual_.rising_away()) {
            stopped_ = true;
            return Action::revert;
        }
        if (checks_ < epoch_end_) return Action::balance;
        // the checks [0, epoch_end) split in halves: [0, epoch_end/2) and [epoch_end/2, epoch_end)
        const bool stalled_p = primal_.close_epoch(), stalled_d = dual_.close_epoch();
        epoch_end_ *= 2;
        if (!stalled_p && !stalled_d) return Action::balance;
        stopped_ = true;
        return (stalled_p && !primal_.fell()) || (stalled_d && !dual_.fell()) ? Action::revert : Action::hold;
    }
    bool stopped() const { return stopped_; }

private:
    static constexpr double kProgress = 0.9, kFell = 0.1, kNoise = 1e-6, kAway = 2.0;
    static constexpr int kRises = 4;
    /// One residual: its first value, its best, the best before the current half and within it,
    /// the last value and how many checks in a row it rose.
    struct Series {
        double first = NAN, best = INFINITY, before = INFINITY, recent = INFINITY, last = NAN;
        int count = 0, half = 5;  // checks before the current half begins
        int rises = 0;
        void add(double r) {
            rises = r > last ? rises + 1 : 0;  // (NaN last: the first check)
            last = r;
            if (count++ == 0) first = r;
            best = std::fmin(best, r);
            (count <= half ? before : recent) = std::fmin(count <= half ? before : recent, r);
        }
        /// At the end of the current epoch: whether the last half was no better than the first.
        bool close_epoch() {
            const bool stalled = !(recent <= kProgress * before);
            before = std::fmin(before, recent);
            recent = INFINITY;
            half = count;
            return stalled;
        }
        bool fell() const { return best <= kFell * first; }
        bool rising_away() const { return rises >= kRises && last > kAway * first; }
    };
    Series primal_, dual_;
    int checks_ = 0, epoch_end_ = 10;
    bool stopped_ = false;
};

/// Adaptive PDHG (Goldstein, Li, Yuan, Esser & Baraniuk 2015): when one residual (relative to its
/// scale) exceeds the other by more than Δ = 2, shift the step ratio τ/σ towards the lagging side
/// by 1/(1 − α), keeping τσ fixed. α₀ = 0.5, Goldstein et al.'s. α halves when the shift reverses
/// (the steps overshot), not at every move, and the steps stay within kRange of their values at the
/// first call: halving at every move (Goldstein's rule, with η = 0.5) spent the shift on the
/// start-up transient — on inpainting the first two checks pushed τ 2.7× up, and when the dual
/// residual later lagged 10× behind, α was too small to bring it back (410 iterations to 1e-4
/// against 230 with fixed steps; 210 with this rule, and no suite problem slower than before —
/// docs/performance.md). After kMoves moves the steps stay, so they settle and the usual
/// convergence proof applies from then on. Safeguarded by BalanceGuard: stopped when a residual
/// stops falling, and back to the steps of the first call where it never fell.
struct Balance {
    /// τ within [τ₀/4, 4τ₀] and σ within [σ₀/4, 4σ₀] (Condat–Vũ's condition may cap τ after a
    /// move, so that τσ falls: σ needs its own bound)
    static constexpr double kRange = 4.0;
    static constexpr int kMoves = 16;
    double alpha = 0.5;
    BalanceGuard guard;
    double tau0 = 0, sigma0 = 0;  ///< the steps at the first call (a revert's target and the range's centre)
    int last_shift = 0;           ///< +1: τ was raised at the last move, −1: lowered, 0: no move yet
    int moves = 0;
    void apply(double primal_rms, double dual_rms, double& tau, double& sigma) {
        constexpr double delta = 2.0, eta = 0.5;
        if (tau0 == 0) tau0 = tau, sigma0 = sigma;
        switch (guard.check(primal_rms, dual_rms)) {
            case BalanceGuard::Action::hold: return;
            case BalanceGuard::Action::revert:
                tau = tau0, sigma = sigma0, alpha = 0;
                return;
            case BalanceGuard::Action::balance: break;
        }
        const int shift = primal_rms > delta * dual_rms ? 1 : dual_rms > delta * primal_rms ? -1 : 0;
        if (shift == 0 || alpha == 0) return;
        const double product = tau * sigma;
        tau = std::fmin(std::fmax(shift > 0 ? tau / (1 - alpha) : tau * (1 - alpha), tau0 / kRange), tau0 * kRange);
        sigma = std::fmin(std::fmax(product / tau, sigma0 / kRange), sigma0 * kRange);
        if (last_shift != 0 && shift != last_shift) alpha *= eta;
        last_shift = shift;
        if (++moves >= kMoves) alpha = 0;
    }
};

/// The residuals residual balancing compares: each relative to its scale (the stopping rule's
/// ε_rel terms: ‖Kᵀy‖ for the primal residual, ‖Kx‖ for the dual), Wohlberg's (2017) correction.
/// Raw residuals carry the units of x and of y: on Poisson deblurring at 64² the dual residual is
/// 100× the primal one at every iterate of the fixed-step run, so balancing them pushed τ/σ away
/// from steps that converge twice as fast. A zero scale (y = 0 at the start) falls back to the
/// residual per element.
struct Relative {
    double primal = 0, dual = 0;
};
inline Relative relative_residuals(double primal, double primal_scale, double n, double dual, double dual_scale,
                                   double m) {
    Relative r;
    const bool scaled = primal_scale > 0 && dual_scale > 0;
    r.primal = scaled ? primal / primal_scale : primal / std::sqrt(n);
    r.dual = scaled ? dual / dual_scale : dual / std::sqrt(m);
    return r;
}

struct LinearizedADMM {
    double lambda = 1, mu = 1;
    /// μ‖K‖²/λ, which must not exceed 1.
    double product = 0;
};

/// Linearized ADMM's steps: λ plays 1/ρ (ADMM's ρ₀), μ = λ/‖K‖².
inline LinearizedADMM linearized_admm(const Inputs& in) {
    LinearizedADMM s;
    const double L = in.norm > 1e-12 ? in.norm : 1e-12;
    s.lambda = in.lambda > 0 ? in.lambda : 1.0 / initial_rho(in.curvature_scale, in.norm);
    s.mu = in.mu > 0 ? in.mu : s.lambda / (L * L);
    s.product = s.mu * L * L / s.lambda;
    return s;
}

}  // namespace proxgen::steps
