// Internal: frequency-domain x-updates for ADMM / half-quadratic splitting. The x-update solves
//     (Σ_j w_j K_jᵀK_j) x = rhs
// in closed form when every K_j is diagonal in one orthogonal basis: the DFT (circular convolution,
// periodic grad) or the DCT-II (Neumann grad). The Gram matrix is then a diagonal, computed once
// from the IR trees, and a solve is one forward transform, one pointwise division and one inverse
// transform per channel (FFTW r2c/c2r in single precision for both bases, the DCT through Makhoul's
// reordering; plans cached process-wide).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "proxgen/catalogue/transfer.hpp"
#include "proxgen/image.hpp"
#include "proxgen/ir/ir.hpp"

namespace proxgen::spectral {

using catalogue::Basis;

const char* name(Basis b);

/// Whether the linear part of expr is diagonal in basis b (b = none: false).
bool diagonal_in(const ir::Node& expr, Basis b);

/// fft if every node is variable/scale/sum/constant/conv/periodic grad; else dct if every node is
/// variable/scale/sum/constant/Neumann grad (no grad nested in a grad); else none (mul_elemwise,
/// subsample, conv mixed with Neumann grad, periodic mixed with Neumann grad). A tree without conv
/// and grad is diagonal in both and gets fft here; common_basis() picks among several trees.
Basis basis_of(const ir::Node& linear_expr);

/// A basis in which all the given expressions are diagonal: dct when all allow it (its implied
/// reflective boundary avoids the wrap-around of periodic ones), else fft, else none.
Basis common_basis(const std::vector<const ir::Node*>& exprs);

/// The diagonal of Σ_j w_j K_jᵀK_j in a spectral basis, and its inverse applied to images of the
/// variable's shape. Every channel (every index beyond x and y) gets the same 2-D operator.
/// Several blocks (variables of one W×H stacked one after another, each with its own operator)
/// share one solver: their channels go through one many-transform FFTW call, each block's divided
/// by its own eigenvalues — one call's fixed cost and threading over the transforms, where a solver
/// per block pays both per block.
/// solve() serialises on an internal mutex (it reuses the object's work arrays).
class GramSolver {
public:
    GramSolver(Basis basis, std::vector<int> variable_shape);
    /// Blocks of these shapes, all of one W×H (their first two extents), laid out one after another:
    /// the solver's variable is W×H×(the blocks' channels summed).
    GramSolver(Basis basis, const std::vector<std::vector<int>>& block_shapes);
    ~GramSolver();
    GramSolver(GramSolver&&) noexcept;
    GramSolver& operator=(GramSolver&&) noexcept;

    /// Accumulates weight · |K(ω)|² (summed over K's output components, e.g. both of grad's) into
    /// a block's eigenvalues. Throws proxgen::Error if expr is not diagonal in this basis or its
    /// variable has another shape than the block's.
    void add_term(const ir::Node& expr, double weight, int block = 0);
    /// Accumulates weight · I in every block.
    void add_identity(double weight);
    /// Accumulates weight times another solver's eigenvalues (same basis and blocks): a Gram whose
    /// coefficients change (residual balancing moves τ, HQS moves ρ) recombines tables built once
    /// instead of evaluating every transfer function again.
    void add_scaled(const GramSolver& other, double weight);
    /// Sets every eigenvalue to 0 (the FFT plans and work arrays stay).
    void clear();
    /// Checks the Gram (throws proxgen::Error if it is singular: some eigenvalue < 1e-12 · max),
    /// prepares its inverse, the FFTW plans and the work arrays. solve() calls it when needed.
    void finalize();
    /// finalize() for identity · I + Σ weight · (a unit's eigenvalues), the units other solvers of
    /// the same basis and blocks, without storing the sum: this solver keeps no table of its own
    /// (W·H doubles per block: 134 MB for a 4096² DCT), and the inverse is the one clear,
    /// add_identity, add_scaled and finalize make, to the bit. Nothing is added to it afterwards.
    void finalize_sum(double identity, const std::vector<std::pair<const GramSolver*, double>>& units);
    /// x = Gram⁻¹ rhs. x is (re)allocated if it does not have the variable's shape; x may be rhs.
    void solve(const Image& rhs, Image& x) const;

    double min_eigenvalue() const;
    double max_eigenvalue() const;
    Basis basis() const;
    const std::vector<int>& variable_shape() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Returns when no transform is being measured in the background: from 256² samples a solve
/// starts on FFTW's estimated plan and switches to a measured one when a background thread has
/// planned it (spectral.cpp); tests wait here to see both.
void wait_for_measured_plans();

}  // namespace proxgen::spectral
