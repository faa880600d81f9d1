// The masked super-resolution problem (a random mask over the samples of a blurred image
// subsampled 2×2, TV + nonneg): its data term's operator reaches a grid of another shape, so no
// plan fuses it with the variable's pixels: generated solvers run the separate steps. Its data are
// named: a generated solver's Data takes mask, k, b and lambda as written here.
#pragma once

#include <proxgen/proxgen.hpp>

inline auto superres_problem(const proxgen::Image& mask = proxgen::Image({8, 8}),
                             const proxgen::Image& k = proxgen::Image({5, 5}),
                             const proxgen::Image& b = proxgen::Image({8, 8}), float lambda = 0.01f) {
    namespace pg = proxgen;
    auto x = pg::variable(2 * b.width(), 2 * b.height());
    return pg::sum_squares(pg::mul_elemwise(pg::input("mask", mask), pg::subsample(pg::conv(pg::input("k", k), x), 2, 2)) -
                           pg::input("b", b)) +
           pg::parameter("lambda", lambda) * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
}
