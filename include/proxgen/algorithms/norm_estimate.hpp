// The norm-estimate card: ‖[K_1; …; K_n]‖ of the stacked operators, estimated on the actual
// operator and data by Lanczos on Σ K_iᵀK_i, written once over a runner that applies the Gram
// matrix — the JIT's kernels (src/solve/norm_estimate.cpp, where the planner's bounds and the
// choice of what to estimate are) and a generated solver's pipelines (proxgen/aot/solver_base.hpp),
// so that both start from the same step sizes.
//
// Lanczos is the Krylov acceleration of power iteration: the same applications of K and Kᵀ, but the
// largest Ritz value converges in tens of steps where power iteration needs thousands for
// convolutions, whose spectrum is dense near the top. Each step gives an a-posteriori bound: the
// Ritz value θ plus its residual |β·s| bounds an eigenvalue of KᵀK from above, so the estimate
// approaches ‖K‖² from above once the top eigenvalue is found (a random start has it). The result
// is √(θ + |β·s|) × kNormMargin.
//
// A Runner provides:
//   std::size_t size() const                   the number of unknowns (every variable's elements)
//   bool apply(const std::vector<double>& q, std::vector<double>& out)
//        out = Σ K_iᵀK_i q (q is rounded to float32 for the operators, as the solves run them);
//        false on a failure the runner keeps
// The start is uniform in [−1, 1) from std::mt19937 (fully specified by the standard) through exact
// integer arithmetic, so that every platform starts from the same vector bit for bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace proxgen::algorithms {

/// Stop once the residual bound is below this fraction of θ (θ + residual then overestimates the
/// top eigenvalue of KᵀK by at most 0.1 %, ‖K‖ by 0.05 %).
inline constexpr double kNormRelativeResidual = 1e-3;
/// Lanczos steps at most (each one application of every K_iᵀK_i).
inline constexpr int kNormMaxSteps = 40;
/// Covers float32 rounding in the Gram pipelines (relative ~1e-6 per application) and a Ritz value
/// that has not yet met the top eigenvalue when the step limit stops it early (tested: within 1 %
/// of the true norm on operators with known norms, never below).
inline constexpr double kNormMargin = 1.003;

/// Largest eigenvalue of the symmetric tridiagonal T (diagonal a, off-diagonal b) and the last
/// component of its unit eigenvector: the eigenvalue by bisection on Sturm counts (O(m) per step:
/// Lanczos asks at every step, where a dense eigensolver's O(m³) sweeps cost more than the Gram
/// applications of small images), the eigenvector by inverse iteration just above it, where
/// σI − T is positive definite and its tridiagonal factorization needs no pivoting.
inline std::pair<double, double> top_ritz_pair(const std::vector<double>& a, const std::vector<double>& b) {
    const int m = int(a.size());
    if (m == 1) return {a[0], 1.0};
    // Gershgorin: every eigenvalue lies in [lo, hi]
    double lo = a[0], hi = a[0];
    for (int i = 0; i < m; ++i) {
        const double r = (i > 0 ? std::abs(b[i - 1]) : 0.0) + (i + 1 < m ? std::abs(b[i]) : 0.0);
        lo = std::min(lo, a[i] - r);
        hi = std::max(hi, a[i] + r);
    }
    const double scale = std::max({std::abs(lo), std::abs(hi), 1e-300});
    // eigenvalues below x: the negative pivots of the LDLᵀ factorization of T − xI
    auto below = [&](double x) {
        int n = 0;
        double d = 1;
        for (int i = 0; i < m; ++i) {
            d = (a[i] - x) - (i > 0 ? b[i - 1] * b[i - 1] / d : 0.0);
            if (d == 0) d = -1e-300 * scale;  // (x is an eigenvalue: counted as below)
            n += d < 0;
        }
        return n;
    };
    hi += 1e-15 * scale;  // below(hi) == m
    lo -= 1e-15 * scale;
    for (int step = 0; step < 200; ++step) {  // invariant: below(lo) < m ≤ below(hi)
        const double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi || hi - lo <= 2e-16 * scale) break;
        (below(mid) < m ? lo : hi) = mid;
    }
    const double theta = hi;
    // inverse iteration: (σI − T) v ← v, σ just above θ
    const double sigma = theta + 1e-10 * scale;
    std::vector<double> v(std::size_t(m), 1.0), diag(v.size());
    for (int sweep = 0; sweep < 3; ++sweep) {
        // forward elimination (Thomas) of the positive definite tridiagonal σI − T
        diag[0] = sigma - a[0];
        for (int i = 1; i < m; ++i) {
            const double l = -b[i - 1] / diag[i - 1];
            diag[i] = (sigma - a[i]) + l * b[i - 1];
            v[i] -= l * v[i - 1];
        }
        v[m - 1] /= diag[m - 1];
        for (int i = m - 2; i >= 0; --i) v[i] = (v[i] + b[i] * v[i + 1]) / diag[i];
        double norm = 0;
        for (double e : v) norm += e * e;
        norm = std::sqrt(norm);
        for (double& e : v) e /= norm;
    }
    return {theta, v[std::size_t(m) - 1]};
}

