// The three canonical problems ProxGen's planner and solvers are measured on, on the data of
// ProxImaL's reference data set (its generator gen_inputs.py, ported in reference_problems.hpp),
// shared by the time-to-accuracy benchmark and the convergence tests:
//   denoise:  ‖x − b‖² + 0.1 ‖∇x‖₂,₁
//   deconv:   ‖k ⊛ x − b‖² + 0.002 ‖∇x‖₂,₁ + ι₊(x)        (9×9 Gaussian, σ = 2)
//   poisson:  Σ (k ⊛ x − b log(k ⊛ x)) + 0.02 ‖∇x‖₂,₁      (x in photon units, peak 1000)
// with_problem(kind, W, f) builds the data and calls f(problem, variable) with the typed problem.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include <proxgen/proxgen.hpp>

#include "reference_problems.hpp"

namespace proxgen::bench {

enum class Canonical { denoise, deconv, poisson };

inline const char* name(Canonical c) {
    switch (c) {
        case Canonical::denoise: return "denoise";
        case Canonical::deconv: return "deconv";
        case Canonical::poisson: return "poisson";
    }
    return "?";
}

inline constexpr float kDenoiseTV = 0.1f;
inline constexpr float kDeconvTV = 0.002f;
inline constexpr float kPoissonTV = 0.02f;

/// What to add to pg::objective to compare runs: for Poisson, Σ(b log b − b), which turns the
/// negative log-likelihood Σ(e − b log e) into the deviance Σ(e − b − b log(e/b)) ≥ 0 (a relative
/// accuracy on a value dominated by a data-only constant would be vacuous); 0 otherwise.
inline double objective_shift(Canonical kind, const Image& counts) {
    if (kind != Canonical::poisson) return 0;
    double s = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const double v = counts.data()[i];
        s += (v > 0 ? v * std::log(v) : 0.0) - v;
    }
    return s;
}

/// Builds the canonical problem of size W × W and calls f(prob, x, start): `start` is the
/// x0 every solver begins from (empty = zeros; Poisson starts at the counts, inside its domain).
template <class F>
decltype(auto) with_problem(Canonical kind, int W, F&& f) {
    switch (kind) {
        case Canonical::denoise: {
            const auto d = reference::make_denoise(W);
            auto x = variable(W, W);
            return f(sum_squares(x - d.b) + kDenoiseTV * group_norm1(grad(x)), x, Image());
        }
        case Canonical::deconv: {
            const auto d = reference::make_deconv(W);
            auto x = variable(W, W);
            return f(sum_squares(conv(d.kernel, x) - d.b) + kDeconvTV * group_norm1(grad(x)) + nonneg(x), x,
                     Image());
        }
        case Canonical::poisson: {
            const auto d = reference::make_poisson(W);
            auto x = variable(W, W);
            return f(poisson_norm(conv(d.kernel, x), d.b) + kPoissonTV * group_norm1(grad(x)), x, d.b);
        }
    }
    throw std::logic_error("unknown canonical problem");
}

}  // namespace proxgen::bench
