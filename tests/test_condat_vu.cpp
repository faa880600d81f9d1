// Condat–Vũ (proxgen/algorithms/condat_vu.hpp): the plan keeps the quadratics that have no per-pixel
// prox in Ω for a gradient step (compile-time and run-time planners alike), the solver reaches the
// optimum the other algorithms reach, is Pock–Chambolle bit for bit where nothing is smooth, runs as
// forward–backward where nothing is split, and refuses steps that break its condition. The
// multi-variable problems (tests/test_variables.cpp) and the canonical deconvolution
// (tests/test_canonical.cpp) check it against independent references too.
#include <catch2/catch.hpp>

#include <cmath>

#include "test_support.hpp"

namespace pg = proxgen;
using Catch::Matchers::Contains;
using pg::test::fixed_iterations;

namespace {

constexpr int W = 40, H = 36;

/// A blurred bright rectangle with noise: b = k ⊛ clean + noise, by the solver's own operator.
struct Deconv {
    pg::Image k = pg::test::box_kernel(5);
    pg::Image b{{W, H}};
    Deconv() {
        pg::Image clean({W, H});
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i) clean(i, j) = (i > 10 && i < 28 && j > 8 && j < 25) ? 0.9f : 0.1f;
        b = pg::lower::apply_linear(pg::typed::to_ir(pg::conv(k, pg::variable(W, H))), clean);
        const pg::Image noise = pg::test::random_image({W, H}, 7, -0.02f, 0.02f);
        for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] += noise.data()[i];
    }
};

}  // namespace

TEST_CASE("condat_vu plans a quadratic without a per-pixel prox as a gradient step, typed and run-time alike",
          "[condat_vu]") {
    const Deconv d;
    auto x = pg::variable(W, H);
    using A = pg::Algorithm;
    using deconv = decltype(pg::sum_squares(pg::conv(d.k, x) - d.b) + 0.01f * pg::group_norm1(pg::grad(x)) +
                            pg::nonneg(x));
    using CV = pg::detail::plan_of<deconv, A::condat_vu>;
    STATIC_REQUIRE(CV::in_omega[0]);   // its gradient step: neither split nor solved
    STATIC_REQUIRE(!CV::in_omega[1]);  // TV is split, as in Pock–Chambolle
    STATIC_REQUIRE(CV::in_omega[2]);   // the constraint stays in the per-pixel prox
    STATIC_REQUIRE(CV::x_update == pg::plan::XUpdate::closed_form_prox);
    STATIC_REQUIRE(pg::detail::plan_of<deconv, A::pock_chambolle>::x_update == pg::plan::XUpdate::fft);

    auto prob = pg::sum_squares(pg::conv(d.k, x) - d.b) + 0.01f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    const std::string text = pg::describe(prob, A::condat_vu);
    CHECK_THAT(text, Contains("ProxGen plan (condat_vu)") && Contains("gradient step, ||A||") &&
                         Contains("gradient step: L = ") && Contains("closed-form prox"));
    const pg::rt::Expr v = pg::rt::variable("x", {W, H});
    const pg::rt::Problem same = pg::rt::sum_squares(pg::rt::conv(d.k, v) - d.b) +
                                 0.01 * pg::rt::group_norm1(pg::rt::grad(v)) + pg::rt::nonneg(v);
    CHECK(pg::rt::describe(same, A::condat_vu) == text);
}

