// Fused iterations (one kernel per Pock–Chambolle / L-ADMM step, the residual sums reduced inside
// the kernel, n steps per call) against the separate step kernels and against the residual
// formulas evaluated here in double precision.
#include <cmath>

#include <catch2/catch.hpp>
#include <proxgen/proxgen.hpp>

#include "solve/fused_state.hpp"
#include "solve/quadratic_pipelines.hpp"
#include "test_support.hpp"

namespace pg = proxgen;

namespace {

// 45 x 38: neither side a multiple of the vector width or of a strip, so tails are exercised
constexpr int W = 45, H = 38;

auto tv_denoise(const pg::Image& b) {
    auto x = pg::variable(W, H);
    return pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x));
}

using pg::test::relative_difference;

/// Fused kernels on or off for one scope (back on at its end, also when a solve throws).
struct FusionSetting {
    explicit FusionSetting(bool fused) { pg::detail::set_fusion(fused); }
    ~FusionSetting() { pg::detail::set_fusion(true); }
    FusionSetting(const FusionSetting&) = delete;
    FusionSetting& operator=(const FusionSetting&) = delete;
};

pg::Result solve_with_fusion(bool fused, pg::Algorithm alg, pg::Options opt, const pg::Image& b) {
    opt.algorithm = alg;
    const FusionSetting setting(fused);
    return pg::solve(tv_denoise(b), opt);
}

pg::Result solve_with_fusion(bool fused, const pg::rt::Problem& prob, const pg::Options& opt) {
    const FusionSetting setting(fused);
    return pg::rt::solve(prob, opt);
}

/// dual_floor: the dual residual's float32 resolution where the runs may round differently.
void check_same_run(const pg::Result& fused, const pg::Result& separate, double dual_floor = 0) {
    REQUIRE(fused.history.size() == separate.history.size());
    CHECK(relative_difference(fused.x, separate.x) <= 1e-5);
    REQUIRE(fused.duals.size() == separate.duals.size());
    for (std::size_t i = 0; i < fused.duals.size(); ++i) CHECK(relative_difference(fused.duals[i], separate.duals[i]) <= 1e-5);
    // residuals are differences of nearby iterates (float32 cancellation): 1e-3 relative
    for (std::size_t k = 0; k < fused.history.size(); ++k) {
        const auto &f = fused.history[k], &s = separate.history[k];
        CHECK(std::abs(f.primal_residual - s.primal_residual) <= 1e-3 * s.primal_residual);
        INFO("history entry " << k << ": dual residual " << f.dual_residual << " vs " << s.dual_residual);
        CHECK(std::abs(f.dual_residual - s.dual_residual) <= 1e-3 * s.dual_residual + dual_floor);
        CHECK(std::abs(f.eps_primal - s.eps_primal) <= 1e-3 * s.eps_primal);
        CHECK(std::abs(f.eps_dual - s.eps_dual) <= 1e-3 * s.eps_dual);
    }
}

}  // namespace

TEST_CASE("fused PC and L-ADMM steps give the separate steps' iterates and residuals", "[fusion]") {
    const pg::Image b = pg::test::random_image({W, H}, 3, 0.0f, 1.0f);
    // 37 iterations: checks at 10, 20, 30 (adaptive steps change there) and 37
    pg::Options opt = pg::test::fixed_iterations(pg::Algorithm::pock_chambolle, 37);
    opt.iterations_per_call = 1;
    for (pg::Algorithm alg : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm}) {
        INFO("algorithm " << int(alg));
        check_same_run(solve_with_fusion(true, alg, opt, b), solve_with_fusion(false, alg, opt, b));
    }
}

