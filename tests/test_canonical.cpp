// The canonical problems (canonical_problems.hpp) on the data of ProxImaL's reference data set
// (at 64², so CI stays fast): each algorithm, with its default steps, against the best objective a long
// ADMM run reaches, and so agree with each other. (TV denoising, the third canonical problem, is
// tested against ProxImaL's reference in test_solve.cpp.)
//
// "Within 1e-4" is relative to the objective's own scale. For Poisson deblurring the negative
// log-likelihood Σ(e − b log e) carries a large data-only constant; the comparison uses the
// deviance Σ(e − b − b log(e/b)) (the same function minus that constant, ≥ 0), as any relative
// accuracy on a value dominated by a constant would be vacuous.
#include <catch2/catch.hpp>

#include <cmath>

#include "canonical_problems.hpp"
#include "test_support.hpp"

namespace pg = proxgen;
using pg::bench::Canonical;

namespace {

constexpr int kSize = 64;

struct Run {
    double objective;
    int iterations;
};

/// Solves the canonical problem with `alg` for `iters` iterations (default steps) and returns the
/// (deviance-shifted, for Poisson) objective.
Run solve_canonical(Canonical kind, pg::Algorithm alg, int iters) {
    return pg::bench::with_problem(kind, kSize, [&](const auto& prob, const auto& x, const pg::Image& start) {
        pg::Options opt = pg::test::fixed_iterations(alg, iters);
        opt.x0 = start;
        const pg::Result r = pg::solve(prob, opt);
        const double shift = pg::bench::objective_shift(kind, start);
        REQUIRE(r[x].width() == kSize);
        return Run{pg::objective(prob, r) + shift, r.iterations};
    });
}

/// The best objective: ADMM (the fastest to converge here) run long.
double long_run_optimum(Canonical kind, int iters) { return solve_canonical(kind, pg::Algorithm::admm, iters).objective; }

struct Budget {
    pg::Algorithm algorithm;
    int iterations;
    double tolerance;  // relative to the long-run optimum
};

void check_algorithms(Canonical kind, int long_run, const std::vector<Budget>& budgets) {
    const double best = long_run_optimum(kind, long_run);
    INFO(pg::bench::name(kind) << ": long-run optimum " << best);
    REQUIRE(std::isfinite(best));
    for (const Budget& b : budgets) {
        const Run run = solve_canonical(kind, b.algorithm, b.iterations);
        INFO(pg::name(b.algorithm) << ": " << run.objective << " after " << run.iterations);
        CHECK(run.iterations == b.iterations);
        CHECK(std::abs(run.objective - best) <= b.tolerance * std::abs(best));
    }
}

}  // namespace

// Budgets are about 1.5–2× what each algorithm needs here (bench/converge traces).
TEST_CASE("canonical TV deconvolution + nonneg: every algorithm reaches the optimum within 1e-4", "[canonical]") {
    check_algorithms(Canonical::deconv, 3000,
                     {{pg::Algorithm::pock_chambolle, 700, 1e-4},
                      {pg::Algorithm::ladmm, 1000, 1e-4},
                      {pg::Algorithm::admm, 500, 1e-4},
                      {pg::Algorithm::hqs, 800, 1e-4},  // ρ reaches its maximum at ~570
                      {pg::Algorithm::condat_vu, 1000, 1e-4}});
}

TEST_CASE("canonical Poisson deconvolution + TV: every algorithm reaches the optimum within 1e-4", "[canonical]") {
    check_algorithms(Canonical::poisson, 3000,
                     {{pg::Algorithm::pock_chambolle, 1200, 1e-4},
                      {pg::Algorithm::ladmm, 1400, 1e-4},
                      {pg::Algorithm::admm, 800, 1e-4},
                      {pg::Algorithm::hqs, 1000, 1e-4}});
}
