// The step rules beyond fixed steps (proxgen/solve/step_rules.hpp): block-diagonal preconditioning
// keeps Pock & Chambolle's convergence condition and reaches the same optimum.
#include <catch2/catch.hpp>

#include <proxgen/lower/evaluate.hpp>
#include <proxgen/solve/step_rules.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
using pg::test::fixed_iterations;
namespace rt = pg::rt;

TEST_CASE("block preconditioning: the largest operator keeps its step, the condition holds", "[steps]") {
    const double norms[3] = {2.83, 1.0, 0.5};
    double s[3];
    const double lp = pg::steps::block_preconditioning(norms, 3, s);
    CHECK(s[0] == 1.0);
    CHECK(s[1] == Approx(2.83));
    CHECK(s[2] == Approx(5.66));
    // τσ L_p² = 1 gives τ Σ_i σ s_i ‖K_i‖² = 1: Lemma 2 of Pock & Chambolle (2011) on the blocks
    double sum = 0;
    for (int i = 0; i < 3; ++i) sum += s[i] * norms[i] * norms[i];
    CHECK(lp * lp == Approx(sum));
    const double bad[2] = {1.0, 0.0};
    CHECK(pg::steps::block_preconditioning(bad, 2, s) == 0);
    CHECK((s[0] == 1.0 && s[1] == 1.0));
}

TEST_CASE("preconditioned Pock-Chambolle reaches the same optimum as plain PC and ADMM", "[steps]") {
    // two split operators of different norms: an l1 data term on a blur (‖K‖ = 1) and a TV (2.83)
    const int w = 32, h = 28;
    pg::Image k({5, 5});
    for (int j = 0; j < 5; ++j)
        for (int i = 0; i < 5; ++i) k(i, j) = 1.0f / 25;
    pg::Image clean({w, h});
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i) clean(i, j) = (i > 8 && i < 22 && j > 6 && j < 20) ? 0.9f : 0.1f;
    auto x = pg::variable(w, h);
    pg::Image b = pg::lower::apply_linear(pg::typed::to_ir(pg::conv(k, x)), clean);
    const pg::Image noise = pg::test::random_image({w, h}, 3, -0.05f, 0.05f);
    for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] += noise.data()[i];
    auto prob = pg::norm1(pg::conv(k, x) - b) + 0.05f * pg::group_norm1(pg::grad(x));
    pg::Options pre = fixed_iterations(pg::Algorithm::pock_chambolle, 4000);
    pre.precondition = true;
    const double f_pre = pg::objective(prob, pg::solve(prob, pre));
    const double f_pc = pg::objective(prob, pg::solve(prob, fixed_iterations(pg::Algorithm::pock_chambolle, 4000)));
    const double f_admm = pg::objective(prob, pg::solve(prob, fixed_iterations(pg::Algorithm::admm, 1500)));
    INFO("preconditioned PC " << f_pre << ", PC " << f_pc << ", ADMM " << f_admm);
    CHECK(std::isfinite(f_pre));
    CHECK(std::abs(f_pre - f_pc) <= 2e-4 * f_pc);
    CHECK(std::abs(f_pre - f_admm) <= 2e-4 * f_admm);
}

TEST_CASE("automatic probes the candidates, says what it chose and why, and reaches the optimum", "[steps][automatic]") {
    const int w = 32, h = 28;
    pg::Image k({5, 5});
    for (int j = 0; j < 5; ++j)
        for (int i = 0; i < 5; ++i) k(i, j) = 1.0f / 25;
    pg::Image b = pg::test::random_image({w, h}, 4, 0.0f, 1.0f);
    auto x = pg::variable(w, h);
    auto prob = pg::sum_squares(pg::conv(k, x) - b) + 0.02f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    pg::Options a = fixed_iterations(pg::Algorithm::automatic, 600);
    const pg::Result r = pg::solve(prob, a);
    INFO(r.choice);
    CHECK_THAT(r.choice, Catch::Matchers::Contains("automatic: probed 40 iterations") &&
                             Catch::Matchers::Contains("chose") && Catch::Matchers::Contains("ladmm"));
    CHECK(r.algorithm != pg::Algorithm::automatic);
    CHECK(r.iterations == 600);  // the chosen probe's 40 iterations count; the continuation makes up the rest
    CHECK(r.probe_iterations >= 3 * 40);
    const double f_auto = pg::objective(prob, r);
    const double f_pc = pg::objective(prob, pg::solve(prob, fixed_iterations(pg::Algorithm::pock_chambolle, 3000)));
    CHECK(std::abs(f_auto - f_pc) <= 1e-3 * f_pc);
    // describe runs the same probe and prints the chosen plan
    const std::string d = pg::describe(prob, pg::Algorithm::automatic);
    CHECK_THAT(d, Catch::Matchers::Contains("chose"));
    CHECK(pg::parse_algorithm("auto") == pg::Algorithm::automatic);
    CHECK(std::string(pg::name(pg::Algorithm::automatic)) == "automatic");
}

TEST_CASE("automatic reports what ran: iterations numbered after the probe, short runs, none, and why a candidate "
          "cannot be planned (silent wrong answers, item 7)",
          "[steps][automatic]") {
    const int w = 24, h = 20;
    const pg::Image b = pg::test::random_image({w, h}, 6, 0.0f, 1.0f);
    auto x = rt::variable("x", {w, h});
    const rt::Problem prob = rt::sum_squares(x - b) + 0.05 * rt::group_norm1(rt::grad(x)) + rt::nonneg(x);

    // the continuation's iterations follow the probe's in the history and in the callback
    pg::Options o = fixed_iterations(pg::Algorithm::automatic, 60);
    o.check_every = 10;
    std::vector<int> seen;
    o.callback = [&](const pg::IterationInfo& info) {
        seen.push_back(info.iteration);
        return true;
    };
    const pg::Result r = rt::solve(prob, o);
    REQUIRE(!seen.empty());
    CHECK(seen.front() == 41);  // the chosen probe ran iterations 1..40, without the callback
    CHECK(seen.back() == 60);
    REQUIRE(!r.history.empty());
    CHECK(r.history.front().iteration == 50);
    CHECK(r.history.back().iteration == 60);

    // a probe of max_iters <= 10 checks often enough to measure every candidate's rate
    const pg::Result short_run = rt::solve(prob, fixed_iterations(pg::Algorithm::automatic, 8));
    INFO(short_run.choice);
    CHECK_THAT(short_run.choice, Catch::Matchers::Contains("probed 8 iterations"));
    CHECK_THAT(short_run.choice, !Catch::Matchers::Contains("~inf"));
    CHECK(short_run.iterations == 8);

    // max_iters = 0 runs no iteration at all
    const pg::Result none = rt::solve(prob, fixed_iterations(pg::Algorithm::automatic, 0));
    CHECK(none.iterations == 0);
    CHECK(none.probe_iterations == 0);
    CHECK_THAT(none.choice, Catch::Matchers::Contains("max_iters = 0, so no probe"));
    for (std::size_t i = 0; i < none.x.size(); ++i) REQUIRE(none.x.data()[i] == 0.0f);

    // a candidate that cannot be planned says why
    const rt::Problem singular = rt::norm1(rt::grad(x));  // ADMM's x-update would invert ρ∇ᵀ∇
    const pg::Result s = rt::solve(singular, fixed_iterations(pg::Algorithm::automatic, 20));
    INFO(s.choice);
    CHECK_THAT(s.choice, Catch::Matchers::Contains("admm not plannable (admm: "));
}
