// Quadratic terms in the per-card tier (per_card.hpp): each term t(A x), t quadratic in A x, as its
// operator node by node (PerCardOperator) and its gradient and Hessian in the operator's output
// space — the conjugate-gradient kernels of a problem holding the term alone over a variable
// standing for A x (keyed by the penalty and its data, not by the operator).
#pragma once

#include <deque>
#include <vector>

#include "per_card.hpp"

namespace proxgen::detail {

/// The terms' pointers, in order.
std::vector<const ir::Term*> terms_of(const std::vector<ir::Term>& terms);

/// Quadratic terms of a problem card by card: ADMM's and HQS's Ω (its x-update's right-hand side
/// and Gram), Condat–Vũ's smooth part h (its gradient steps).
class PerCardQuadratic {
public:
    /// terms: quadratic terms of p (each t(A x) with t quadratic in A x).
    PerCardQuadratic(const ir::Problem& p, const std::vector<const ir::Term*>& terms);
    PerCardQuadratic(const PerCardQuadratic&) = delete;
    PerCardQuadratic& operator=(const PerCardQuadratic&) = delete;

    /// −Σ_t A_tᵀ ∇_t(0) per variable: the data's part of the x-update's right-hand side.
    const std::vector<Image>& rhs() const { return rhs_; }
    /// out_j += (G v)_j = Σ_t A_tᵀ H_t A_t v (H_t: term t's Hessian in its operator's output space).
    void add_gram(const std::vector<Image>& v, std::vector<Image>& out);
    /// out_j += the gradient Σ_t A_tᵀ ∇_t(A_t v).
    void add_gradient(const std::vector<Image>& v, std::vector<Image>& out);

private:
    std::deque<PerCardOperator> ops_;  // (not movable: bound kernels)
    std::vector<ir::Problem> terms_;
    std::deque<lower::DataArgs> data_;
    std::vector<Image> in_, out_, rhs_;
    std::vector<jit::Call> gram_, residual_;  // residual: −∇_t at in_
    const float zero_ = 0.0f;
};

}  // namespace proxgen::detail
