// A second problem for the tests: TV denoising, sum_squares(x - b) + lambda * group_norm1(grad(x)).
// Its plan is Halide-only already (Ω = the strongly convex data term: the accelerated loop), so
// pg::solve runs exactly the plan its generated solver runs.
#pragma once

#include <proxgen/proxgen.hpp>

inline auto denoise_problem(const proxgen::Image& b = proxgen::Image({16, 16}), float lambda = 0.1f) {
    namespace pg = proxgen;
    auto x = pg::variable(b.width(), b.height());
    return pg::sum_squares(x - b) + lambda * pg::group_norm1(pg::grad(x));
}
