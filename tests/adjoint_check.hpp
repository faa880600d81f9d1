// The dot-product adjoint test shared by test_adjoint.cpp and test_adjoint_catalogue.cpp:
// |⟨Kx, y⟩ − ⟨x, Kᵀy⟩| ≤ 1e-5 ‖Kx‖ ‖y‖ on random x and y, optionally with the operator doing
// something (Kx ≠ 0) and the planner's norm bound holding on this x.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>

#include <proxgen/lower/evaluate.hpp>
#include <proxgen/typed/to_ir.hpp>

#include "test_support.hpp"

namespace proxgen::test {

struct AdjointChecks {
    bool nonzero = false;     // ‖Kx‖ > 0
    bool norm_bound = false;  // ‖Kx‖ ≤ the planner's norm bound (plan::norm_bound) · ‖x‖
};

template <class Expr>
void check_adjoint(const Expr& e, const std::vector<int>& var_shape, unsigned seed, AdjointChecks also = {}) {
    const ir::Node n = typed::to_ir(e);
    const Image x = random_image(var_shape, seed);
    const Image y = random_image(n.shape, seed + 1);
    const Image kx = lower::apply_linear(n, x);
    const Image kty = lower::apply_adjoint(n, y);
    REQUIRE(kx.sizes() == n.shape);
    REQUIRE(kty.sizes() == var_shape);
    const double lhs = dot(kx, y), rhs = dot(x, kty);
    INFO(ir::to_string(n) << " on " << shape_string(var_shape) << ": <Kx,y> = " << lhs << ", <x,K'y> = " << rhs);
    CHECK(std::abs(lhs - rhs) <= 1e-5 * norm(kx) * norm(y) + 1e-30);
    CHECK(std::isfinite(lhs));
    if (also.nonzero) CHECK(norm(kx) > 0);  // the operator did something
    if (also.norm_bound) CHECK(norm(kx) <= plan::norm_bound(n) * norm(x) * (1 + 1e-5));
}

}  // namespace proxgen::test
