// Quantities the solver loop needs from the problem's data, which the generated solver only
// receives at run time: the ‖K‖ bound of each Ψ term (step sizes), Ω's strong-convexity modulus
// (acceleration) and each term's output shape. Each comes twice, as a number from an IR that
// holds data (for halide_only and the JIT) and as C++ source over the generated solver's
// `images[slot]` (halide_buffer_t*), `scalars[slot]` (float) and variable extents `v`, so that
// both follow the same formulas as traits/linear_traits.hpp.
#pragma once

#include <string>

#include "proxgen/ir/ir.hpp"

namespace proxgen::aot {

/// μ of Ω(x) − μ/2‖x‖² convex, as lower::to_ir computes it (diagonal sum_squares terms).
double strong_convexity(const ir::Problem& p);
std::string strong_convexity_code(const ir::Problem& p);

/// ω, the curvature scale of the smooth terms (detail::curvature_scale), as C++ source.
std::string curvature_scale_code(const ir::Problem& p);

/// An upper bound on ‖K‖₂ of the node's linear part (linear_traits::norm_bound).
std::string norm_bound_code(const ir::Node& n);

/// The node's output extents (std::vector<int>) from the variable's extents `v`.
std::string shape_code(const ir::Node& n);

}  // namespace proxgen::aot
