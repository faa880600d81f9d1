// The four algorithms and the x-update kinds. The plan depends on the algorithm: what the x-update
// can absorb differs (a closed-form prox for Pock–Chambolle and linearized ADMM, a linear solve for
// ADMM and HQS).
#pragma once

namespace proxgen {

enum class Algorithm {
    admm,            ///< ADMM (Boyd et al. 2011): quadratics solved in the x-update (diagonal, FFT, DCT or CG)
    ladmm,           ///< linearized ADMM (Parikh & Boyd, Proximal Algorithms §4.4.2)
    pock_chambolle,  ///< primal–dual hybrid gradient (Chambolle & Pock 2011), accelerated when Ω is strongly convex
    hqs              ///< half-quadratic splitting with an increasing penalty ρ
};

const char* name(Algorithm a);

}  // namespace proxgen

namespace proxgen::plan {

/// How the x-update is computed.
enum class XUpdate {
    closed_form_prox,  ///< PC / L-ADMM: per-pixel prox of the diagonal Ω terms
    elementwise,       ///< ADMM / HQS: the Gram matrix is diagonal: one division per pixel
    fft,               ///< ADMM / HQS: every operator is diagonal in the DFT (circular conv, periodic
                       ///< grad); PC / L-ADMM: the prox of the Ω quadratics is one FFT solve
    dct,               ///< the same in the DCT-II basis (Neumann grad)
    cg                 ///< ADMM / HQS: matrix-free conjugate gradient, warm-started
};

const char* name(XUpdate x);

/// The x-update goes through a transform (FFT / DCT).
constexpr bool spectral(XUpdate x) { return x == XUpdate::fft || x == XUpdate::dct; }

constexpr bool linearized(Algorithm a) { return a == Algorithm::pock_chambolle || a == Algorithm::ladmm; }

}  // namespace proxgen::plan
