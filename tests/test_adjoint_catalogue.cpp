// The dot-product test |⟨Kx, y⟩ − ⟨x, Kᵀy⟩| ≤ 1e-5 ‖Kx‖ ‖y‖ for the wider catalogue (layout,
// boundaries, sampling, colour, volumes), at several sizes including 1×N, N×1 and odd ones; plus
// spot checks that each forward computes what its documentation says.
#include <catch2/catch.hpp>

#include <proxgen/lower/evaluate.hpp>
#include <proxgen/typed/to_ir.hpp>

#include "adjoint_check.hpp"

namespace pg = proxgen;
using pg::test::dot;
using pg::test::norm;
using pg::test::random_image;

namespace {

// (fewer than test_adjoint.cpp's: every check JIT-compiles two pipelines)
const std::vector<std::pair<int, int>> sizes{{37, 23}, {1, 17}, {17, 1}, {5, 3}};

template <class Expr>
void check_adjoint(const Expr& e, const std::vector<int>& var_shape, unsigned seed, bool nonzero = true) {
    pg::test::check_adjoint(e, var_shape, seed, {.nonzero = nonzero, .norm_bound = true});
}

pg::Image homography(double a, double b, double c, double d, double e, double f, double g = 0, double h = 0) {
    pg::Image m({3, 3});
    const double v[3][3] = {{a, b, c}, {d, e, f}, {g, h, 1}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m(j, i) = float(v[i][j]);
    return m;
}

}  // namespace

TEST_CASE("conv with zero and replicate boundaries, and conv_nofft", "[adjoint]") {
    for (auto [w, h] : sizes) {
        auto x = pg::variable(w, h);
        const pg::Image k = random_image({std::min(w, 4), std::min(h, 3)}, 3, 0.0f, 1.0f);
        check_adjoint(pg::conv(k, x, pg::zero_boundary), {w, h}, 1);
        check_adjoint(pg::conv(k, x, pg::replicate), {w, h}, 2);
        check_adjoint(pg::conv_nofft(k, x), {w, h}, 3);
        auto xc = pg::variable(w, h, 2);
        check_adjoint(pg::conv(k, xc, pg::replicate), {w, h, 2}, 4);
        check_adjoint(pg::grad(pg::conv(k, x, pg::zero_boundary)), {w, h}, 5);
    }
    auto x = pg::variable(64, 48);
    check_adjoint(pg::conv(random_image({9, 9}, 5, -1, 1), x, pg::replicate), {64, 48}, 6);
    const pg::Image k = random_image({3, 5}, 7, 0.0f, 1.0f);
    check_adjoint(pg::grad(pg::conv(k, pg::conv(k, x, pg::replicate), pg::replicate)), {64, 48}, 7);
}

TEST_CASE("replicate and zero boundaries read the edge pixel and zero", "[adjoint]") {
    auto x = pg::variable(4, 3);
    pg::Image img({4, 3});
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 4; ++i) img(i, j) = float(1 + i + 10 * j);
    pg::Image k({3, 1});
    k(0, 0) = 1.0f;  // conv: out(p) = in(p + 1) for this kernel (centre 1)
    auto rep = pg::lower::apply_linear(pg::typed::to_ir(pg::conv(k, x, pg::replicate)), img);
    auto zer = pg::lower::apply_linear(pg::typed::to_ir(pg::conv(k, x, pg::zero_boundary)), img);
    auto cir = pg::lower::apply_linear(pg::typed::to_ir(pg::conv(k, x)), img);
    CHECK(rep(0, 1) == img(1, 1));
    CHECK(rep(3, 1) == img(3, 1));  // beyond the edge: the edge pixel
    CHECK(zer(3, 1) == 0.0f);
    CHECK(cir(3, 1) == img(0, 1));
}

TEST_CASE("crop, pad, transpose, reshape", "[adjoint]") {
    for (auto [w, h] : sizes) {
        auto x = pg::variable(w, h);
        check_adjoint(pg::crop(x, w / 3, h / 2, w - w / 3, h - h / 2), {w, h}, 7);
        check_adjoint(pg::pad(x, 2, 1, 0, 3), {w, h}, 8);
        check_adjoint(pg::transpose(x, {1, 0}), {w, h}, 9);
        check_adjoint(pg::reshape<2>(x, {h, w}), {w, h}, 10);
        check_adjoint(pg::reshape<1>(x, {w * h}), {w, h}, 11);
        auto xc = pg::variable(w, h, 3);
        check_adjoint(pg::transpose(pg::grad(xc), {0, 1, 3, 2}), {w, h, 3}, 12);
        check_adjoint(pg::transpose(xc, {2, 0, 1}), {w, h, 3}, 13);
        check_adjoint(pg::reshape<2>(xc, {w, h * 3}), {w, h, 3}, 14);
        check_adjoint(pg::merge_last_axes(pg::grad(xc)), {w, h, 3}, 16);
        check_adjoint(pg::crop(pg::pad(xc, 1, 2, 3, 4), 1, 2, w, h), {w, h, 3}, 15);
    }
}

