// Every linear operator passes the dot-product test |⟨Kx, y⟩ − ⟨x, Kᵀy⟩| ≤ 1e-5 ‖Kx‖ ‖y‖ on
// random data at several sizes, odd sizes and 1×N / N×1 images included.
#include <catch2/catch.hpp>

#include <proxgen/lower/evaluate.hpp>
#include <proxgen/typed/to_ir.hpp>

#include "adjoint_check.hpp"

namespace pg = proxgen;
using pg::test::dot;
using pg::test::norm;
using pg::test::random_image;
using pg::test::check_adjoint;

namespace {

const std::vector<std::pair<int, int>> sizes{{16, 16}, {37, 23}, {1, 17}, {17, 1}, {64, 48}, {5, 3}};


pg::Image kernel_for(int w, int h, unsigned seed) {
    // odd and even kernel sizes, never larger than the image
    return random_image({std::min(w, 4), std::min(h, 3)}, seed, 0.0f, 1.0f);
}

}  // namespace

TEST_CASE("grad is adjoint to minus divergence", "[adjoint]") {
    for (auto [w, h] : sizes) {
        auto x = pg::variable(w, h);
        check_adjoint(pg::grad(x), {w, h}, 1);
        auto xc = pg::variable(w, h, 3);
        check_adjoint(pg::grad(xc), {w, h, 3}, 2);
        check_adjoint(pg::grad(x, pg::periodic), {w, h}, 15);
        check_adjoint(pg::grad(xc, pg::periodic), {w, h, 3}, 16);
    }
}

TEST_CASE("circular conv is adjoint to circular correlation", "[adjoint]") {
    for (auto [w, h] : sizes) {
        auto x = pg::variable(w, h);
        check_adjoint(pg::conv(kernel_for(w, h, 3), x), {w, h}, 3);
        auto xc = pg::variable(w, h, 2);
        check_adjoint(pg::conv(kernel_for(w, h, 4), xc), {w, h, 2}, 4);
    }
    auto x = pg::variable(64, 48);
    check_adjoint(pg::conv(random_image({9, 9}, 5, 0, 1), x), {64, 48}, 5);
}

TEST_CASE("mul_elemwise, scale, sum, subsample and offsets", "[adjoint]") {
    for (auto [w, h] : sizes) {
        auto x = pg::variable(w, h);
        check_adjoint(pg::mul_elemwise(random_image({w, h}, 6), x), {w, h}, 6);
        check_adjoint(-2.5f * x, {w, h}, 7);
        check_adjoint(x + 3.0f * x, {w, h}, 8);
        check_adjoint(x - random_image({w, h}, 9), {w, h}, 9);  // the offset is not part of K
        check_adjoint(pg::subsample(x, 2, 3), {w, h}, 10);
    }
}

TEST_CASE("compositions are adjoint", "[adjoint]") {
    for (auto [w, h] : sizes) {
        auto x = pg::variable(w, h);
        const pg::Image k = kernel_for(w, h, 11);
        check_adjoint(pg::grad(pg::conv(k, x)), {w, h}, 11);
        check_adjoint(pg::conv(k, pg::mul_elemwise(random_image({w, h}, 12), x)) + 0.5f * x, {w, h}, 12);
        check_adjoint(pg::subsample(pg::conv(k, x), 2, 2), {w, h}, 13);
        check_adjoint(pg::grad(pg::grad(x)), {w, h}, 14);
    }
}

TEST_CASE("grad matches ProxImaL's convention", "[adjoint]") {
    auto x = pg::variable(3, 2);
    pg::Image v({3, 2});
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 3; ++i) v(i, j) = float(i * i + 10 * j);
    pg::Image g = pg::lower::apply_linear(pg::typed::to_ir(pg::grad(x)), v);
    REQUIRE(g.sizes() == std::vector<int>{3, 2, 2});
    CHECK(g.buffer()(0, 0, 0) == 1.0f);   // x(1) − x(0)
    CHECK(g.buffer()(1, 0, 0) == 3.0f);   // x(2) − x(1)
    CHECK(g.buffer()(2, 0, 0) == 0.0f);   // last column: 0 (Neumann)
    CHECK(g.buffer()(1, 0, 1) == 10.0f);  // y difference
    CHECK(g.buffer()(1, 1, 1) == 0.0f);   // last row: 0
}

TEST_CASE("conv centres the kernel at floor(size/2) and wraps around", "[adjoint]") {
    auto x = pg::variable(5, 4);
    pg::Image delta({5, 4});
    delta(0, 0) = 1.0f;
    pg::Image k({3, 3});
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) k(i, j) = float(1 + i + 3 * j);
    // conv(k, δ₀)(p) = k(p + centre), wrapping: the kernel appears centred on pixel (0,0).
    pg::Image out = pg::lower::apply_linear(pg::typed::to_ir(pg::conv(k, x)), delta);
    CHECK(out(0, 0) == k(1, 1));
    CHECK(out(1, 0) == k(2, 1));
    CHECK(out(4, 0) == k(0, 1));  // wrapped from x = −1
    CHECK(out(0, 3) == k(1, 0));  // wrapped from y = −1
    CHECK(out(2, 2) == 0.0f);
}
