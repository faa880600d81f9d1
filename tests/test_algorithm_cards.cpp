// The algorithm cards (proxgen/algorithms/*.hpp) over scripted runners: the loop's own rules —
// check cadence, iterations per call, step schedules, balancing, verdicts, HQS's continuation —
// without kernels. The JIT and generated solvers run the same cards (their tests compare iterates).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "proxgen/algorithms/admm.hpp"
#include "proxgen/algorithms/condat_vu.hpp"
#include "proxgen/algorithms/hqs.hpp"
#include "proxgen/algorithms/linearized_admm.hpp"
#include "proxgen/algorithms/norm_estimate.hpp"
#include "proxgen/algorithms/pock_chambolle.hpp"

using namespace proxgen;
using algorithms::Verdict;

namespace {

algorithms::LoopOptions loop_options(int check_every, int max_iters) {
    algorithms::LoopOptions o;
    o.cadence = {check_every, max_iters, false};
    o.eps_abs = 1e-4;
    o.eps_rel = 1e-4;
    return o;
}

/// Records what the PC card asks for; answers checks with scripted sums and verdicts.
struct PCScript {
    int per_call = 1;
    std::string calls;  // 'S' a step, 'M' a measured step, 'B' a block
    std::vector<algorithms::PCSteps> used;  // the steps of every iteration, blocks' levels included
    algorithms::PCSums next_sums{1, 1, 1, 1, 100, 100};
    std::vector<Verdict> verdicts;  // per check, then go_on
    int checks = 0, hooks = 0;
    bool fail_step_at = false;

    int iterations_per_call() const { return per_call; }
    bool run_step(const algorithms::PCSteps& s, bool measure) {
        if (fail_step_at) return false;
        calls += measure ? 'M' : 'S';
        used.push_back(s);
        return true;
    }
    bool run_block(const float* levels) {
        calls += 'B';
        for (int k = 0; k < per_call; ++k) used.push_back({levels[3 * k], levels[3 * k + 1], levels[3 * k + 2]});
        return true;
    }
    bool sums(algorithms::PCSums& s) {
        s = next_sums;
        return true;
    }
    Verdict record(int, const algorithms::Residuals&, bool) {
        const int k = checks++;
        return k < int(verdicts.size()) ? verdicts[k] : Verdict::go_on;
    }
    bool after_iteration(int) {
        ++hooks;
        return true;
    }
};

steps::PockChambolle fixed_pc(double tau, double sigma) {
    steps::PockChambolle r;
    r.tau = tau;
    r.sigma = sigma;
    return r;
}

}  // namespace

TEST_CASE("PC card: checks every check_every-th and the last iteration, blocks only between checks") {
    PCScript runner;
    runner.per_call = 4;
    algorithms::PockChambolle loop(fixed_pc(0.5, 0.5), loop_options(10, 25));
    REQUIRE(loop.run(runner, 25));
    // 1-4, 5-8 in blocks, 9 alone, 10 checked; the same to 20; 21-24 a block, 25 (the last) checked
    CHECK(runner.calls == "BBSMBBSMBM");
    CHECK(loop.progress().iterations == 25);
    CHECK(loop.progress().finished);
    CHECK_FALSE(loop.progress().converged);
    CHECK(runner.used.size() == 25);
    CHECK(runner.checks == 3);
}

TEST_CASE("PC card: run stops after the allowed iterations and continues where it stopped") {
    PCScript runner;
    algorithms::PockChambolle loop(fixed_pc(0.5, 0.5), loop_options(10, 100));
    REQUIRE(loop.run(runner, 7));
    CHECK(loop.progress().iterations == 7);
    CHECK_FALSE(loop.progress().finished);
    REQUIRE(loop.run(runner, 5));
    CHECK(loop.progress().iterations == 12);
    CHECK(runner.calls == "SSSSSSSSSMSS");
}

