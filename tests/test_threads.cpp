// Thread safety: pg::solve, pg::objective and pg::describe called from many threads at once, on
// three problem structures and random sizes, share compiled kernels but never per-call state.
// Every concurrent result must be bitwise equal to the same solve run alone. (Built and run under
// ThreadSanitizer in CI, tools/ci/tsan.sh.)
#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "solve/per_card.hpp"
#include "test_support.hpp"

namespace pg = proxgen;

namespace {

/// One solve job: a structure (0: PC TV denoising, 1: L-ADMM deblurring with nonneg, 2: ADMM with
/// an elementwise x-update and an l1 prior), a size and data from a seed.
struct Job {
    int structure = 0;
    int width = 0, height = 0;
    unsigned seed = 0;
};

struct Outcome {
    pg::Image x;
    double objective = 0;
    std::string plan;
};

Outcome run(const Job& j) {
    const pg::Image b = pg::test::random_image({j.width, j.height}, j.seed, 0.0f, 1.0f);
    auto x = pg::variable(j.width, j.height);
    Outcome o;
    switch (j.structure) {
    case 0: {
        auto prob = pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x));
        const pg::Result r = pg::solve(prob, pg::test::fixed_iterations(pg::Algorithm::pock_chambolle, 25));
        o.x = r[x];
        o.objective = pg::objective(prob, r);
        o.plan = pg::describe(prob, pg::Algorithm::pock_chambolle);
        break;
    }
    case 1: {
        auto prob = pg::sum_squares(pg::conv(pg::test::box_kernel(3), x) - b) + 0.05f * pg::group_norm1(pg::grad(x)) +
                    pg::nonneg(x);
        const pg::Result r = pg::solve(prob, pg::test::fixed_iterations(pg::Algorithm::ladmm, 25));
        o.x = r[x];
        o.objective = pg::objective(prob, r);
        o.plan = pg::describe(prob, pg::Algorithm::ladmm);
        break;
    }
    default: {
        auto prob = pg::sum_squares(x - b) + 0.05f * pg::norm1(x);
        const pg::Result r = pg::solve(prob, pg::test::fixed_iterations(pg::Algorithm::admm, 25));
        o.x = r[x];
        o.objective = pg::objective(prob, r);
        o.plan = pg::describe(prob, pg::Algorithm::admm);
        break;
    }
    }
    return o;
}

bool bitwise_equal(const pg::Image& a, const pg::Image& b) {
    return a.sizes() == b.sizes() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("8 threads x 20 solves of 3 structures and random sizes equal the same solves run alone", "[threads]") {
    constexpr int kThreads = 8, kSolves = 20;
    std::vector<Job> jobs;
    std::mt19937 gen(2024);
    std::uniform_int_distribution<int> size(17, 56), structure(0, 2);
    for (int i = 0; i < kThreads * kSolves; ++i)
        jobs.push_back(Job{structure(gen), size(gen), size(gen), unsigned(1000 + i)});

    std::vector<Outcome> alone;
    for (const auto& j : jobs) alone.push_back(run(j));

    std::vector<Outcome> together(jobs.size());
    std::atomic<int> failures{0};
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            try {
                for (int k = 0; k < kSolves; ++k) {
                    const std::size_t i = std::size_t(t * kSolves + k);
                    together[i] = run(jobs[i]);
                }
            } catch (const std::exception& e) {
                errors[t] = e.what();
                ++failures;
            }
        });
    for (auto& th : threads) th.join();
    for (const auto& e : errors) INFO(e);
    REQUIRE(failures == 0);
    int mismatches = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const bool same = bitwise_equal(alone[i].x, together[i].x) && alone[i].objective == together[i].objective &&
                          alone[i].plan == together[i].plan;
        if (!same) {
            ++mismatches;
            UNSCOPED_INFO("job " << i << ": structure " << jobs[i].structure << ", " << jobs[i].width << "x"
                                 << jobs[i].height);
        }
    }
    CHECK(mismatches == 0);
}

TEST_CASE("threads compiling the same new structure at once share one compilation", "[threads]") {
    // a structure no other test uses (a weighted l1 term) so that it is compiled here
    auto obtained = [] { return pg::jit_stats().pipelines_compiled + pg::jit_stats().disk_loads; };
    const int before = obtained();
    std::vector<std::thread> threads;
    std::vector<pg::Image> results(6);
    for (int t = 0; t < 6; ++t)
        threads.emplace_back([&, t] {
            const pg::Image b = pg::test::random_image({33, 21}, 7, 0.0f, 1.0f);
            const pg::Image w = pg::test::random_image({33, 21}, 8, 0.5f, 1.0f);
            auto x = pg::variable(33, 21);
            auto prob = pg::sum_squares(x - b) + pg::weighted_norm1(w, x) + 0.1f * pg::group_norm1(pg::grad(x));
            results[t] = pg::solve(prob, pg::test::fixed_iterations(pg::Algorithm::pock_chambolle, 10))[x];
        });
    for (auto& th : threads) th.join();
    for (int t = 1; t < 6; ++t) CHECK(bitwise_equal(results[0], results[t]));
    // PC fuses this plan into two kernels (the step, and the step with the residual sums): each
    // compiled or loaded once
    CHECK(obtained() - before == 2);
}

