// Internal: the exact x-update of ADMM / HQS TV denoising, (c I + rho grad^T grad) x = q with
// grad's Neumann convention, diagonal in the 2-D DCT-II:
//   x = C^-1 [ C q / (c + rho (2 - 2 cos(pi k / W) + 2 - 2 cos(pi l / H))) ].
// For even W and H the DCTs go through FFTW's real DFT (Makhoul's reordering: v[n] = q[2n],
// v[N-1-n] = q[2n+1] per axis, then twiddles on the spectrum), because Debian's FFTW has SIMD
// codelets for complex DFTs only and its REDFT10/01 run 5x slower than r2c/c2r here. One call:
// a Halide pass reorders q, r2c, one Halide pass over the half spectrum (both DCT twiddles, the
// division and the inverse twiddles), c2r, a Halide pass restores the natural order into x.
// Odd W or H: FFTW's REDFT10/01 in place, the division in Halide.
#pragma once

#include <memory>

#include "baseline_fft.hpp"

namespace proxgen::bench::detail {

class NeumannSolver {
public:
    /// For planes of `layout`; `c` the identity's coefficient (2 for ||x - b||^2).
    NeumannSolver(const Layout& layout, float c);
    ~NeumannSolver();
    NeumannSolver(const NeumannSolver&) = delete;
    NeumannSolver& operator=(const NeumannSolver&) = delete;

    void set_rho(float rho);
    /// x <- the solution for right-hand side q (both planes of the layout; q is not modified
    /// unless it is x).
    void solve(const PlaneSet& planes, int q, int x);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace proxgen::bench::detail