TEST_CASE("PC card: the accelerated schedule is the same in blocks, in single steps and in schedule()") {
    steps::PockChambolle rule = fixed_pc(0.5, 0.5);
    rule.accelerated = true;
    rule.gamma = 0.7;
    const auto expected = algorithms::PockChambolle::schedule(rule, 12);
    for (int per_call : {1, 4}) {
        PCScript runner;
        runner.per_call = per_call;
        algorithms::PockChambolle loop(rule, loop_options(100, 12));
        REQUIRE(loop.run(runner, 12));
        REQUIRE(runner.used.size() == expected.size());
        for (std::size_t k = 0; k < expected.size(); ++k) {
            // blocks carry float32 levels
            CHECK(runner.used[k].tau == Approx(expected[k].tau).epsilon(1e-6));
            CHECK(runner.used[k].sigma == Approx(expected[k].sigma).epsilon(1e-6));
            CHECK(runner.used[k].theta == Approx(expected[k].theta).epsilon(1e-6));
        }
    }
    // Algorithm 2: θ < 1, τ shrinks, σ grows, τσ stays
    CHECK(expected[5].theta < 1);
    CHECK(expected[5].tau < expected[0].tau);
    CHECK(expected[5].tau * expected[5].sigma == Approx(expected[0].tau * expected[0].sigma));
}

TEST_CASE("PC card: the acceleration stops once tau has shrunk by its range, then the steps stay with theta 1") {
    steps::PockChambolle rule = fixed_pc(1.0, 0.1);
    rule.accelerated = true;
    rule.gamma = 5;  // τ shrinks fast: past τ₀/50 within a few hundred iterations
    const auto s = algorithms::PockChambolle::schedule(rule, 2000);
    const double floor = rule.tau / algorithms::PockChambolle::acceleration_range;
    std::size_t frozen = 0;
    while (frozen < s.size() && s[frozen].tau > floor) ++frozen;
    REQUIRE(frozen > 1);
    REQUIRE(frozen + 2 < s.size());
    CHECK(s[frozen - 1].theta < 1);
    CHECK(s[frozen].tau <= floor);
    CHECK(s[frozen].tau > floor * 0.85);  // the last accelerated step crossed the floor by little
    for (std::size_t k = frozen + 1; k < s.size(); ++k) {
        CHECK(s[k].tau == s[frozen].tau);
        CHECK(s[k].sigma == s[frozen].sigma);
        CHECK(s[k].theta == 1.0);
    }
    CHECK(s.back().tau * s.back().sigma == Approx(rule.tau * rule.sigma));
}

TEST_CASE("PC card: verdicts end the loop, and a failed step or check returns false") {
    {
        PCScript runner;
        runner.verdicts = {Verdict::go_on, Verdict::converged};
        algorithms::PockChambolle loop(fixed_pc(0.5, 0.5), loop_options(10, 100));
        REQUIRE(loop.run(runner, 100));
        CHECK(loop.progress().converged);
        CHECK(loop.progress().iterations == 20);
        CHECK(runner.hooks == 20);  // the per-iteration hook runs at the converged iteration too
    }
    {
        PCScript runner;
        runner.verdicts = {Verdict::stop};
        algorithms::PockChambolle loop(fixed_pc(0.5, 0.5), loop_options(10, 100));
        REQUIRE(loop.run(runner, 100));
        CHECK(loop.progress().stopped);
        CHECK_FALSE(loop.progress().converged);
        CHECK(loop.progress().iterations == 10);
        CHECK(runner.hooks == 9);  // not after a stop
    }
    {
        PCScript runner;
        runner.verdicts = {Verdict::failed};
        algorithms::PockChambolle loop(fixed_pc(0.5, 0.5), loop_options(10, 100));
        CHECK_FALSE(loop.run(runner, 100));
        CHECK_FALSE(loop.progress().finished);
    }
    {
        PCScript runner;
        runner.fail_step_at = true;
        algorithms::PockChambolle loop(fixed_pc(0.5, 0.5), loop_options(10, 100));
        CHECK_FALSE(loop.run(runner, 100));
        CHECK(loop.progress().iterations == 0);
    }
}

TEST_CASE("PC card: residuals and tolerances from the sums, balancing keeps tau sigma") {
    PCScript runner;
    // P² = 4e4 over n = 100 pixels with ‖Kᵀy‖ = 1, D² = 1e-4 with ‖Kx‖ = 1: the primal residual lags
    runner.next_sums = {4e4, 1, 1e-4, 1, 100, 400};
    steps::PockChambolle rule = fixed_pc(0.25, 2.0);
    rule.adaptive = true;
    algorithms::PockChambolle loop(rule, loop_options(10, 10));
    REQUIRE(loop.run(runner, 10));
    const algorithms::Residuals r = loop.progress().last;
    CHECK(r.primal == Approx(200));
    CHECK(r.dual == Approx(1e-2));
    CHECK(r.eps_primal == Approx(10 * 1e-4 + 1e-4 * 1));
    CHECK(r.eps_dual == Approx(20 * 1e-4 + 1e-4 * 1));
    // the lagging primal side gets the larger primal step
    CHECK(loop.steps().tau > 0.25);
    CHECK(loop.steps().tau * loop.steps().sigma == Approx(0.5));
    CHECK(loop.balance().moves == 1);
    CHECK(loop.balance().alpha == 0.5);  // the shift keeps its strength until it reverses
}