TEST_CASE("condat_vu reaches the optimum of a TV deconvolution with nonneg that ADMM reaches", "[condat_vu]") {
    const Deconv d;
    auto x = pg::variable(W, H);
    auto prob = pg::sum_squares(pg::conv(d.k, x) - d.b) + 0.005f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    const double best = pg::objective(prob, pg::solve(prob, fixed_iterations(pg::Algorithm::admm, 3000)));
    pg::Options opt;
    opt.algorithm = pg::Algorithm::condat_vu;
    opt.max_iters = 3000;
    const pg::Result r = pg::solve(prob, opt);
    const double f = pg::objective(prob, r);
    INFO("ADMM " << best << ", Condat-Vu " << f << " after " << r.iterations << " iterations");
    CHECK(r.converged);
    CHECK(r.algorithm == pg::Algorithm::condat_vu);
    CHECK(std::abs(f - best) <= 2e-3 * best);  // the default tolerances' accuracy
    const pg::Result tight = pg::solve(prob, fixed_iterations(pg::Algorithm::condat_vu, 3000));
    CHECK(std::abs(pg::objective(prob, tight) - best) <= 1e-5 * best);
    // a warm start from the converged result is converged at its first check
    const pg::Result w = pg::solve(prob, opt, r);
    CHECK(w.converged);
    CHECK(w.iterations <= opt.check_every);
}

TEST_CASE("condat_vu without a split is forward-backward and reaches the nonnegative least-squares optimum",
          "[condat_vu]") {
    const Deconv d;
    auto x = pg::variable(W, H);
    auto prob = pg::sum_squares(pg::conv(d.k, x) - d.b) + pg::nonneg(x);
    CHECK_THAT(pg::describe(prob, pg::Algorithm::condat_vu), Contains("Psi (split z_i = K_i x, proxed):\n    (none)"));
    const pg::Result r = pg::solve(prob, fixed_iterations(pg::Algorithm::condat_vu, 4000));
    const double best = pg::objective(prob, pg::solve(prob, fixed_iterations(pg::Algorithm::admm, 4000)));
    const double f = pg::objective(prob, r);
    INFO("ADMM " << best << ", forward-backward " << f);
    double lowest = 1;
    for (std::size_t i = 0; i < r.x.size(); ++i) lowest = std::min(lowest, double(r.x.data()[i]));
    CHECK(lowest >= 0);
    CHECK(f <= best + 1e-4 * best);
}

TEST_CASE("condat_vu with nothing smooth to step along iterates as Pock-Chambolle bit for bit", "[condat_vu]") {
    const Deconv d;
    auto x = pg::variable(W, H);
    auto prob = pg::sum_squares(x - d.b) + 0.05f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    pg::Options opt;
    opt.max_iters = 200;
    opt.algorithm = pg::Algorithm::pock_chambolle;
    const pg::Result pc = pg::solve(prob, opt);
    opt.algorithm = pg::Algorithm::condat_vu;
    const pg::Result cv = pg::solve(prob, opt);
    CHECK(cv.iterations == pc.iterations);
    REQUIRE(cv.x.size() == pc.x.size());
    CHECK(std::equal(cv.x.data(), cv.x.data() + cv.x.size(), pc.x.data()));
}

TEST_CASE("condat_vu refuses steps that break its condition and is not differentiated", "[condat_vu]") {
    const Deconv d;
    auto x = pg::variable(W, H);
    auto prob = pg::sum_squares(pg::conv(d.k, x) - d.b) + 0.005f * pg::group_norm1(pg::grad(x));
    pg::Options opt;
    opt.algorithm = pg::Algorithm::condat_vu;
    opt.tau = 1.0;
    opt.sigma = 1.0;
    CHECK_THROWS_WITH(pg::solve(prob, opt), Contains("condat_vu: tau * (sigma * ||K||^2 + L/2) =") &&
                                                Contains("the iteration may diverge"));
    opt.sigma = 0;  // τ alone: σ follows from the condition
    opt.tau = 0.5;
    opt.max_iters = 20;
    CHECK_NOTHROW(pg::solve(prob, opt));

    const pg::rt::Expr v = pg::rt::variable("x", {W, H});
    const pg::rt::Problem same = pg::rt::sum_squares(pg::rt::conv(d.k, v) - pg::rt::input("b", d.b)) +
                                 0.005 * pg::rt::group_norm1(pg::rt::grad(v));
    pg::Options g;
    g.algorithm = pg::Algorithm::condat_vu;
    g.max_iters = 10;
    CHECK_THROWS_WITH(pg::rt::gradient(same, g, pg::Loss::sum_squares(d.b)),
                      Contains("gradient: condat_vu is not differentiated"));
}
