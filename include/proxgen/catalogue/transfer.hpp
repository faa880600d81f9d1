// Transfer functions of operators diagonal in a spectral basis (the DFT for circular conv and
// periodic grad, the DCT-II for Neumann grad), for the spectral x-updates (src/solve/spectral.cpp).
// Conventions (forward DFT X[k] = Σ_n x[n] e^{−2πikn/N}):
//  - conv (centre c = floor(size/2)): out[i] = Σ_a k[a] x[i − (a − c)], transfer Σ_a k[a] e^{−2πik(a−c)/N};
//  - periodic grad, each axis: x[n+1] − x[n], transfer e^{2πik/N} − 1;
//  - Neumann grad, each axis, in the DCT-II basis c_k[n] = cos(πk(n+½)/N): D c_k = −2 sin(πk/2N) s_k
//    with s_k[n] = sin(πk(n+1)/N) (0 at n = N−1, as Neumann wants). The s_k are orthogonal with the
//    norms of the c_k, so DᵀD c_k = 4 sin²(πk/2N) c_k, and amplitudes of one component add exactly.
//    A circular convolution is not diagonal in the DCT, nor is a grad of a grad (D maps cosines
//    to sines, and a second D does not map sines to anything diagonal), so neither is allowed there.
// Each node's transfer is a list of components (one per index of the axes it adds beyond the
// variable's: grad makes two); the Gram diagonal is Σ_j w_j Σ_c |H_c|². Transfer functions are
// evaluated one spectral row at a time (no W×H temporaries), each card filling its rows from the
// tables it prepared (OpCard::prepare_transfer, transfer_row).
#pragma once

#include <complex>
#include <functional>
#include <map>
#include <vector>

namespace proxgen::ir {
struct Node;
}

namespace proxgen::catalogue {

/// The basis a spectral x-update diagonalizes its operators in.
enum class Basis { none, fft, dct };

/// The spectral grid of a W × H plane: (W/2+1) × H for the real-to-complex DFT, W × H for the DCT.
struct Grid {
    Basis basis = Basis::none;
    int W = 0, H = 0;    // spatial extents
    int nx = 0, ny = 0;  // spectral extents
};

using Row = std::vector<std::complex<double>>;  // one row (fixed ky) of a transfer function

/// What the cards' transfer functions share while one is evaluated: the grid, per-node tables
/// (prepared once) and the recursion into operands.
struct TransferTables {
    Grid grid;
    /// Per node: tables its card prepared (e.g. conv's kernel row spectra, grad's axis factors).
    std::map<const ir::Node*, std::vector<std::complex<double>>> values;
    std::map<const ir::Node*, std::vector<int>> integers;
    /// The transfer rows of an operand (false: it has no linear part).
    std::function<bool(const ir::Node&, int ky, std::vector<Row>&)> row;
};

}  // namespace proxgen::catalogue