TEST_CASE("Condat-Vu card: its steps meet 1/tau - sigma ||K||^2 >= L/2 at the start and after every balancing move") {
    steps::Inputs in;
    in.norm = 2.0;
    in.curvature_scale = 2.0;
    in.smooth_lipschitz = 2.0;
    const steps::PockChambolle rule = steps::condat_vu(in);
    CHECK(rule.smooth == 2.0);
    CHECK(rule.norm2 == 4.0);
    CHECK_FALSE(rule.accelerated);
    CHECK(rule.adaptive);
    CHECK(rule.product == Approx(steps::condat_vu_margin));
    CHECK(rule.tau * (rule.sigma * 4.0 + 1.0) == Approx(steps::condat_vu_margin));

    // the primal residual lags at every check: balancing raises τ, the condition caps it
    PCScript runner;
    runner.next_sums = {4e4, 1, 1e-4, 1, 100, 400};
    algorithms::CondatVu loop(rule, loop_options(10, 60));
    REQUIRE(loop.run(runner, 60));
    double largest_tau = 0;
    for (const algorithms::PCSteps& k : runner.used) {
        INFO("tau " << k.tau << ", sigma " << k.sigma);
        CHECK(k.tau * (k.sigma * 4.0 + 1.0) <= steps::condat_vu_margin * (1 + 1e-12));
        CHECK(k.theta == 1.0);
        largest_tau = std::max(largest_tau, k.tau);
    }
    CHECK(largest_tau > rule.tau);  // balancing moved it (σ fell, so τ could grow)

    // nothing split: forward–backward with τ = margin · 2/L; nothing smooth: Pock–Chambolle's rule
    steps::Inputs fb = in;
    fb.norm = 0;
    CHECK(steps::condat_vu(fb).tau == Approx(steps::condat_vu_margin * 2.0 / 2.0));
    steps::Inputs plain = in;
    plain.smooth_lipschitz = 0;
    CHECK(steps::condat_vu(plain).tau == steps::pock_chambolle(plain).tau);
    CHECK(steps::condat_vu(plain).smooth == 0);
    // requested steps that break the condition are reported through the product
    steps::Inputs asked = in;
    asked.tau = 1.0;
    asked.sigma = 1.0;
    CHECK(steps::too_large(steps::condat_vu(asked).product));
}

namespace {

struct SplitScript {
    std::vector<double> rhos;       // the penalty of every step (1/λ for L-ADMM)
    std::vector<double> momenta;    // HQS
    std::vector<double> rescales;   // rescale_dual's factors
    algorithms::SplitSums next_sums{0, 1, 0, 1, 1, 100, 100};
    bool met_converges = true;
    double (*objective_of)(double rho) = nullptr;
    double rho_now = 0;
    int stages = 0;

    int iterations_per_call() const { return 1; }
    bool run_step(const algorithms::LADMMSteps& s, bool) {
        rhos.push_back(1.0 / s.lambda);
        return true;
    }
    bool run_block(const algorithms::LADMMSteps&) { return false; }
    bool run_step(double rho, bool) {
        rhos.push_back(rho);
        return true;
    }
    bool run_step(double rho, double momentum, bool) {
        rhos.push_back(rho);
        momenta.push_back(momentum);
        rho_now = rho;
        return true;
    }
    bool sums(algorithms::SplitSums& s) {
        s = next_sums;
        return true;
    }
    Verdict record(int, const algorithms::Residuals&, bool met) {
        return met && met_converges ? Verdict::converged : Verdict::go_on;
    }
    void rescale_dual(double f) { rescales.push_back(f); }
    double objective() { return objective_of(rho_now); }
    bool stage_ended(int) {
        ++stages;
        return true;
    }
    bool after_iteration(int) { return true; }
};

}  // namespace