TEST_CASE("ADMM and HQS: the (z, u) step fused with the next x-update gives the separate steps' iterates",
          "[fusion]") {
    const pg::Image b = pg::test::random_image({W, H}, 7, 0.0f, 1.0f);
    namespace rt = pg::rt;
    const rt::Expr x = rt::variable("x", {W, H});
    // a DCT x-update (TV denoising) and an elementwise one (Ψ terms on x itself); 37 iterations
    // with the defaults: ADMM's ρ adapts at the checks (u rescaled), HQS's grows with momentum
    const rt::Problem spectral = rt::sum_squares(x - b) + 0.1 * rt::group_norm1(rt::grad(x));
    const rt::Problem elementwise = rt::sum_squares(x - b) + 0.1 * rt::norm1(x) + rt::nonneg(x);
    for (pg::Algorithm alg : {pg::Algorithm::admm, pg::Algorithm::hqs}) {
        INFO("algorithm " << int(alg));
        pg::Options opt = pg::test::fixed_iterations(alg, 37);
        for (const rt::Problem* prob : {&spectral, &elementwise})
            REQUIRE(pg::detail::QuadraticPipelines::fusable(rt::plan(*prob, alg).ir()));
        auto run = [&](bool fused, const rt::Problem& prob) { return solve_with_fusion(fused, prob, opt); };
        for (int e = 0; e < 2; ++e) {
            INFO((e ? "elementwise x-update" : "DCT x-update"));
            const pg::Result fused = e ? run(true, elementwise) : run(true, spectral),
                             separate = e ? run(false, elementwise) : run(false, spectral);
            REQUIRE(fused.steps.size() == separate.steps.size());  // the same ρ and balancing at the end
            for (std::size_t k = 0; k < fused.steps.size(); ++k)
                CHECK(std::abs(fused.steps[k] - separate.steps[k]) <= 1e-4 * std::abs(separate.steps[k]));
            // the kernels round x̂ and the x-update's right-hand side differently (iterates agree to
            // ~1e-7): near convergence ρ‖Kᵀ(z − z_prev)‖ is that rounding, ~ρ ε ‖z‖ ‖K‖ (‖K‖ ≤ 3)
            double z_norm = 0;
            for (std::size_t i = 0; i < separate.duals.size() / 2; ++i)
                for (std::size_t k = 0; k < separate.duals[i].size(); ++k) z_norm += std::pow(separate.duals[i].data()[k], 2);
            check_same_run(fused, separate, 8 * 1.2e-7 * 3 * separate.steps[0] * std::sqrt(z_norm));
        }
    }
}

TEST_CASE("ADMM and HQS: CG with its Gram split around the circulant preconditioner gives the spatial Gram's iterates",
          "[fusion]") {
    // TV deconvolution with nonnegativity: a circular blur (circulant), a Neumann grad (circulant
    // but for the border), so CG preconditioned by the periodic stand-in P; the split applies
    // G d = P d + (G − P) d with P d carried by the recurrence, the unfused run G d in space
    const pg::Image b = pg::test::random_image({W, H}, 11, 0.0f, 1.0f);
    pg::Image k({5, 5});
    for (int j = 0; j < 5; ++j)
        for (int i = 0; i < 5; ++i) k(i, j) = float(1 + i * (4 - i) + j * (4 - j));
    namespace rt = pg::rt;
    const rt::Expr x = rt::variable("x", {W, H});
    const rt::Problem prob =
        rt::sum_squares(rt::conv(rt::input("k", k), x) - b) + 0.05 * rt::group_norm1(rt::grad(x)) + rt::nonneg(x);
    for (pg::Algorithm alg : {pg::Algorithm::admm, pg::Algorithm::hqs}) {
        INFO("algorithm " << int(alg));
        const pg::ir::Problem planned = rt::plan(prob, alg).ir();
        REQUIRE(planned.x_update == pg::plan::XUpdate::cg);
        REQUIRE(pg::detail::circulant_problem(planned).has_value());
        pg::Options opt = pg::test::fixed_iterations(alg, 37);
        opt.cg_tol = 1e-5;  // both CGs near exact: their rounding, not their stopping, differs
        const pg::Result split = solve_with_fusion(true, prob, opt), spatial = solve_with_fusion(false, prob, opt);
        INFO("CG steps " << split.cg_iterations << " split, " << spatial.cg_iterations << " in space");
        CHECK(std::abs(split.cg_iterations - spatial.cg_iterations) <= spatial.cg_iterations / 20);
        CHECK(relative_difference(split.x, spatial.x) <= 1e-4);
        REQUIRE(split.steps.size() == spatial.steps.size());
        for (std::size_t i = 0; i < split.steps.size(); ++i)
            CHECK(std::abs(split.steps[i] - spatial.steps[i]) <= 1e-3 * std::abs(spatial.steps[i]));
    }
}

