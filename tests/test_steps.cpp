// The step rules beyond fixed steps (proxgen/solve/step_rules.hpp): block-diagonal preconditioning
// keeps Pock & Chambolle's convergence condition and reaches the same optimum.
#include <catch2/catch.hpp>

#include <proxgen/lower/evaluate.hpp>
#include <proxgen/solve/step_rules.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
using pg::test::fixed_iterations;

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