TEST_CASE("split cards: Boyd's residuals, and balancing moves the penalty with u rescaled to follow") {
    // ‖Kx − z‖² = 1e4 against ‖Kᵀ(z − z_prev)‖² = 1e-6: the primal residual lags, ρ grows
    SplitScript runner;
    runner.next_sums = {1e-6, 1, 1e4, 1, 1, 100, 400};
    algorithms::ADMM admm(2.0, true, loop_options(5, 10));
    REQUIRE(admm.run(runner, 10));
    const algorithms::Residuals r = admm.progress().last;
    CHECK(r.primal == Approx(100));
    CHECK(r.eps_primal == Approx(20 * 1e-4 + 1e-4 * 1));  // √m ε_abs + ε_rel max(‖Kx‖, ‖z‖)
    // two checks: ρ × 2 then × 1.5 (the strength halves), u × 1/2 then × 1/1.5
    REQUIRE(runner.rescales.size() == 2);
    CHECK(runner.rescales[0] == Approx(0.5));
    CHECK(runner.rescales[1] == Approx(1 / 1.5));
    CHECK(admm.rho() == Approx(6.0));
    CHECK(r.dual == Approx(4.0 * 1e-3));  // measured at the ρ of that step, before it moved
    CHECK(runner.rhos[9] == Approx(4.0));

    // linearized ADMM: λ and μ move together (μ/λ, the step bound, stays)
    SplitScript lr;
    lr.next_sums = runner.next_sums;
    steps::LinearizedADMM rule;
    rule.lambda = 0.5;
    rule.mu = 0.05;
    algorithms::LinearizedADMM ladmm(rule, true, loop_options(5, 10));
    REQUIRE(ladmm.run(lr, 10));
    CHECK(ladmm.steps().lambda == Approx(0.5 / 3));
    CHECK(ladmm.steps().mu / ladmm.steps().lambda == Approx(0.1));
    CHECK(lr.rescales.size() == 2);

    // without balancing nothing moves
    SplitScript fixed;
    fixed.next_sums = runner.next_sums;
    algorithms::ADMM plain(2.0, false, loop_options(5, 10));
    REQUIRE(plain.run(fixed, 10));
    CHECK(plain.rho() == 2.0);
    CHECK(fixed.rescales.empty());
}

TEST_CASE("HQS card: the continuation grows rho until the objective's 1 over rho bias is within the tolerance") {
    SplitScript runner;
    runner.next_sums = {0, 1, 0, 1, 1, 100, 100};  // every check meets the tolerances
    runner.objective_of = [](double rho) { return 1.0 + 1.0 / rho; };
    algorithms::HQSRule rule{1.0, 1e6, 2.0, 20};
    algorithms::HQS hqs(rule, true, loop_options(10, 1000));
    REQUIRE(hqs.run(runner, 1000));
    // each met check doubles ρ; the bias across ρ/2 → ρ is 1/ρ: within ε_rel f + ε_abs ≈ 2e-4 once
    // ρ = 2^13, at the 14th check
    CHECK(hqs.progress().converged);
    CHECK(hqs.progress().iterations == 140);
    CHECK(hqs.rho() == 8192.0);
    CHECK(hqs.why_not_converged().empty());
    // momentum from the second iteration on while ρ grows
    CHECK(runner.momenta[0] == 0.0);
    CHECK(runner.momenta[1] == Approx(1.0 / 4));

    // capped below that ρ: not converged, and the sentence says why
    SplitScript capped = SplitScript{};
    capped.objective_of = runner.objective_of;
    algorithms::HQS low({1.0, 100.0, 2.0, 20}, true, loop_options(10, 200));
    REQUIRE(low.run(capped, 200));
    CHECK_FALSE(low.progress().converged);
    CHECK(low.progress().iterations == 200);
    CHECK(low.rho() == 100.0);
    CHECK(low.why_not_converged().find("largest penalty rho = 100") != std::string::npos);
    // held at the cap: no momentum there
    CHECK(capped.momenta.back() == 0.0);
}