TEST_CASE("batches solved from two threads at once equal their members solved alone", "[threads][batch]") {
    // each batch runs its members side by side on worker threads whose kernels run serially
    const int n = 24;
    auto x = pg::rt::variable("x", {n, n});
    const pg::rt::Problem prob =
        pg::rt::sum_squares(pg::rt::conv(pg::test::box_kernel(3), x) - pg::rt::input("b", pg::test::random_image({n, n}, 1, 0, 1))) +
        0.05 * pg::rt::group_norm1(pg::rt::grad(x));
    std::vector<pg::rt::BatchMember> members(4);
    for (unsigned i = 0; i < members.size(); ++i)
        members[i].inputs["b"] = pg::test::random_image({n, n}, 10 + i, 0.0f, 1.0f);
    const pg::Options opt = pg::test::fixed_iterations(pg::Algorithm::pock_chambolle, 15);
    std::vector<std::vector<pg::Result>> batches(2);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < batches.size(); ++t)
        threads.emplace_back([&, t] { batches[t] = pg::rt::solve_batch(prob, members, opt); });
    for (auto& th : threads) th.join();
    for (std::size_t i = 0; i < members.size(); ++i) {
        pg::rt::Problem one = prob;
        one.set_input("b", members[i].inputs["b"]);
        const pg::Image alone = pg::rt::solve(one, opt)["x"];
        for (const auto& batch : batches) CHECK(bitwise_equal(batch[i]["x"], alone));
    }
}

TEST_CASE("automatic solves from two threads at once, each probing on threads of its own, equal the solve alone",
          "[threads][automatic]") {
    // each automatic solve runs every probed candidate on a thread that pauses after its probe; the
    // chosen run goes on there and calls the callback from that thread
    const int n = 24;
    auto x = pg::rt::variable("x", {n, n});
    const pg::rt::Problem prob = pg::rt::sum_squares(pg::rt::conv(pg::test::box_kernel(3), x) -
                                                     pg::rt::input("b", pg::test::random_image({n, n}, 2, 0, 1))) +
                                 0.05 * pg::rt::group_norm1(pg::rt::grad(x)) + pg::rt::nonneg(x);
    pg::Options opt = pg::test::fixed_iterations(pg::Algorithm::automatic, 60);
    const pg::Result alone = pg::rt::solve(prob, opt);
    std::vector<pg::Result> results(2);
    std::vector<int> calls(2, 0);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < results.size(); ++t)
        threads.emplace_back([&, t] {
            pg::Options o = opt;
            o.callback = [&calls, t](const pg::IterationInfo&) {
                ++calls[t];
                return true;
            };
            results[t] = pg::rt::solve(prob, o);
        });
    for (auto& th : threads) th.join();
    for (std::size_t t = 0; t < results.size(); ++t) {
        INFO(results[t].choice);
        CHECK(results[t].algorithm == alone.algorithm);
        CHECK(results[t].iterations == alone.iterations);
        CHECK(calls[t] == 60 - 40);  // the chosen run's iterations after the probe
        CHECK(bitwise_equal(results[t]["x"], alone["x"]));
    }
}

TEST_CASE("Tier::automatic solves started on the planner's bounds from two threads at once reach the fused optimum",
          "[threads][per_card]") {
    // each solve's tight norms are estimated on a thread of their own and taken where they arrive,
    // its fused kernels compiled on another after its first iteration (the switch forced at 30, so
    // that the per-card start runs where the kernels are cached too)
    const int n = 24;
    auto x = pg::rt::variable("x", {n, n});
    const pg::rt::Problem prob =
        pg::rt::sum_squares(pg::rt::conv(pg::test::box_kernel(3), x, pg::rt::ConvBoundary::zero) -
                            pg::test::random_image({n, n}, 4, 0, 1)) +
        0.05 * pg::rt::group_norm1(pg::rt::grad(x)) + pg::rt::nonneg(x);
    REQUIRE(pg::detail::starts_on_bounds(pg::rt::plan(prob, pg::Algorithm::pock_chambolle).ir()));
    pg::Options opt;
    opt.max_iters = 3000;
    opt.eps_abs = opt.eps_rel = 1e-5;
    const double fused = pg::rt::objective(prob, pg::rt::solve(prob, opt));
    opt.tier = pg::Tier::automatic;
    pg::detail::force_tier_switch(30);
    std::vector<pg::Result> results(2);
    std::vector<std::thread> threads;
    for (auto& r : results) threads.emplace_back([&] { r = pg::rt::solve(prob, opt); });
    for (auto& th : threads) th.join();
    pg::detail::force_tier_switch(0);
    for (const pg::Result& r : results) {
        CHECK(r.converged);
        CHECK(r.per_card_iterations == 30);
        CHECK(std::abs(pg::rt::objective(prob, r) - fused) <= 1e-4 * std::abs(fused));
    }
}
