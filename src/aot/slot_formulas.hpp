// Quantities the solver loop needs from the problem's data, which the generated solver only
// receives at run time: the ‖K‖ bound of each Ψ term (step sizes), Ω's strong-convexity modulus
// (acceleration), the curvature scale of the smooth terms, and each term's output shape. Each is
// C++ source over the generated solver's `images[slot]` (halide_buffer_t*), `scalars[slot]`
// (float) and variable extents `v`, written by the same card formulas the JIT computes numbers
// with (proxgen/catalogue/formula.hpp), so both take the same step sizes.
#pragma once

#include <string>

#include "proxgen/ir/ir.hpp"

namespace proxgen::aot {

/// μ of Ω(x) − μ/2‖x‖² convex (plan::strong_convexity), as a function body.
std::string strong_convexity_code(const ir::Problem& p);

/// ω, the curvature scale of the smooth terms (detail::curvature_scale), as a function body reading
/// the terms' ‖K‖ (as tightened at init) from psi_norms[i] and omega_norms[j].
std::string curvature_scale_code(const ir::Problem& p);

/// L of Condat–Vũ's ∇h (detail::smooth_lipschitz; 0 for other plans), as a function body reading
/// the Ω terms' ‖A‖ (as tightened at init) from omega_norms[j].
std::string smooth_lipschitz_code(const ir::Problem& p);

/// An upper bound on ‖K‖₂ of the node's linear part (plan::norm_bound).
std::string norm_bound_code(const ir::Node& n);

/// The node's output extents (a std::vector<int> expression) from the variable's extents `v`.
std::string shape_code(const ir::Node& n);
/// The extents a node's image must have (a std::vector<int> expression; "" for any).
std::string image_shape_code(const ir::Node& n);
/// The extents of a node's output without its last axis (group weights of group penalties).
std::string shape_without_last_axis_code(const ir::Node& n);

}  // namespace proxgen::aot