TEST_CASE("HQS card: a primal residual over its tolerance lets stages grow rho and asks the runner at each") {
    SplitScript runner;
    runner.next_sums = {1e4, 1, 1e4, 1, 1, 100, 100};  // neither residual meets its tolerance
    runner.objective_of = [](double) { return 1.0; };
    algorithms::HQS hqs({1.0, 1e6, 1.5, 20}, true, loop_options(10, 100));
    REQUIRE(hqs.run(runner, 100));
    CHECK_FALSE(hqs.progress().converged);
    CHECK(runner.stages == 5);
    CHECK(hqs.rho() == Approx(std::pow(1.5, 5)));
    CHECK(runner.rhos[19] == 1.0);  // ρ is piecewise constant over a stage
    CHECK(runner.rhos[20] == Approx(1.5));
}

TEST_CASE("HQS card: a check that finds the alternation settled ends the stage at once") {
    // the dual residual (z's motion) within its tolerance, the primal one (the penalty's bias) not:
    // solved at this ρ, so ρ grows at that check's iteration, not at the stage's end
    SplitScript runner;
    runner.next_sums = {0, 1, 1e4, 1, 1, 100, 100};
    runner.objective_of = [](double) { return 1.0; };
    algorithms::HQS hqs({1.0, 1e6, 1.5, 20}, true, loop_options(10, 100));
    REQUIRE(hqs.run(runner, 100));
    CHECK_FALSE(hqs.progress().converged);
    CHECK(runner.stages == 10);  // every check, each through the runner's stage hook
    CHECK(hqs.rho() == Approx(std::pow(1.5, 10)));
    CHECK(runner.rhos[9] == 1.0);
    CHECK(runner.rhos[10] == Approx(1.5));
}

TEST_CASE("HQS card: a stage whose growth raised the objective holds rho, with a momentum counted from the wait, until the objective stalls") {
    // neither residual meets its tolerance, so only the wait holds ρ; the objective rises with ρ
    // (the iterates lag behind) and stays put while ρ does
    SplitScript runner;
    runner.next_sums = {1e4, 1, 1e4, 1, 1, 100, 100};
    runner.objective_of = [](double rho) { return rho; };
    algorithms::HQS hqs({1.0, 1e6, 1.5, 20}, true, loop_options(10, 100));
    REQUIRE(hqs.run(runner, 100));
    // stage 1 (ρ = 1) ends at f = 1 and grows; stage 2 (ρ = 1.5) ends higher: wait
    CHECK(runner.rhos[39] == Approx(1.5));
    CHECK(runner.rhos[40] == Approx(1.5));
    CHECK(runner.momenta[39] > 0.9);
    // the wait's own momentum: (j − 1)/(j + 2) from its first iteration (j = 0), at most 0.9
    CHECK(runner.momenta[40] == 0.0);
    CHECK(runner.momenta[41] == 0.0);
    CHECK(runner.momenta[42] == Approx(0.25));
    CHECK(runner.momenta[59] == Approx(18.0 / 21.0));
    for (int i = 40; i < 60; ++i) CHECK(runner.momenta[std::size_t(i)] <= algorithms::Continuation::kWaitMomentum);
    // the checks at 50 and 60 see no fall: stalled, ρ grows at iteration 60's end
    CHECK(runner.rhos[59] == Approx(1.5));
    CHECK(runner.rhos[60] == Approx(2.25));
    CHECK(runner.momenta[60] > 0.9);
    // a growing stage after a wait is compared with none before it: 61–80 grows, 81–100 rose: waits
    CHECK(runner.rhos[80] == Approx(3.375));
    CHECK(hqs.rho() == Approx(3.375));
    CHECK_FALSE(hqs.progress().converged);

    // with ε = 0 (run max_iters) the same: nothing else would hold ρ there
    SplitScript free;
    free.next_sums = runner.next_sums;
    free.objective_of = runner.objective_of;
    algorithms::LoopOptions none = loop_options(10, 100);
    none.eps_abs = none.eps_rel = 0;
    algorithms::HQS unbounded({1.0, 1e6, 1.5, 20}, true, none);
    REQUIRE(unbounded.run(free, 100));
    CHECK(free.rhos == runner.rhos);
}

