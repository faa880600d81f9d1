// Direct evaluation of single operators and proxes, for tests and tools (adjoint tests, prox
// optimality checks). Each call JIT-compiles a small pipeline; the solvers never use these.
#pragma once

#include "proxgen/image.hpp"
#include "proxgen/ir/ir.hpp"

namespace proxgen::lower {

/// K x: the linear part of an expression (constants read as 0) at x.
Image apply_linear(const ir::Node& expr, const Image& x);
/// Kᵀ y in the variable's space.
Image apply_adjoint(const ir::Node& expr, const Image& y);
/// argmin_z α f(z + c) + ρ/2 ‖z − v‖²; c may be empty (no offset).
Image apply_prox(ir::Penalty f, float alpha, float rho, const Image& v, const Image& c = Image());

}  // namespace proxgen::lower
