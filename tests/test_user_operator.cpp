// User-defined operators (proxgen/user_operator.hpp): the forward is the user's Halide Func; the
// adjoint is theirs or derived by autodiff, and either way passes the dot-product test; a problem
// with a user operator solves to the same point as the same problem written with built-ins.
#include <catch2/catch.hpp>

#include <proxgen/lower/evaluate.hpp>
#include <proxgen/user_operator.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
using pg::test::dot;
using pg::test::norm;
using pg::test::random_image;

namespace {

template <class Expr>
void check_adjoint(const Expr& e, const std::vector<int>& shape, unsigned seed) {
    const pg::ir::Node n = pg::typed::to_ir(e);
    const pg::Image x = random_image(shape, seed), y = random_image(n.shape, seed + 1);
    const pg::Image kx = pg::lower::apply_linear(n, x), kty = pg::lower::apply_adjoint(n, y);
    INFO(pg::ir::to_string(n) << " on " << pg::shape_string(shape));
    CHECK(norm(kx) > 0);
    CHECK(std::abs(dot(kx, y) - dot(x, kty)) <= 1e-5 * norm(kx) * norm(y));
}

// out(x, y) = in(x − 1, y) + 2 in(x, y + 1): reads outside the image (zeros there)
Halide::Func stencil(const Halide::Func& in) {
    Halide::Func out("stencil");
    Halide::Var x, y;
    out(x, y) = in(x - 1, y) + 2.0f * in(x, y + 1);
    return out;
}

}  // namespace

TEST_CASE("user operator: autodiff adjoint of a stencil", "[user]") {
    pg::user_operator op("stencil", stencil);
    for (auto [w, h] : std::vector<std::pair<int, int>>{{23, 17}, {1, 9}, {9, 1}}) {
        auto x = pg::variable(w, h);
        check_adjoint(op(x), {w, h}, 1);
        check_adjoint(pg::grad(op(x)), {w, h}, 2);
    }
    // the estimated norm bound is above the true norm (√5 < 3 for this stencil, at most)
    CHECK(op.definition().norm_bound >= 2.0);
    CHECK(op.definition().norm_bound <= 4.5);
}

TEST_CASE("user operator: autodiff turns a non-invertible gather into a parallel scatter", "[user]") {
    // nearest-neighbour upsampling along x of the left half: in(x / 2, y) cannot be inverted
    pg::user_operator op("upsample_x", [](const Halide::Func& in) {
        Halide::Func out;
        Halide::Var x, y, c;
        out(x, y, c) = in(x / 2, y, c);
        return out;
    });
    auto x = pg::variable(20, 7, 3);
    check_adjoint(op(x), {20, 7, 3}, 3);
}

TEST_CASE("user operator: a given adjoint is used", "[user]") {
    pg::user_operator op(
        "scale3", [](const Halide::Func& in) {
            Halide::Func out;
            Halide::Var x, y;
            out(x, y) = 3.0f * in(x, y);
            return out;
        },
        [](const Halide::Func& in) {
            Halide::Func out;
            Halide::Var x, y;
            out(x, y) = 3.0f * in(x, y);
            return out;
        },
        3.0);
    auto x = pg::variable(8, 8);
    check_adjoint(op(x), {8, 8}, 4);
    const auto y = pg::lower::apply_adjoint(pg::typed::to_ir(op(x)), random_image({8, 8}, 5));
    CHECK(y(2, 3) == Approx(3.0f * random_image({8, 8}, 5)(2, 3)));
    CHECK_THROWS_WITH(pg::user_operator("bad", {}), Catch::Contains("forward function is empty"));
}

TEST_CASE("a problem with a user operator solves like the same problem with built-ins", "[user]") {
    // the zero-boundary 3-tap blur along x, written by hand
    pg::Image k({3, 1});
    k(0, 0) = 0.25f, k(1, 0) = 0.5f, k(2, 0) = 0.25f;
    pg::user_operator blur("blur_x", [](const Halide::Func& in) {
        Halide::Func out;
        Halide::Var x, y;
        out(x, y) = 0.25f * in(x + 1, y) + 0.5f * in(x, y) + 0.25f * in(x - 1, y);
        return out;
    }, {}, 1.0);
    const pg::Image b = random_image({24, 16}, 6, 0.0f, 1.0f);
    auto x = pg::variable(24, 16);
    pg::Options opt;
    opt.algorithm = pg::Algorithm::pock_chambolle;
    opt.max_iters = 200;
    opt.eps_abs = opt.eps_rel = 0;
    auto mine = pg::solve(pg::sum_squares(blur(x) - b) + 0.05f * pg::group_norm1(pg::grad(x)), opt);
    auto builtin = pg::solve(pg::sum_squares(pg::conv(k, x, pg::zero_boundary) - b) + 0.05f * pg::group_norm1(pg::grad(x)), opt);
    const pg::Image a = mine[x], c = builtin[x];
    double diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) diff = std::max(diff, double(std::abs(a.data()[i] - c.data()[i])));
    CHECK(diff < 1e-4);
    CHECK(norm(a) > 0);
}

TEST_CASE("user operator: a Halide runtime error in its kernel is an Error, not an abort", "[user]") {
    // kernels of process-local code are compiled in memory: their runtime errors must reach the call
    pg::user_operator op("guarded", [](const Halide::Func& in) {
        Halide::Func out("guarded");
        Halide::Var x, y;
        out(x, y) = Halide::require(in(x, y) < 1000.0f, in(x, y), "the guarded operator saw a value of", in(x, y));
        return out;
    }, {}, 1.0);
    auto v = pg::variable(6, 5);
    const pg::ir::Node n = pg::typed::to_ir(op(v));
    pg::Image x = random_image({6, 5}, 3);
    CHECK(norm(pg::lower::apply_linear(n, x)) > 0);
    x(2, 3) = 5000.0f;
    REQUIRE_THROWS_WITH(pg::lower::apply_linear(n, x), Catch::Contains("the guarded operator saw a value of"));
}
