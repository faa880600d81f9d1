// Internal: the x-update Gram matrices of a plan with an fft / dct x-update,
//     identity·I + omega_scale·Σ_Ω 2αβ² AᵀA + psi_scale·Σ_Ψ KᵀK,
// kept as a spectral::GramSolver that is rebuilt only when the coefficients change (HQS and
// adaptive ADMM change ρ; PC and L-ADMM set them once).
#pragma once

#include <memory>

#include "../jit/kernel.hpp"

#include "proxgen/ir/ir.hpp"
#include "spectral.hpp"

namespace proxgen::detail {

class SpectralGram {
public:
    explicit SpectralGram(const ir::Problem& p) : p_(p) {}
    /// x = Gram⁻¹ rhs for these coefficients.
    void solve(const Image& rhs, Image& x, double identity, double omega_scale, double psi_scale);
    /// Runs a PC / L-ADMM x-update kernel (lower::omega_step; its inputs bound, its one output is
    /// bound here) into x: directly for a closed-form plan, through (I + τ G_Ω)⁻¹ of its
    /// right-hand side for a spectral one.
    void omega_step(jit::Call& step, Image& x, double tau);

private:
    const ir::Problem& p_;
    std::unique_ptr<spectral::GramSolver> gram_;
    double identity_ = -1, omega_ = -1, psi_ = -1;
    Image rhs_;
};

}  // namespace proxgen::detail
