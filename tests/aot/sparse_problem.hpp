// A problem whose ADMM x-update is elementwise (every operator diagonal): a masked sparse
// non-negative fit, sum_squares(m ⊙ x − b) + λ‖x‖₁ + nonneg(x).
#pragma once

#include <proxgen/proxgen.hpp>

inline auto sparse_problem(const proxgen::Image& mask = proxgen::Image({16, 16}),
                           const proxgen::Image& b = proxgen::Image({16, 16}), float lambda = 0.05f) {
    namespace pg = proxgen;
    auto x = pg::variable(b.width(), b.height());
    return pg::sum_squares(pg::mul_elemwise(mask, x) - b) + lambda * pg::norm1(x) + pg::nonneg(x);
}
