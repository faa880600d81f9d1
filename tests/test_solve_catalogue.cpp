// The catalogue's traits drive valid plans: ADMM (elementwise x-update for a Gram-diagonal gather,
// CG for a warp) and Pock–Chambolle (step sizes from the norm bounds) reach the same objective.
#include <catch2/catch.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
using pg::test::random_image;


TEST_CASE("uneven_subsample: ADMM's elementwise x-update and PC agree", "[solve]") {
    const int W = 24, H = 18;
    pg::Image ix({16, 12}), iy({16, 12});
    std::mt19937 gen(3);
    for (int j = 0; j < 12; ++j)
        for (int i = 0; i < 16; ++i) ix(i, j) = float(gen() % W), iy(i, j) = float(gen() % H);
    const pg::Image b = random_image({16, 12}, 4);
    auto x = pg::variable(W, H);
    auto prob = pg::sum_squares(pg::uneven_subsample(x, ix, iy) - b) + 0.1f * pg::sum_squares(x) +
                0.05f * pg::norm1(pg::crop(x, 2, 3, 10, 9));
    REQUIRE(pg::describe(prob, pg::Algorithm::admm).find("elementwise") != std::string::npos);
    const auto admm = pg::solve(prob, pg::test::fixed_iterations(pg::Algorithm::admm, 400));
    const auto pc = pg::solve(prob, pg::test::fixed_iterations(pg::Algorithm::pock_chambolle, 3000));
    const double fa = pg::objective(prob, admm), fp = pg::objective(prob, pc);
    INFO("ADMM " << fa << ", PC " << fp);
    CHECK(std::abs(fa - fp) <= 1e-3 * std::abs(fp));
}

TEST_CASE("warp: ADMM with CG and PC agree", "[solve]") {
    pg::Image h({3, 3});
    const double m[3][3] = {{0.97, -0.1, 1.2}, {0.1, 0.97, -0.8}, {0, 0, 1}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) h(j, i) = float(m[i][j]);
    const pg::Image b = random_image({20, 16}, 5, 0.0f, 1.0f);
    auto x = pg::variable(20, 16);
    auto prob = pg::sum_squares(pg::warp(x, h) - b) + 0.05f * pg::group_norm1(pg::grad(x)) + 0.01f * pg::sum_squares(x);
    REQUIRE(pg::describe(prob, pg::Algorithm::admm).find("conjugate gradient") != std::string::npos);
    const auto admm = pg::solve(prob, pg::test::fixed_iterations(pg::Algorithm::admm, 300));
    const auto pc = pg::solve(prob, pg::test::fixed_iterations(pg::Algorithm::pock_chambolle, 3000));
    const double fa = pg::objective(prob, admm), fp = pg::objective(prob, pc);
    INFO("ADMM " << fa << ", PC " << fp);
    CHECK(std::abs(fa - fp) <= 1e-3 * std::abs(fp));
}
