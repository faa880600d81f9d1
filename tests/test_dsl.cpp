// The DSL front end: distinct variable types, run-time size errors that name the operator and
// both sizes, the compile-time plan (Ω/Ψ), and describe().
#include <catch2/catch.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
using Catch::Matchers::Contains;

TEST_CASE("each variable call site is a distinct type", "[dsl]") {
    auto a = pg::variable(4, 4);
    auto b = pg::variable(4, 4);
    STATIC_REQUIRE(!std::is_same_v<decltype(a), decltype(b)>);
    STATIC_REQUIRE(decltype(a)::rank == 2);
    STATIC_REQUIRE(decltype(pg::variable(4, 4, 3))::rank == 3);
    STATIC_REQUIRE(decltype(pg::grad(a))::rank == 3);
}

TEST_CASE("size mismatches throw proxgen::Error naming the operator and both sizes", "[dsl][errors]") {
    auto x = pg::variable(8, 6);
    const pg::Image b({7, 6});
    CHECK_THROWS_WITH(x - b, Contains("-") && Contains("8x6") && Contains("7x6"));
    CHECK_THROWS_WITH(pg::mul_elemwise(pg::Image({8, 5}), x), Contains("mul_elemwise") && Contains("8x5") && Contains("8x6"));
    CHECK_THROWS_WITH(pg::conv(pg::Image({9, 9}), x), Contains("conv") && Contains("9x9") && Contains("8x6"));
    CHECK_THROWS_WITH(pg::conv(pg::Image(), x), Contains("conv") && Contains("empty"));
    CHECK_THROWS_WITH(x - pg::Image(), Contains("empty"));
    auto y = pg::variable(8, 7);
    CHECK_THROWS_WITH(x + y, Contains("+") && Contains("8x6") && Contains("8x7"));
    CHECK_THROWS_AS(pg::variable(0, 5), pg::Error);
    CHECK_THROWS_WITH(-1.0f * pg::sum_squares(x), Contains("non-negative"));
    CHECK_THROWS_AS(pg::subsample(x, 0, 1), pg::Error);
}

TEST_CASE("the plan puts diagonal quadratics and nonneg(x) in Omega, the rest in Psi", "[plan]") {
    auto x = pg::variable(16, 16);
    const pg::Image b({16, 16}), k({3, 3});
    using denoise = decltype(pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x)));
    using P1 = pg::plan::plan_t<denoise>;
    STATIC_REQUIRE(P1::in_omega[0]);
    STATIC_REQUIRE(!P1::in_omega[1]);
    STATIC_REQUIRE(P1::omega_count == 1);

    using deconv = decltype(pg::sum_squares(pg::conv(k, x) - b) + 0.01f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x));
    using P2 = pg::plan::plan_t<deconv>;
    STATIC_REQUIRE(!P2::in_omega[0]);  // conv is not diagonal in space
    STATIC_REQUIRE(!P2::in_omega[1]);
    STATIC_REQUIRE(P2::in_omega[2]);
    STATIC_REQUIRE(P2::psi_count == 2);

    using weighted = decltype(pg::sum_squares(pg::mul_elemwise(b, x) - b) + pg::norm1(x) + pg::nonneg(2.0f * x));
    using P3 = pg::plan::plan_t<weighted>;
    STATIC_REQUIRE(P3::in_omega[0]);   // diagonal weights: closed form per pixel
    STATIC_REQUIRE(!P3::in_omega[1]);  // norm1 is proxed
    STATIC_REQUIRE(!P3::in_omega[2]);  // nonneg of a scaled x: split (Ω only clamps the bare x)
}

TEST_CASE("describe prints the plan", "[plan]") {
    auto x = pg::variable(32, 32);
    const pg::Image b({32, 32}), k({5, 5});
    auto prob = pg::sum_squares(pg::conv(k, x) - b) + 0.01f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    const std::string d = pg::describe(prob, pg::Algorithm::pock_chambolle);
    CHECK_THAT(d, Contains("Omega") && Contains("nonneg(x)") && Contains("Psi") && Contains("group_norm1(grad(x))") &&
                      Contains("conv(k[5x5], x)") && Contains("tau"));
    CHECK_THAT(pg::describe(prob, pg::Algorithm::ladmm), Contains("lambda") && Contains("mu"));
}
