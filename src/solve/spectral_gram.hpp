// Internal: the x-update Gram matrices of a plan with an fft / dct x-update,
//     identity·I + omega_scale·Σ_Ω 2αβ² AᵀA + psi_scale·Σ_Ψ KᵀK,
// kept as spectral::GramSolvers that are rebuilt only when the coefficients change (HQS and
// adaptive ADMM change ρ; PC and L-ADMM set them once). In several variables each spectral block
// has its own solver over its variable's part of the flat state, built from the terms that read
// only that variable; the other blocks' kernel outputs are already their x-update.
#pragma once

#include <memory>
#include <vector>

#include "../jit/kernel.hpp"

#include "proxgen/ir/ir.hpp"
#include "spectral.hpp"

namespace proxgen::detail {

class SpectralGram {
public:
    explicit SpectralGram(const ir::Problem& p);
    /// x = Gram⁻¹ rhs for these coefficients (several variables: each spectral block solved, every
    /// other block copied from rhs).
    void solve(const Image& rhs, Image& x, double identity, double omega_scale, double psi_scale);
    /// Runs a PC / L-ADMM x-update kernel (lower::omega_step; its inputs bound, its outputs are
    /// bound here) into x: directly for a closed-form plan, through (I + τ G_Ω)⁻¹ of its
    /// right-hand side for a spectral one.
    void omega_step(jit::Call& step, Image& x, double tau);

private:
    struct Block {
        int variable = 0;
        std::size_t offset = 0;  // in the flat state
        std::vector<int> shape;
        bool spectral = false;
        std::unique_ptr<spectral::GramSolver> gram;
    };
    const ir::Problem& p_;
    std::vector<std::vector<int>> shapes_;  // the variables' (ir::variable_shapes), for binding
    std::vector<Block> blocks_;
    double identity_ = -1, omega_ = -1, psi_ = -1;
    Image rhs_;
};

}  // namespace proxgen::detail
