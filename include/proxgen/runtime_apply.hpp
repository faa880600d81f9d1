// proxgen/runtime_apply.hpp — run-time expressions and penalties as functions on images: an
// expression's linear operator K and its adjoint applied to values, its value K x + o, a bound and
// an estimate of ‖K‖, and the prox of a one-term problem. For front ends that expose operators as
// functions (Python's LinOp.forward / adjoint, CompGraph, ProxFn.prox) and for checking them.
//
//   namespace pg = proxgen;
//   pg::rt::Expr x = pg::rt::variable("x", {64, 64});
//   pg::rt::Expr e = pg::rt::grad(x);
//   pg::Image g = pg::rt::apply_linear(e, {{"x", img}});          // K x, 64 x 64 x 2
//   std::map<std::string, pg::Image> back = pg::rt::apply_adjoint(e, g);  // Kᵀ g, by variable
//   pg::Image z = pg::rt::prox(pg::rt::norm1(x), 0.5, v);        // argmin ‖z‖₁ + 0.5/2 ‖z − v‖²
//
// Each call runs the same lowering as the solvers (the cards' forward, adjoint and prox code),
// compiled into a small pipeline once per expression structure and cached like the solvers'
// kernels (in memory and on disk): a second call on an expression of the same structure, with other
// data or other sizes, compiles nothing. Images use the run-time API's Halide order.
#pragma once

#include <map>
#include <string>

#include "proxgen/image.hpp"
#include "proxgen/runtime.hpp"

namespace proxgen::rt {

/// K x: the linear part of e (its constants read as 0) at the variables' values, by name. Every
/// variable of e needs a value of its shape; other names are an error.
Image apply_linear(const Expr& e, const std::map<std::string, Image>& values);
/// Kᵀ y (y of e's shape): one image per variable of e, by name.
std::map<std::string, Image> apply_adjoint(const Expr& e, const Image& y);
/// K x + o: the expression's value (its constants included) at the variables' values.
Image evaluate(const Expr& e, const std::map<std::string, Image>& values);

/// An upper bound on ‖K‖₂ from the operators' cards (the planner's; cheap: no image is touched
/// beyond the nodes' data).
double norm_bound(const Expr& e);
/// ‖K‖₂ estimated on the operator (Lanczos on KᵀK with an a-posteriori residual bound, as the
/// solvers' step rules estimate it): within about 0.3 % above the norm. 0 for a zero operator.
double norm_estimate(const Expr& e);

/// What the planner knows of K: diagonal (K x = d ⊙ x per variable), KᵀK diagonal (subsampling,
/// selections), diagonal in the Fourier domain (circular convolutions, their sums and scalings).
struct OperatorFacts {
    bool diagonal = false;
    bool gram_diagonal = false;
    bool fft_diagonal = false;
};
OperatorFacts operator_facts(const Expr& e);

/// argmin_z prob(z) + ρ/2 ‖z − v‖² (v of the variable's shape) for a problem in one variable whose
/// terms, after the planner's rewrite rules, are
///   - one penalty of the variable scaled elementwise and offset, weight · f(β w ⊙ z + c)
///     (sum_squares(2 * x - b), norm1(mul_elemwise(w, x)), nonneg(x), ...): the card's own prox, as
///     the solvers run it; or of such an argument moved by transposes and reshapes P (group_norm1
///     of a transposed image): Pᵀ prox(P v), P being orthogonal;
///   - several constraints on the variable itself (per-pixel intervals: nonneg, box, masks): the
///     projection onto their intersection, each projected onto in turn.
/// Any other problem is an Error saying why.
Image prox(const Problem& prob, double rho, const Image& v);

}  // namespace proxgen::rt
