// The Condat–Vũ card (Condat 2013, Algorithm 3.2 with ρ = 1; Vũ 2013): for Ω = g + h with g the
// terms that have a per-pixel closed-form prox and h the quadratics that have none (‖k ⊛ x − b‖²,
// ‖m ⊙ (S x) − b‖², a coupling ‖A x + B y − b‖²; plan::gradient_step),
//   y⁺ = prox_{σF*}(y + σ K x̄),   x⁺ = prox_{τg}(x − τ(∇h(x) + Kᵀy⁺)),   x̄⁺ = 2x⁺ − x,
// converging when 1/τ − σ‖K‖² ≥ L/2, L the Lipschitz constant of ∇h. Such an h needs neither a
// split (Pock–Chambolle, L-ADMM: a dual image and its prox per term) nor a linear solve (ADMM, HQS:
// FFT or CG per iteration): one application of A and Aᵀ per iteration.
//
// Its loop is Pock–Chambolle's (proxgen/algorithms/pock_chambolle.hpp): the same state, check
// cadence, residuals, stopping and balancing, over the same Runner interface; what differs is the
// step rule (steps::condat_vu: the condition above, with steps::keep_condition after each balancing
// move) and the steps' pipelines (∇h in the primal step, ∇h(x⁺) − ∇h(x) in the primal residual:
// src/solve/pc_pipelines.cpp). With nothing smooth the rule is Pock–Chambolle's, and so is every
// iterate.
#pragma once

#include "proxgen/algorithms/pock_chambolle.hpp"
#include "proxgen/solve/step_rules.hpp"

namespace proxgen::algorithms {

/// Condat–Vũ's loop: Pock–Chambolle's, constructed with steps::condat_vu's rule (the JIT's
/// src/solve/pock_chambolle.cpp runs either from the plan's algorithm).
using CondatVu = PockChambolle;

}  // namespace proxgen::algorithms
