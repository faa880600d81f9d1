// Problems in two variables for generated solvers (test_aot_variables.cpp): the generator calls
// each with its placeholder data (only the structure is compiled), the test with real data for
// the JIT reference.
#pragma once

#include <proxgen/proxgen.hpp>

/// A layer split: b = x + y, x piecewise constant (TV), y smooth.
inline auto layers_problem(const proxgen::Image& b = proxgen::Image({16, 16}), float lambda = 0.1f, float mu = 0.5f) {
    namespace pg = proxgen;
    auto x = pg::variable(b.width(), b.height());
    auto y = pg::variable(b.width(), b.height());
    return pg::sum_squares(x + y - b) + lambda * pg::group_norm1(pg::grad(x)) + mu * pg::sum_squares(pg::grad(y));
}

/// A deconvolution with an additive layer y: b = k * x + y, x non-negative with TV, y small.
inline auto coupled_deconv_problem(const proxgen::Image& k = proxgen::Image({5, 5}),
                                   const proxgen::Image& b = proxgen::Image({16, 16}), float lambda = 0.01f,
                                   float mu = 2.0f) {
    namespace pg = proxgen;
    auto x = pg::variable(b.width(), b.height());
    auto y = pg::variable(b.width(), b.height());
    return pg::sum_squares(pg::conv(k, x) + y - b) + lambda * pg::group_norm1(pg::grad(x)) + mu * pg::sum_squares(y) +
           pg::nonneg(x);
}

/// Two variables of different sizes: x full resolution, y at half resolution, coupled through
/// subsample: x close to b, every second sample of x plus y close to c, y smooth and non-negative.
inline auto two_sizes_problem(const proxgen::Image& b = proxgen::Image({16, 16}),
                              const proxgen::Image& c = proxgen::Image({8, 8}), float lambda = 0.1f) {
    namespace pg = proxgen;
    auto x = pg::variable(b.width(), b.height());
    auto y = pg::variable(c.width(), c.height());
    return pg::sum_squares(pg::subsample(x, 2, 2) + y - c) + lambda * pg::group_norm1(pg::grad(x)) +
           pg::sum_squares(x - b) + 0.5f * pg::sum_squares(pg::grad(y)) + pg::nonneg(y);
}

/// Variables in disjoint terms, each block with its own exact x-update: x deconvolved (circular
/// blur: its Gram is diagonal in the DFT basis) under a sparsity prior, y at half resolution
/// denoised under a smoothness prior (Neumann differences: the DCT basis) and kept non-negative.
/// Its data are named: a generated solver's Data takes k, b and c.
inline auto blocks_problem(const proxgen::Image& k = proxgen::Image({5, 5}),
                           const proxgen::Image& b = proxgen::Image({16, 16}),
                           const proxgen::Image& c = proxgen::Image({8, 8})) {
    namespace pg = proxgen;
    auto x = pg::variable(b.width(), b.height());
    auto y = pg::variable(c.width(), c.height());
    return pg::sum_squares(pg::conv(pg::input("k", k), x) - pg::input("b", b)) + 0.05f * pg::norm1(x) +
           pg::sum_squares(y - pg::input("c", c)) + 0.1f * pg::sum_squares(pg::grad(y)) + pg::nonneg(y);
}
