// Non-negative deconvolution with a smooth (Tikhonov) regularizer: every term but the constraint is
// a quadratic that Condat–Vũ moves by a gradient step, so its plan splits nothing and the loop is
// forward–backward, x⁺ = P₊(x − τ∇h(x)): no dual, no x-update solve. Its data are named: a
// generated solver's Data takes k, b and lambda as written here.
#pragma once

#include <proxgen/proxgen.hpp>

inline auto forward_backward_problem(const proxgen::Image& k = proxgen::Image({5, 5}),
                                     const proxgen::Image& b = proxgen::Image({16, 16}), float lambda = 0.05f) {
    namespace pg = proxgen;
    auto x = pg::variable(b.width(), b.height());
    return pg::sum_squares(pg::conv(pg::input("k", k), x) - pg::input("b", b)) +
           pg::parameter("lambda", lambda) * pg::sum_squares(pg::grad(x)) + pg::nonneg(x);
}
