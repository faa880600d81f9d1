// The four algorithms. The plan depends on the algorithm: what the x-update can absorb differs
// (a closed-form prox for Pock–Chambolle and linearized ADMM, a linear solve for ADMM and HQS).
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
