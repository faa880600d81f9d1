// A generated solver with a penalty card that has no node type of its own: colour denoising under
// the vectorial TV, sum_squares(x - b) + lambda * schatten(grad(x), 1) (nuclear norms of the
// pixels' 3 x 2 Jacobians).
#pragma once

#include <proxgen/proxgen.hpp>

inline auto vtv_problem(const proxgen::Image& b = proxgen::Image({16, 16, 3}), float lambda = 0.1f) {
    namespace pg = proxgen;
    auto x = pg::variable(b.width(), b.height(), 3);
    return pg::sum_squares(x - b) + lambda * pg::schatten(pg::grad(x), 1);
}
