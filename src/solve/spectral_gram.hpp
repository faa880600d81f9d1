// Internal: the x-update Gram matrices of a plan with an fft / dct x-update,
//     identity·I + omega_scale·Σ_Ω 2αβ² AᵀA + psi_scale·Σ_Ψ KᵀK,
// kept as spectral::GramSolvers that are rebuilt only when the coefficients change (HQS and
// adaptive ADMM change ρ; PC and L-ADMM set them once). In several variables each spectral block
// has its own eigenvalues over its variable's part of the flat state, built from the terms that
// read only that variable; consecutive spectral blocks of one basis and one W×H share one solver
// (one many-transform call, as the same variables stacked by hand into channels would); the other
// blocks' kernel outputs are already their x-update.
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
        spectral::Basis basis = spectral::Basis::none;  // none: not a spectral block
    };
    /// Consecutive spectral blocks of one basis and W×H, solved together.
    struct Group {
        std::size_t first = 0, count = 0;  // in blocks_
        std::size_t offset = 0, size = 0;  // in the flat state
        std::vector<int> shape;            // the blocks stacked (spectral::GramSolver's)
        std::unique_ptr<spectral::GramSolver> gram;
        // Σ_Ω 2αβ² AᵀA and Σ_Ψ KᵀK, built at their first use: a change of coefficients recombines
        // them instead of evaluating the transfer functions again
        std::unique_ptr<spectral::GramSolver> omega, psi;
    };
    /// A group's Σ weight(t)·KᵀK over the terms that read only its blocks' variables.
    std::unique_ptr<spectral::GramSolver> unit_gram(const Group& g, const std::vector<ir::Term>& terms,
                                                   bool omega) const;
    const ir::Problem& p_;
    std::vector<std::vector<int>> shapes_;  // the variables' (ir::variable_shapes), for binding
    std::vector<Block> blocks_;
    std::vector<Group> groups_;
    double identity_ = -1, omega_ = -1, psi_ = -1;
    Image rhs_;
};

/// The conjugate gradient's preconditioner of an ADMM / HQS x-update: the Gram of the problem's
/// circulant stand-in (circulant_problem), inverted by FFT; SpectralGram keeps its Ω and Ψ spectra
/// and recombines them when ρ moves.
class CirculantPreconditioner {
public:
    /// nullptr where p has no circulant stand-in.
    static std::unique_ptr<CirculantPreconditioner> of(const ir::Problem& p);
    explicit CirculantPreconditioner(ir::Problem circulant);
    CirculantPreconditioner(const CirculantPreconditioner&) = delete;  // gram_ refers to problem_
    CirculantPreconditioner& operator=(const CirculantPreconditioner&) = delete;
    /// s = M⁻¹ r at penalty ρ.
    void apply(const Image& r, Image& s, double rho) { gram_.solve(r, s, 0.0, 1.0, rho); }

private:
    const ir::Problem problem_;
    SpectralGram gram_{problem_};
};

}  // namespace proxgen::detail
