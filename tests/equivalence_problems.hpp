// Every typed problem of the test suite, the canonical problems and the examples' problems, at small
// sizes, each written ONCE as a generic lambda of its variable: called with a typed variable
// (pg::variable) it is a typed DSL problem, called with a run-time one (pg::rt::variable) the same
// tokens build a run-time problem (argument-dependent lookup finds pg::rt's functions). So the two
// front ends see exactly the same problem, data included.
//
//   for_each_problem([](const char* name, auto rank, const std::vector<int>& shape, auto make,
//                       const pg::Image& x0) { ... make(variable) ... });
#pragma once

#include <cmath>
#include <random>
#include <type_traits>
#include <vector>

#include <proxgen/proxgen.hpp>

#include "test_support.hpp"

namespace proxgen::test {

template <int R>
using rank_c = std::integral_constant<int, R>;

template <class Visit>
void for_each_problem(Visit&& visit) {
    const int W = 20, H = 16;
    const std::vector<int> s2{W, H}, s3{W, H, 3};
    const Image b = random_image(s2, 101, 0, 1), b3 = random_image(s3, 102, 0, 1);
    const Image k = random_image({5, 5}, 100, 0, 0.08f), w = random_image(s2, 103, 0.2f, 1.5f), g = random_image({W, H, 2}, 104);
    Image mask(s2), mask3(s3), counts(s2);
    std::mt19937 gen(7);
    for (std::size_t i = 0; i < mask.size(); ++i) mask.data()[i] = float(gen() % 2);
    for (std::size_t i = 0; i < mask3.size(); ++i) mask3.data()[i] = float(gen() % 2);
    for (std::size_t i = 0; i < counts.size(); ++i) counts.data()[i] = float(gen() % 40);
    const Image low = random_image({W / 2, H / 2}, 105, 0, 1);
    Image ix({12, 10}), iy({12, 10});
    for (int j = 0; j < 10; ++j)
        for (int i = 0; i < 12; ++i) ix(i, j) = float(gen() % W), iy(i, j) = float(gen() % H);
    const Image bg = random_image({12, 10}, 106);
    Image hom({3, 3});
    const double m[3][3] = {{0.97, -0.1, 1.2}, {0.1, 0.97, -0.8}, {0, 0, 1}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) hom(j, i) = float(m[i][j]);
    const Image A = random_image({W, H, 2, 3}, 107), b_pm = random_image({W, H, 2}, 108);
    const Image volume = random_image({W, H, 4}, 109, 0, 1), wg = random_image({W, H, 2}, 110, 0.2f, 1.5f);
    const Image none;

    // ---- test_solve, test_canonical (the canonical problems), test_dsl's plans --------------
    visit("tv_denoise", rank_c<2>{}, s2, [=](auto x) { return sum_squares(x - b) + 0.1f * group_norm1(grad(x)); }, none);
    visit("tv_deconv_nonneg", rank_c<2>{}, s2, [=](auto x) {
        return sum_squares(conv(k, x) - b) + 0.005f * group_norm1(grad(x)) + nonneg(x);
    }, none);
    visit("poisson_tv", rank_c<2>{}, s2, [=](auto x) {
        return poisson_norm(conv(k, x), counts) + 0.02f * group_norm1(grad(x));
    }, counts);
    visit("anisotropic", rank_c<2>{}, s2, [=](auto x) { return sum_squares(x - b) + 0.1f * norm1(grad(x)); }, none);
    visit("denoise_nonneg_1xN", rank_c<2>{}, {1, 17}, [=](auto x) {
        return sum_squares(x - random_image({1, 17}, 6, 0, 1)) + 0.1f * group_norm1(grad(x)) + nonneg(x);
    }, none);
    visit("masked_conv", rank_c<2>{}, s2, [=](auto x) { return sum_squares(mul_elemwise(b, conv(k, x)) - b) + nonneg(x); }, none);
    visit("absorbed_weights", rank_c<2>{}, s2, [=](auto x) {
        return sum_squares(mul_elemwise(b, x) - b) + norm1(x) + nonneg(2.0f * x) + norm1(mul_elemwise(wg, grad(x)));
    }, none);
    visit("periodic_deconv", rank_c<2>{}, s2, [=](auto x) {
        return sum_squares(conv(k, x) - b) + 0.1f * group_norm1(grad(x, periodic));
    }, none);
    visit("weighted_periodic", rank_c<2>{}, s2, [=](auto x) {
        return sum_squares(mul_elemwise(b, conv(k, x)) - b) + norm1(grad(x, periodic));
    }, none);
    visit("elementwise", rank_c<2>{}, s2, [=](auto x) { return sum_squares(x - b) + norm1(x) + nonneg(x); }, none);
    visit("tv_only", rank_c<2>{}, s2, [=](auto x) { return group_norm1(grad(x)); }, none);  // singular for ADMM / HQS
    visit("merged_quadratics", rank_c<2>{}, s2, [=](auto x) {
        return sum_squares(x - b) + 0.5f * sum_squares(3.0f * x + w) + sum_squares(grad(x)) +
               0.2f * sum_squares(grad(x) - g) + 0.1f * norm1(x) + sum_squares(conv(k, x)) + sum_squares(conv(k, x) - b);
    }, none);
    visit("scaled_offset_weights", rank_c<2>{}, s2, [=](auto x) {
        return 3.0f * norm1(2.0f * (mul_elemwise(w, x) - b)) + sum_squares(x) + group_norm1(grad(x) - g);
    }, none);
    // test_solve_catalogue
    visit("uneven_subsample", rank_c<2>{}, s2, [=](auto x) {
        return sum_squares(uneven_subsample(x, ix, iy) - bg) + 0.1f * sum_squares(x) + 0.05f * norm1(crop(x, 2, 3, 10, 9));
    }, none);
    visit("warp", rank_c<2>{}, s2, [=](auto x) {
        return sum_squares(warp(x, hom) - b) + 0.05f * group_norm1(grad(x)) + 0.01f * sum_squares(x);
    }, none);

    // ---- the examples' problems -------------------------------------------------------------
    visit("inpainting", rank_c<2>{}, s2, [=](auto x) { return sum_squares(mul_elemwise(mask, x) - b) + 0.01f * group_norm1(grad(x)); }, none);
    visit("demosaicking", rank_c<3>{}, s3, [=](auto x) {
        return sum_squares(mul_elemwise(mask3, x) - b3) + 0.004f * group_norm1(merge_last_axes(grad(x))) +
               0.004f * norm1(grad(mul_color(x, color::opponent())));
    }, none);
    visit("super_resolution", rank_c<2>{}, s2, [=](auto x) {
        return sum_squares(subsample(conv(k, x), 2, 2) - low) + 0.001f * group_norm1(grad(x));
    }, none);
    visit("color_deblurring", rank_c<3>{}, s3, [=](auto x) {
        return sum_squares(conv(k, x) - b3) + 0.002f * group_norm1(merge_last_axes(grad(x))) + nonneg(x);
    }, none);
    visit("poisson_deblurring", rank_c<2>{}, s2, [=](auto x) {
        return poisson_norm(conv(k, x), counts) + 0.5f * group_norm1(grad(x)) + nonneg(x);
    }, counts);
    visit("volume_denoising", rank_c<3>{}, {W, H, 4}, [=](auto x) {
        return sum_squares(x - volume) + 0.06f * group_norm1(grad(x, on_axes<0, 1, 2>));
    }, none);

    // ---- the rest of the catalogue (docs/operators.md) --------------------------------------
    visit("penalties", rank_c<2>{}, s2, [=](auto x) {
        return huber(x - b, 0.3f) + box(x, 0.0f, 1.0f) + masked_nonneg(x - b, mask) + 0.01f * sum_entries(x) +
               least_squares(conv(k, x) - b);
    }, none);
    visit("weighted_penalties", rank_c<2>{}, s2, [=](auto x) {
        return weighted_sum_squares(w, x - b) + 0.1f * weighted_norm1(wg, grad(x)) + weighted_nonneg(w, x) +
               0.1f * weighted_group_norm1(w, grad(x));
    }, none);
    visit("weighted_poisson", rank_c<2>{}, s2, [=](auto x) {
        return weighted_poisson_norm(w, conv(k, x), counts) + 0.1f * group_norm1(grad(x));
    }, counts);
    visit("boundaries", rank_c<2>{}, s2, [=](auto x) {
        return sum_squares(conv(k, x, zero_boundary) - b) + sum_squares(conv_nofft(k, x) - b) +
               0.1f * norm1(grad(x, periodic)) + 0.1f * norm1(grad(x, on_axes<1>));
    }, none);
    visit("layout", rank_c<2>{}, s2, [=](auto x) {
        return sum_squares(pad(crop(x, 1, 2, 15, 12), 2, 1, 3, 3) - b) + 0.1f * norm1(transpose(x, {1, 0})) +
               0.1f * sum_squares(reshape<2>(x, {H, W})) + 0.1f * norm1(vstack(x, 2.0f * x, x)) +
               0.1f * norm1(hstack(grad(x), grad(x))) + 0.1f * sum_squares(concat(x, -x, 0));
    }, none);
    visit("pxwise_matmul", rank_c<3>{}, {W, H, 3}, [=](auto x) {
        return sum_squares(pxwise_matmul(A, x) - b_pm) + 0.1f * sum_squares(x);
    }, none);
    visit("offsets_inside", rank_c<2>{}, s2, [=](auto x) {
        return sum_squares(conv(k, x - b) + w) + 0.1f * group_norm1(grad(b - x)) + sum_squares(b + x - w);
    }, none);
}

}  // namespace proxgen::test
