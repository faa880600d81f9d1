// Direct evaluation of single operators and proxes, for tests and tools (adjoint tests, prox
// optimality checks, the run-time API's apply functions, user operators' norm estimates). Each runs
// one small kernel per structure (an expression's, or a penalty's with the data present) from the
// solvers' kernel caches, in memory and on disk; data are bound per call.
#pragma once

#include "proxgen/image.hpp"
#include "proxgen/ir/ir.hpp"

namespace proxgen::lower {

/// K x of the one Ψ term of p (a problem as the planner numbers it), at the flat state x (ir::
/// state_shape); with_offset: K x + c.
Image term_forward(const ir::Problem& p, const Image& x, bool with_offset);
/// Kᵀ y of the one Ψ term of p, as a flat state.
Image term_adjoint(const ir::Problem& p, const Image& y);

/// K x: the linear part of an expression (constants read as 0) at x.
Image apply_linear(const ir::Node& expr, const Image& x);
/// Kᵀ y in the variable's space.
Image apply_adjoint(const ir::Node& expr, const Image& y);
/// The optional parameters of the generalised prox form α f(a ⊙ z + c): a (elementwise scale),
/// c (offset), counts (poisson_norm; the mask for masked_nonneg), group weights (group_norm1; v's shape without its last axis).
struct ProxData {
    Image a, c, counts, group_weight;
    std::vector<int> ints;                   // the penalty's structural parameters (Term::ints)
    std::shared_ptr<const ir::Opaque> code;  // diff_fn: the smooth function
};

/// argmin_z α f(a ⊙ z + c) + ρ/2 ‖z − v‖² for the penalty of card f (catalogue::card<...>());
/// empty images in `data` mean a = 1, c = 0, none.
Image apply_prox(const ir::PenaltyKind& f, float alpha, float rho, const Image& v, const ProxData& data = {});

}  // namespace proxgen::lower