TEST_CASE("layout operators move the right pixels", "[adjoint]") {
    auto x = pg::variable(3, 2);
    pg::Image v({3, 2});
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 3; ++i) v(i, j) = float(i + 10 * j);
    auto t = pg::lower::apply_linear(pg::typed::to_ir(pg::transpose(x, {1, 0})), v);
    REQUIRE(t.sizes() == std::vector<int>{2, 3});
    CHECK(t(1, 2) == v(2, 1));
    auto c = pg::lower::apply_linear(pg::typed::to_ir(pg::crop(x, 1, 1, 2, 1)), v);
    CHECK(c(0, 0) == v(1, 1));
    auto p = pg::lower::apply_linear(pg::typed::to_ir(pg::pad(x, 1, 0, 0, 1)), v);
    REQUIRE(p.sizes() == std::vector<int>{4, 3});
    CHECK(p(0, 0) == 0.0f);
    CHECK(p(1, 0) == v(0, 0));
    CHECK(p(3, 2) == 0.0f);
    auto r = pg::lower::apply_linear(pg::typed::to_ir(pg::reshape<2>(x, {2, 3})), v);
    CHECK(r(0, 2) == v(1, 1));  // flat index 4 in x-fastest order
    auto s = pg::lower::apply_linear(pg::typed::to_ir(pg::vstack(x, 2.0f * x)), v);
    REQUIRE(s.sizes() == std::vector<int>{3, 4});
    CHECK(s(2, 1) == v(2, 1));
    CHECK(s(2, 3) == 2 * v(2, 1));
}

TEST_CASE("vstack, hstack and concat", "[adjoint]") {
    for (auto [w, h] : sizes) {
        auto x = pg::variable(w, h);
        check_adjoint(pg::vstack(x, pg::mul_elemwise(random_image({w, h}, 16), x)), {w, h}, 16);
        check_adjoint(pg::hstack(x, -3.0f * x, pg::crop(pg::pad(x, 1, 1, 1, 1), 2, 2, w, h)), {w, h}, 17);
        auto xc = pg::variable(w, h, 2);
        check_adjoint(pg::concat(xc, pg::conv(random_image({1, 1}, 18), xc), 2), {w, h, 2}, 18);
        check_adjoint(pg::vstack(pg::grad(x), pg::grad(x, pg::periodic)), {w, h}, 19);
    }
}

TEST_CASE("uneven_subsample gathers at index images", "[adjoint]") {
    for (auto [w, h] : sizes) {
        auto x = pg::variable(w, h);
        // a random index pattern with repeats (several outputs read one pixel)
        const int ow = std::max(1, w / 2 + 1), oh = h + 2;
        pg::Image ix({ow, oh}), iy({ow, oh});
        std::mt19937 gen(20);
        for (int j = 0; j < oh; ++j)
            for (int i = 0; i < ow; ++i) {
                ix(i, j) = float(gen() % w);
                iy(i, j) = float(gen() % h);
            }
        check_adjoint(pg::uneven_subsample(x, ix, iy), {w, h}, 20);
        auto xc = pg::variable(w, h, 3);
        check_adjoint(pg::uneven_subsample(xc, ix, iy), {w, h, 3}, 21);
        // compositions: the scatter reading staged values, and feeding them
        check_adjoint(pg::grad(pg::uneven_subsample(x, ix, iy)), {w, h}, 22);
        check_adjoint(pg::uneven_subsample(pg::conv(random_image({std::min(w, 3), std::min(h, 3)}, 23), x), ix, iy), {w, h}, 23);
    }
    auto x = pg::variable(4, 4);
    pg::Image bad({2, 2});
    bad(0, 0) = 4.0f;
    CHECK_THROWS_WITH(pg::uneven_subsample(x, bad, pg::Image({2, 2})), Catch::Contains("not a pixel of its operand"));
}

