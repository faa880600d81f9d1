// What the split algorithms' cards share (linearized ADMM, ADMM, HQS: z_i = K_i x with scaled
// duals u_i): Boyd et al.'s residuals and tolerances from one check's sums of squares, and the
// residual balancing of the penalty ρ.
#pragma once

#include <algorithm>
#include <cmath>

#include "proxgen/algorithms/loop.hpp"
#include "proxgen/solve/step_rules.hpp"

namespace proxgen::algorithms {

/// One check's float64 sums of squares over every variable and Ψ term: Kᵀ(z − z_prev), Kᵀu, and
/// per term K_i x − z_i, K_i x, z_i; with the element counts of x (n) and of every z (m).
struct SplitSums {
    double kdz = 0, ktu = 0, r = 0, kx = 0, z = 0;
    double n = 0, m = 0;
};

/// The sums from the residual kernels' totals in their order (Kᵀ(z − z_prev) and Kᵀu per
/// variable, then (K_i x − z_i, K_i x, z_i) per Ψ term).
inline SplitSums split_sums(const double* totals, int variables, int psi_terms, double n, double m) {
    SplitSums s;
    for (int j = 0; j < variables; ++j) {
        s.kdz += totals[j];
        s.ktu += totals[variables + j];
    }
    for (int i = 0; i < psi_terms; ++i) {
        s.r += totals[2 * variables + 3 * i];
        s.kx += totals[2 * variables + 3 * i + 1];
        s.z += totals[2 * variables + 3 * i + 2];
    }
    s.n = n;
    s.m = m;
    return s;
}

/// A split check's residuals and the relative ones residual balancing compares.
struct SplitResiduals {
    Residuals residuals;
    steps::Relative relative;
};

/// Boyd et al. 2011 (§3.3): r = ‖Kx − z‖, s = ρ‖Kᵀ(z − z_prev)‖, ε_pri = √m ε_abs + ε_rel
/// max(‖Kx‖, ‖z‖), ε_dual = √n ε_abs + ε_rel ρ‖Kᵀu‖; relative to their scales for balancing.
/// The primal residual lives in K x's space: its absolute tolerance is in the data's unit
/// (data_unit).
inline SplitResiduals split_residuals(const SplitSums& s, double rho, double eps_abs, double eps_rel,
                                      double data_unit = 1.0) {
    SplitResiduals out;
    Residuals& r = out.residuals;
    const double primal_scale = std::sqrt(std::max(s.kx, s.z)), dual_scale = rho * std::sqrt(s.ktu);
    r.primal = std::sqrt(s.r);
    r.dual = rho * std::sqrt(s.kdz);
    r.eps_primal = tolerance(s.m, eps_abs * data_unit, eps_rel, primal_scale);
    r.eps_dual = tolerance(s.n, eps_abs, eps_rel, dual_scale);
    out.relative = steps::relative_residuals(r.primal, primal_scale, s.m, r.dual, dual_scale, s.n);
    return out;
}

/// Residual balancing (Boyd et al. 2011, §3.4.1) as a light correction of the curvature-based ρ₀:
/// from the last check, ρ should be multiplied by (1 + s when ‖r‖ > 2‖s‖, 1/(1 + s) when
/// ‖s‖ > 2‖r‖, else 1); the caller rescales u by 1/factor. s starts at 1 and halves at every
/// change, so ρ moves by less than 5× in all and settles. (Undamped doubling let ρ wander away
/// from a good ρ₀: Poisson deblurring at 64² reached 3906.7 after 1000 ADMM iterations, against
/// 3901.64 after 500 with this rule.) The residuals compared are relative to their scales
/// (steps::relative_residuals: Wohlberg's correction). Safeguarded by steps::BalanceGuard:
/// stopped when a relative residual stops falling, and ρ back to its value at the first call (the
/// returned factor undoes every change) where that residual never fell.
struct ResidualBalancing {
    double strength = 1.0;  // s (warm starts carry it on)
    double moved = 1.0;     // the product of the factors returned so far
    steps::BalanceGuard guard;
    double factor(const steps::Relative& last) {
        constexpr double decay = 0.5;
        double f = 1.0;
        switch (guard.check(last.primal, last.dual)) {
        case steps::BalanceGuard::Action::hold: return 1.0;
        case steps::BalanceGuard::Action::revert:
            f = 1.0 / moved;
            moved = 1.0;
            strength = 0;
            return f;
        case steps::BalanceGuard::Action::balance: break;
        }
        if (last.primal > 2 * last.dual) f = 1.0 + strength;
        else if (last.dual > 2 * last.primal) f = 1.0 / (1.0 + strength);
        if (f != 1.0) strength *= decay, moved *= f;
        return f;
    }
};

}  // namespace proxgen::algorithms
