// Solvers against math and against ProxImaL: the reference TV-denoise problem of
// ../shared/reference reaches ProxImaL's best known objective; caching, warm starts, callbacks,
// stopping and bad input behave as documented.
#include <catch2/catch.hpp>

#include <proxgen/lower/evaluate.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
using Catch::Matchers::Contains;
using pg::test::fixed_iterations;

namespace {

constexpr double proximal_best = 728.85558;  // ProxImaL PC, 2000 iterations (float64 objective)


}  // namespace

TEST_CASE("TV denoise reaches ProxImaL's objective within 1e-4 in 1000 iterations", "[solve][reference]") {
    const pg::Image b = pg::load_image(pg::test::shared_dir() + "/reference/denoise_b_512.npy");
    auto x = pg::variable(b.width(), b.height());
    auto prob = pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x));
    const pg::Image reference = pg::load_image(pg::test::shared_dir() + "/reference/denoise_512_pc_2000.npy");
    CHECK(std::abs(pg::objective(prob, reference) - proximal_best) < 1e-3);  // our objective agrees with theirs

    for (auto alg : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm, pg::Algorithm::hqs}) {
        const pg::Result res = pg::solve(prob, fixed_iterations(alg, 1000));
        const double f = pg::objective(prob, res);
        INFO(pg::name(alg) << ": objective " << f);
        CHECK(res.iterations == 1000);
        CHECK(std::abs(f - proximal_best) / proximal_best <= 1e-4);
        // and the solution is ProxImaL's, pixel for pixel, to the accuracy of its 2000 iterations
        double diff = 0, ref = 0;
        for (std::size_t i = 0; i < b.size(); ++i) {
            diff += std::pow(double(res[x].data()[i]) - reference.data()[i], 2);
            ref += std::pow(double(reference.data()[i]), 2);
        }
        CHECK(std::sqrt(diff / ref) < 2e-3);
    }
}

TEST_CASE("a second solve of the same problem type does not recompile", "[solve][jit]") {
    const pg::Image b = pg::test::random_image({40, 30}, 1, 0, 1);
    auto x = pg::variable(40, 30);
    auto prob = pg::sum_squares(x - b) + 0.2f * pg::group_norm1(pg::grad(x));
    pg::solve(prob, fixed_iterations(pg::Algorithm::ladmm, 3));
    const int compiled = pg::jit_stats().pipelines_compiled;
    // new data and sizes, same structure: no new pipelines
    const pg::Image b2 = pg::test::random_image({25, 33}, 2, 0, 1);
    auto x2 = pg::variable(25, 33);
    auto prob2 = pg::sum_squares(x2 - b2) + 0.05f * pg::group_norm1(pg::grad(x2));
    const pg::Result r = pg::solve(prob2, fixed_iterations(pg::Algorithm::ladmm, 3));
    CHECK(pg::jit_stats().pipelines_compiled == compiled);
    CHECK(r.compile_seconds == 0.0);
}

TEST_CASE("warm start continues exactly where L-ADMM stopped", "[solve]") {
    const pg::Image b = pg::test::random_image({32, 32}, 3, 0, 1);
    auto x = pg::variable(32, 32);
    auto prob = pg::sum_squares(x - b) + 0.3f * pg::group_norm1(pg::grad(x));
    const pg::Result straight = pg::solve(prob, fixed_iterations(pg::Algorithm::ladmm, 60));
    const pg::Result first = pg::solve(prob, fixed_iterations(pg::Algorithm::ladmm, 30));
    const pg::Result second = pg::solve(prob, fixed_iterations(pg::Algorithm::ladmm, 30), first);
    double d = 0;
    for (std::size_t i = 0; i < b.size(); ++i) d = std::max(d, double(std::abs(straight[x].data()[i] - second[x].data()[i])));
    CHECK(d < 1e-5);
    // x0 alone is a warm start too, and must have the variable's shape
    pg::Options opt = fixed_iterations(pg::Algorithm::pock_chambolle, 5);
    opt.x0 = b;
    CHECK(pg::objective(prob, pg::solve(prob, opt)) <= pg::objective(prob, b) + 1e-6);
    opt.x0 = pg::Image({31, 32});
    CHECK_THROWS_WITH(pg::solve(prob, opt), Contains("31x32") && Contains("32x32"));
}

TEST_CASE("callback, tolerance stopping and the iteration history", "[solve]") {
    const pg::Image b = pg::test::random_image({48, 40}, 4, 0, 1);
    auto x = pg::variable(48, 40);
    auto prob = pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x));
    pg::Options opt = fixed_iterations(pg::Algorithm::pock_chambolle, 100);
    int calls = 0;
    opt.callback = [&](const pg::IterationInfo& info) {
        ++calls;
        return info.iteration < 7;
    };
    pg::Result r = pg::solve(prob, opt);
    CHECK(r.iterations == 7);
    CHECK(calls == 7);
    CHECK(r.status == pg::Status::stopped_by_callback);

    for (auto alg : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm}) {
        pg::Options tol;
        tol.algorithm = alg;
        tol.max_iters = 5000;
        tol.eps_abs = 1e-4;
        tol.eps_rel = 1e-3;
        tol.check_every = 5;
        tol.track_objective = true;
        r = pg::solve(prob, tol);
        INFO(pg::name(alg));
        CHECK(r.converged);
        CHECK(r.iterations < 5000);
        CHECK(r.iterations % 5 == 0);
        REQUIRE(!r.history.empty());
        CHECK(r.history.back().primal_residual <= r.history.back().eps_primal);
        CHECK(r.history.back().dual_residual <= r.history.back().eps_dual);
        CHECK(r.history.back().objective < r.history.front().objective + 1e-9);
    }
}