TEST_CASE("warp has the exact adjoint", "[adjoint]") {
    const pg::Image hs[] = {
        homography(1, 0, 0.5, 0, 1, -0.25),                                  // sub-pixel shift
        homography(0.96, -0.17, 3, 0.17, 0.96, -2),                          // rotation + shift
        homography(1.6, 0.1, -4, -0.05, 0.7, 1),                             // anisotropic zoom
        homography(1.0, 0.02, 0.3, 0.01, 0.98, 0.7, 0.002, -0.001),          // perspective
    };
    unsigned seed = 30;
    for (auto [w, h] : sizes)
        for (const auto& H : hs) {
            auto x = pg::variable(w, h);
            check_adjoint(pg::warp(x, H), {w, h}, seed++, w > 4 && h > 4);  // thin images may map outside
        }
    auto xc = pg::variable(23, 19, 2);
    check_adjoint(pg::warp(xc, hs[3]), {23, 19, 2}, seed++);
    auto x = pg::variable(40, 30);
    check_adjoint(pg::warp(x, hs[2], 25, 35), {40, 30}, seed++);  // another output size
}

TEST_CASE("warp samples bilinearly at H·p and is 0 outside", "[adjoint]") {
    auto x = pg::variable(4, 3);
    pg::Image v({4, 3});
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 4; ++i) v(i, j) = float(i + 10 * j);
    auto out = pg::lower::apply_linear(pg::typed::to_ir(pg::warp(x, homography(1, 0, 0.5, 0, 1, 1))), v);
    CHECK(out(0, 0) == Approx(0.5f + 10.0f));  // between (0,1) and (1,1)
    CHECK(out(3, 0) == Approx(0.5f * v(3, 1)));  // half of it falls outside
    CHECK(out(0, 2) == 0.0f);                    // row 3 does not exist
    CHECK_THROWS_WITH(pg::warp(x, homography(1, 0, 0, 0, 1, 0, 1, 0)), Catch::Contains("through infinity"));
    CHECK_THROWS_WITH(pg::warp(x, homography(1, 1, 0, 1, 1, 0)), Catch::Contains("singular"));
}

TEST_CASE("mul_color and pxwise_matmul", "[adjoint]") {
    for (auto [w, h] : sizes) {
        auto xc = pg::variable(w, h, 3);
        check_adjoint(pg::mul_color(xc, pg::color::opponent()), {w, h, 3}, 40);
        check_adjoint(pg::mul_color(xc, pg::color::yuv()), {w, h, 3}, 41);
        check_adjoint(pg::mul_color(xc, random_image({3, 3}, 42)), {w, h, 3}, 42);
        check_adjoint(pg::grad(pg::mul_color(xc, pg::color::opponent())), {w, h, 3}, 43);
        check_adjoint(pg::pxwise_matmul(random_image({w, h, 2, 3}, 44), xc), {w, h, 3}, 44);
        check_adjoint(pg::pxwise_matmul(random_image({w, h, 4, 3}, 45), xc), {w, h, 3}, 45);
    }
    auto xc = pg::variable(2, 2, 3);
    pg::Image v = random_image({2, 2, 3}, 46);
    auto y = pg::lower::apply_linear(pg::typed::to_ir(pg::mul_color(xc, pg::color::yuv())), v);
    CHECK(y(1, 0, 0) == Approx(0.299f * v(1, 0, 0) + 0.587f * v(1, 0, 1) + 0.114f * v(1, 0, 2)));
    CHECK_THROWS_WITH(pg::pxwise_matmul(random_image({2, 2, 2, 2}, 1), xc), Catch::Contains("W x H x M x N"));
}

TEST_CASE("grad on volumes and on chosen axes", "[adjoint]") {
    for (auto [w, h] : sizes) {
        auto v = pg::variable(w, h, 5);
        check_adjoint(pg::grad(v, pg::on_axes<0, 1, 2>), {w, h, 5}, 50);
        check_adjoint(pg::grad(v), {w, h, 5}, 56);  // x and y per slice
        check_adjoint(pg::grad(v, pg::on_axes<2>), {w, h, 5}, 51);
        check_adjoint(pg::grad(v, pg::on_axes<0, 1, 2>, pg::periodic), {w, h, 5}, 52);
        auto x = pg::variable(w, h);
        check_adjoint(pg::grad(x, pg::on_axes<1>), {w, h}, 53, h > 1);
        check_adjoint(pg::grad(pg::conv(random_image({1, 1}, 54), v, pg::replicate), pg::on_axes<2, 0>), {w, h, 5}, 54);
    }
    auto v = pg::variable(3, 2, 2);
    pg::Image img = random_image({3, 2, 2}, 55);
    auto g = pg::lower::apply_linear(pg::typed::to_ir(pg::grad(v, pg::on_axes<0, 1, 2>)), img);
    REQUIRE(g.sizes() == std::vector<int>{3, 2, 2, 3});
    CHECK(g.buffer()(1, 0, 0, 2) == img(1, 0, 1) - img(1, 0, 0));
    CHECK(g.buffer()(1, 0, 1, 2) == 0.0f);  // last slice along the third axis
    CHECK(g.buffer()(0, 1, 1, 0) == img(1, 1, 1) - img(0, 1, 1));
}