TEST_CASE("L-ADMM in two variables of one shape: the fused kernel gives the separate steps' iterates and residuals",
          "[fusion]") {
    const pg::Image b = pg::test::random_image({W, H}, 5, 0.0f, 1.0f), c = pg::test::random_image({W, H}, 6, 0.0f, 1.0f);
    namespace rt = pg::rt;
    const rt::Expr x = rt::variable("x", {W, H}), y = rt::variable("y", {W, H});
    // isotropic TV on x, anisotropic on y (a quadratic would join a spectral x-update), and a Ψ term
    // that couples them per pixel
    const rt::Problem prob = rt::sum_squares(x - b) + 0.1 * rt::group_norm1(rt::grad(x)) + rt::sum_squares(y - c) +
                             0.2 * rt::norm1(rt::grad(y)) + 0.05 * rt::norm1(x - y);
    REQUIRE(pg::lower::psi_fusable_state(rt::plan(prob, pg::Algorithm::ladmm).ir()));
    pg::Options opt = pg::test::fixed_iterations(pg::Algorithm::ladmm, 37);
    const pg::Result fused = solve_with_fusion(true, prob, opt), separate = solve_with_fusion(false, prob, opt);
    check_same_run(fused, separate);
    for (const char* v : {"x", "y"}) {
        INFO("variable " << v);
        CHECK(relative_difference(fused[v], separate[v]) <= 1e-5);
    }
}

TEST_CASE("4 iterations per call give the one-per-call iterates", "[fusion]") {
    const pg::Image b = pg::test::random_image({W, H}, 4, 0.0f, 1.0f);
    pg::Options opt = pg::test::fixed_iterations(pg::Algorithm::pock_chambolle, 37);
    for (pg::Algorithm alg : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm}) {
        INFO("algorithm " << int(alg));
        opt.iterations_per_call = 4;
        const pg::Result four = solve_with_fusion(true, alg, opt, b);
        opt.iterations_per_call = 1;
        check_same_run(four, solve_with_fusion(true, alg, opt, b));
    }
}

TEST_CASE("residual norms summed inside the kernels equal the formulas over the iterates", "[fusion]") {
    const pg::Image b = pg::test::random_image({W, H}, 5, 0.0f, 1.0f);
    constexpr int N = 20;  // a check at N; the runs to N − 1 and N share their first N − 1 steps
    SECTION("Pock-Chambolle: primal residual (x_{N-1} - x_N) / tau") {
        pg::Options opt = pg::test::fixed_iterations(pg::Algorithm::pock_chambolle, N);
        opt.accelerate = false;
        opt.tau = 0.3;
        opt.sigma = 0.3;  // τσ‖∇‖² ≤ 0.09 · 8 < 1: fixed steps
        const pg::Result before = solve_with_fusion(true, opt.algorithm, opt, b);
        opt.max_iters = N - 1;
        const pg::Result prev = solve_with_fusion(true, opt.algorithm, opt, b);
        double s = 0;
        for (std::size_t i = 0; i < prev.x.size(); ++i) s += std::pow((double(prev.x.data()[i]) - before.x.data()[i]) / 0.3, 2);
        REQUIRE(s > 0);
        CHECK(std::abs(before.history.back().primal_residual - std::sqrt(s)) <= 1e-4 * std::sqrt(s));
    }
    SECTION("L-ADMM: primal residual ||K x - z|| = ||u_N - u_{N-1}||") {
        pg::Options opt = pg::test::fixed_iterations(pg::Algorithm::ladmm, N);
        opt.lambda = 0.5;
        opt.mu = 0.05;  // μ ≤ λ/‖∇‖² = 0.0625: fixed steps
        const pg::Result last = solve_with_fusion(true, opt.algorithm, opt, b);
        opt.max_iters = N - 1;
        const pg::Result prev = solve_with_fusion(true, opt.algorithm, opt, b);
        REQUIRE(last.duals.size() == 2);  // z, u
        const pg::Image &u = last.duals[1], &u_prev = prev.duals[1];
        double s = 0;
        for (std::size_t i = 0; i < u.size(); ++i) s += std::pow(double(u.data()[i]) - u_prev.data()[i], 2);
        REQUIRE(s > 0);
        CHECK(std::abs(last.history.back().primal_residual - std::sqrt(s)) <= 1e-4 * std::sqrt(s));
    }
}