TEST_CASE("both algorithms agree on a deconvolution with nonneg", "[solve]") {
    const int w = 48, h = 40;
    pg::Image clean({w, h});
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i) clean(i, j) = (i > 12 && i < 30 && j > 8 && j < 25) ? 0.9f : 0.1f;
    pg::Image k({5, 5});
    for (int j = 0; j < 5; ++j)
        for (int i = 0; i < 5; ++i) k(i, j) = 1.0f / 25;
    auto x = pg::variable(w, h);
    pg::Image noise = pg::test::random_image({w, h}, 5, -0.02f, 0.02f);
    // b = k ⊛ clean + noise, through the same operator the solver uses
    pg::Image b = pg::lower::apply_linear(pg::lower::to_ir(pg::conv(k, x)), clean);
    for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] += noise.data()[i];
    auto prob = pg::sum_squares(pg::conv(k, x) - b) + 0.005f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    const double f_pc = pg::objective(prob, pg::solve(prob, fixed_iterations(pg::Algorithm::pock_chambolle, 3000)));
    const double f_ladmm = pg::objective(prob, pg::solve(prob, fixed_iterations(pg::Algorithm::ladmm, 3000)));
    const double f_admm = pg::objective(prob, pg::solve(prob, fixed_iterations(pg::Algorithm::admm, 1000)));
    INFO("PC " << f_pc << ", L-ADMM " << f_ladmm << ", ADMM " << f_admm);
    CHECK(std::isfinite(f_pc));
    CHECK(std::abs(f_pc - f_ladmm) / f_pc < 1e-3);
    CHECK(std::abs(f_pc - f_admm) / f_pc < 1e-3);
    CHECK(f_pc < pg::objective(prob, b));
}

TEST_CASE("Poisson deblurring: PC and ADMM agree, the estimate stays in the domain", "[solve]") {
    const int w = 40, h = 36;
    pg::Image k({5, 5});
    for (int j = 0; j < 5; ++j)
        for (int i = 0; i < 5; ++i) k(i, j) = 1.0f / 25;
    pg::Image clean({w, h});
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i) clean(i, j) = (i > 10 && i < 28 && j > 6) ? 300.0f : 60.0f;
    auto x = pg::variable(w, h);
    pg::Image counts = pg::lower::apply_linear(pg::lower::to_ir(pg::conv(k, x)), clean);
    const pg::Image noise = pg::test::random_image({w, h}, 8, -1, 1);
    for (std::size_t i = 0; i < counts.size(); ++i)
        counts.data()[i] = std::round(std::max(0.0f, counts.data()[i] + 3 * std::sqrt(counts.data()[i]) * noise.data()[i]));
    auto prob = pg::poisson_norm(pg::conv(k, x), counts) + 0.5f * pg::group_norm1(pg::grad(x));
    pg::Options start = fixed_iterations(pg::Algorithm::pock_chambolle, 4000);
    start.x0 = counts;  // inside the domain
    const pg::Result pc = pg::solve(prob, start);
    start.algorithm = pg::Algorithm::admm;
    start.max_iters = 1500;
    const pg::Result admm = pg::solve(prob, start);
    const double f_pc = pg::objective(prob, pc), f_admm = pg::objective(prob, admm), f0 = pg::objective(prob, counts);
    INFO("PC " << f_pc << ", ADMM " << f_admm << ", at the counts " << f0);
    CHECK(std::isfinite(f_pc));
    CHECK(std::isfinite(f_admm));
    CHECK(f_pc < f0);
    CHECK(std::abs(f_pc - f_admm) <= 1e-4 * std::abs(f_pc));
}

TEST_CASE("1xN and Nx1 images solve without NaN", "[solve]") {
    for (auto [w, h] : std::vector<std::pair<int, int>>{{1, 17}, {17, 1}, {1, 1}}) {
        const pg::Image b = pg::test::random_image({w, h}, 6, 0, 1);
        auto x = pg::variable(w, h);
        auto prob = pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
        for (auto alg : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm}) {
            const double f = pg::objective(prob, pg::solve(prob, fixed_iterations(alg, 50)));
            CHECK(std::isfinite(f));
            CHECK(f <= pg::objective(prob, b) + 1e-3);  // 50 iterations: near, not at, the optimum
        }
    }
}

TEST_CASE("bad input is reported, not computed with", "[solve][errors]") {
    pg::Image b = pg::test::random_image({16, 16}, 7, 0, 1);
    auto x = pg::variable(16, 16);
    b(3, 4) = NAN;
    auto prob = pg::sum_squares(x - b) + 0.1f * pg::norm1(pg::grad(x));
    CHECK_THROWS_WITH(pg::solve(prob), Contains("non-finite"));
    b(3, 4) = 0.5f;
    pg::Options opt;
    opt.algorithm = pg::Algorithm::admm;
    CHECK_THROWS_WITH(pg::solve(pg::group_norm1(pg::grad(x)), opt), Contains("singular"));
    opt.algorithm = pg::Algorithm::pock_chambolle;
    opt.tau = 10;
    opt.sigma = 10;  // τσ‖K‖² ≫ 1
    CHECK_THROWS_WITH(pg::solve(prob, opt), Contains("tau * sigma"));
    opt = pg::Options();
    opt.check_every = 0;
    CHECK_THROWS_AS(pg::solve(prob, opt), pg::Error);
    CHECK_THROWS_WITH(pg::objective(prob, pg::Image({15, 16})), Contains("15x16"));
}