TEST_CASE("HQS card: a wait whose rise is a few roundings of the objective halves rho's growth from then on") {
    // as above, but the objective rises with ρ by 1e-8 relative (the alternation has caught up):
    // the wait at ρ = 1.5 slows the growth to 1.25, the next wait to 1.125
    SplitScript runner;
    runner.next_sums = {1e4, 1, 1e4, 1, 1, 100, 100};
    runner.objective_of = [](double rho) { return 1 + 1e-8 * rho; };
    algorithms::HQS hqs({1.0, 1e6, 1.5, 20}, true, loop_options(10, 100));
    REQUIRE(hqs.run(runner, 100));
    CHECK(runner.rhos[39] == Approx(1.5));
    CHECK(runner.rhos[59] == Approx(1.5));  // the wait
    CHECK(runner.rhos[60] == Approx(1.5 * 1.25));
    CHECK(runner.rhos[80] == Approx(1.5 * 1.25 * 1.25));
    CHECK(hqs.rho() == Approx(1.5 * 1.25 * 1.25));  // 81–100 rose again: waits (growth now 1.125)

    // a rise of 1e-5 relative is a lagging alternation (the test above): the growth stays 1.5
    SplitScript lagging;
    lagging.next_sums = runner.next_sums;
    lagging.objective_of = [](double rho) { return 1 + 2e-5 * rho; };
    algorithms::HQS full({1.0, 1e6, 1.5, 20}, true, loop_options(10, 100));
    REQUIRE(full.run(lagging, 100));
    CHECK(lagging.rhos[60] == Approx(2.25));
    CHECK(full.rho() == Approx(3.375));
}

TEST_CASE("norm-estimate card: the top Ritz pair of a tridiagonal matrix, and Lanczos to a known norm") {
    // T = tridiag(−1, 2, −1) of size m: eigenvalues 2 − 2 cos(kπ/(m+1)), eigenvectors sin(jkπ/(m+1))
    const double pi = std::acos(-1.0);
    for (int m : {1, 2, 3, 7, 20, 40}) {
        INFO("m = " << m);
        const std::vector<double> a(std::size_t(m), 2.0), b(std::size_t(m - 1), -1.0);
        const auto [theta, last] = algorithms::top_ritz_pair(a, b);
        const double h = pi / (m + 1);
        CHECK(std::abs(theta - (2 + 2 * std::cos(h))) <= 1e-12);
        // the top eigenvector's components are sin(j m h) (j = 1..m), normalized: its last is sin(m² h)
        double norm = 0;
        for (int j = 1; j <= m; ++j) norm += std::sin(j * m * h) * std::sin(j * m * h);
        CHECK(std::abs(std::abs(last) - std::abs(std::sin(m * m * h)) / std::sqrt(norm)) <= 1e-9);
    }
    // a diagonal Gram with a dense spectrum near its top (as convolutions have): ‖K‖² = 9
    struct Diagonal {
        std::vector<double> d;
        std::size_t size() const { return d.size(); }
        bool apply(const std::vector<double>& q, std::vector<double>& out) {
            for (std::size_t i = 0; i < d.size(); ++i) out[i] = d[i] * q[i];
            return true;
        }
    } gram;
    for (int i = 0; i < 4096; ++i) gram.d.push_back(9.0 * std::sqrt(double(i) / 4095));
    double norm = 0;
    REQUIRE(algorithms::lanczos_norm(gram, norm) == algorithms::NormEstimate::ok);
    CHECK(norm >= 3.0);  // from above, as the step rules need
    CHECK(norm <= 3.0 * 1.01);

    // a ceiling the estimate cannot end below (a bound nearly the norm): fewer Gram applications,
    // and what the caller keeps, min(ceiling, estimate), is the ceiling as after the full run
    struct Counting {
        Diagonal& g;
        int applications = 0;
        std::size_t size() const { return g.size(); }
        bool apply(const std::vector<double>& q, std::vector<double>& out) { return ++applications, g.apply(q, out); }
    };
    Counting full{gram}, capped{gram}, loose{gram};
    double n_full = 0, n_capped = 0, n_loose = 0;
    REQUIRE(algorithms::lanczos_norm(full, n_full) == algorithms::NormEstimate::ok);
    const double near = 3.0 * 1.001;  // below the full estimate, above the norm
    REQUIRE(n_full > near);
    REQUIRE(algorithms::lanczos_norm(capped, n_capped, near) == algorithms::NormEstimate::ok);
    CHECK(capped.applications < full.applications);
    CHECK(std::min(near, n_capped) == std::min(near, n_full));
    // a ceiling the estimate ends below changes nothing: the same steps, the same estimate
    REQUIRE(algorithms::lanczos_norm(loose, n_loose, 4.0) == algorithms::NormEstimate::ok);
    CHECK(loose.applications == full.applications);
    CHECK(n_loose == n_full);
}