/// What an estimate ended with.
enum class NormEstimate { ok, failed, non_finite };

/// ‖K‖ (times kNormMargin) into `norm`; 0 where K v = 0 from the random start (K is 0 up to
/// rounding). `failed`: a runner call failed; `non_finite`: the operator produced NaN or Inf.
/// `ceiling`: a bound the caller already has and keeps unless the estimate is smaller. The Ritz
/// value θ only grows with the steps and the estimate is at least kNormMargin·√θ, so once that
/// passes the ceiling no later step can end below it: the run stops there with an estimate above
/// the ceiling (the caller keeps its bound, as after a full run), where a bound that is
/// nearly the norm (a zero-boundary blur's ‖k‖₁) cost every step.
template <class Runner>
NormEstimate lanczos_norm(Runner& run, double& norm, double ceiling = std::numeric_limits<double>::infinity()) {
    const std::size_t n = run.size();
    std::vector<double> q(n), q_prev(n, 0.0), r(n);
    std::mt19937 gen(12345);
    double nq = 0;
    for (auto& e : q) {
        e = double(gen()) * (2.0 / 4294967296.0) - 1.0;  // exact: a 32-bit integer times a power of two
        nq += e * e;
    }
    nq = std::sqrt(nq);
    for (auto& e : q) e /= nq;
    std::vector<double> alpha, beta;
    double estimate = 0, beta_prev = 0;
    norm = 0;
    for (int step = 0; step < kNormMaxSteps; ++step) {
        if (!run.apply(q, r)) return NormEstimate::failed;
        double a = 0;
        for (std::size_t i = 0; i < n; ++i) a += r[i] * q[i];
        double bnext = 0;
        for (std::size_t i = 0; i < n; ++i) {
            r[i] -= a * q[i] + beta_prev * q_prev[i];
            bnext += r[i] * r[i];
        }
        bnext = std::sqrt(bnext);
        alpha.push_back(a);
        const auto [theta, last] = top_ritz_pair(alpha, beta);
        const double residual = std::abs(bnext * last);
        if (!std::isfinite(theta) || !std::isfinite(residual)) return NormEstimate::non_finite;
        estimate = theta + residual;
        if (theta <= 0 && bnext <= 0) return NormEstimate::ok;  // K v = 0 from a random start: K is 0
        if (residual <= kNormRelativeResidual * theta || bnext <= 1e-12 * std::max(theta, 1e-300)) break;
        if (kNormMargin * std::sqrt(std::max(theta, 0.0)) > ceiling * (1 + 1e-12)) break;  // (strictly: est² > ceiling² too)
        beta.push_back(bnext);
        beta_prev = bnext;
        std::swap(q_prev, q);
        for (std::size_t i = 0; i < n; ++i) q[i] = r[i] / bnext;
    }
    norm = kNormMargin * std::sqrt(std::max(estimate, 0.0));
    return NormEstimate::ok;
}

}  // namespace proxgen::algorithms
