// rt::solve_batch: many problems of one structure per call. Every member's result is the one
// solving it alone gives (same iterations, same x, bit for bit: the members run the same kernels
// on the same data, only on other threads); a member that cannot be solved fails alone, naming its
// index.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "test_support.hpp"

namespace pg = proxgen;
namespace rt = pg::rt;
using Catch::Matchers::Contains;

namespace {

pg::Image pattern(int n, unsigned seed, float scale = 1) {
    pg::Image img({n, n});
    unsigned s = seed * 2654435761u + 7;
    for (std::size_t i = 0; i < img.size(); ++i) {
        s = s * 1664525u + 1013904223u;
        const int x = int(i) % n, y = int(i) / n;
        img.data()[i] = scale * (((x / 8 + y / 8) % 2 ? 0.8f : 0.2f) + 0.1f * (float(s >> 8) / float(1u << 24) - 0.5f));
    }
    return img;
}

/// TV deblurring with nonneg(x): the data term's b and the TV weight are the members' own.
rt::Problem deblur(int n) {
    const rt::Expr x = rt::variable("x", {n, n});
    return rt::sum_squares(rt::conv(pg::test::box_kernel(3), x) - rt::input("b", pattern(n, 0))) +
           rt::parameter("lambda", 0.01) * rt::group_norm1(rt::grad(x)) + rt::nonneg(x);
}

bool same_image(const pg::Image& a, const pg::Image& b) {
    return a.sizes() == b.sizes() && std::equal(a.data(), a.data() + a.size(), b.data());
}

/// The problem with member m's data, solved alone.
pg::Result alone(const rt::Problem& prob, const rt::BatchMember& m, const pg::Options& opt) {
    rt::Problem one = prob;
    for (const auto& [name, image] : m.inputs) one.set_input(name, image);
    for (const auto& [name, value] : m.parameters) one.set_parameter(name, value);
    return rt::solve(one, opt);
}

}  // namespace

TEST_CASE("batch: every member equals solving it alone, with its own iterations and stopping", "[batch]") {
    const int n = 32;
    const rt::Problem prob = deblur(n);
    std::vector<rt::BatchMember> members(5);
    for (unsigned i = 0; i < members.size(); ++i) members[i].inputs["b"] = pattern(n, i + 1);
    members[3].inputs["b"] = pattern(n, 4, 40.0f);  // another scale: stops at another iteration
    members[4].parameters["lambda"] = 0.05;          // its own TV weight
    for (pg::Algorithm a : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm,
                            pg::Algorithm::hqs}) {
        CAPTURE(pg::name(a));
        pg::Options opt;
        opt.algorithm = a;
        opt.max_iters = a == pg::Algorithm::hqs ? 400 : 3000;  // HQS meets no tolerance here within 3000
        const std::vector<pg::Result> batch = rt::solve_batch(prob, members, opt);
        REQUIRE(batch.size() == members.size());
        for (std::size_t i = 0; i < members.size(); ++i) {
            CAPTURE(i);
            const pg::Result one = alone(prob, members[i], opt);
            CHECK(batch[i].status == one.status);
            CHECK(batch[i].iterations == one.iterations);
            CHECK(batch[i].steps == one.steps);
            CHECK(same_image(batch[i]["x"], one["x"]));
            CHECK(batch[i].primal_residual == one.primal_residual);
        }
        if (a != pg::Algorithm::hqs) {
            CHECK(batch[0].status == pg::Status::converged);
            CHECK(batch[3].iterations != batch[0].iterations);
        }
    }
}

TEST_CASE("batch: a member with bad data fails alone, naming its index, and the others are solved", "[batch]") {
    const int n = 24;
    const rt::Problem prob = deblur(n);
    std::vector<rt::BatchMember> members(4);
    for (unsigned i = 0; i < members.size(); ++i) members[i].inputs["b"] = pattern(n, i + 1);
    members[1].inputs["b"].data()[17] = std::numeric_limits<float>::quiet_NaN();
    members[2].inputs["b"] = pattern(n + 2, 3);  // another size
    pg::Options opt;
    const std::vector<pg::Result> batch = rt::solve_batch(prob, members, opt);
    CHECK(batch[1].status == pg::Status::failed);
    CHECK_THAT(batch[1].message, Contains("batch member 1") && Contains("input 'b'") && Contains("NaN"));
    CHECK(batch[2].status == pg::Status::failed);
    CHECK_THAT(batch[2].message, Contains("batch member 2") && Contains("26x26") && Contains("24x24"));
    for (std::size_t i : {0u, 3u}) {
        CAPTURE(i);
        CHECK(batch[i].status == pg::Status::converged);
        CHECK(same_image(batch[i]["x"], alone(prob, members[i], opt)["x"]));
    }

    members[2].inputs.clear();
    members[2].inputs["c"] = pattern(n, 3);  // a name the problem does not have
    members[1].inputs["b"] = pattern(n, 2);
    members[1].parameters["lambda"] = -1;  // a weight must be >= 0
    const std::vector<pg::Result> again = rt::solve_batch(prob, members, opt);
    CHECK(again[2].status == pg::Status::failed);
    CHECK_THAT(again[2].message, Contains("batch member 2") && Contains("'c'"));
    CHECK(again[1].status == pg::Status::failed);
    CHECK_THAT(again[1].message, Contains("batch member 1") && Contains("lambda"));
    CHECK(again[0].status == pg::Status::converged);
}

TEST_CASE("batch: per-member warm starts, and errors of the call itself", "[batch]") {
    const int n = 24;
    const rt::Problem prob = deblur(n);
    std::vector<rt::BatchMember> members(3);
    for (unsigned i = 0; i < members.size(); ++i) members[i].inputs["b"] = pattern(n, i + 1);
    pg::Options opt;
    const std::vector<pg::Result> first = rt::solve_batch(prob, members, opt);
    const std::vector<pg::Result> warm = rt::solve_batch(prob, members, opt, first);
    for (std::size_t i = 0; i < members.size(); ++i) {
        CAPTURE(i);
        CHECK(warm[i].status == pg::Status::converged);
        CHECK(warm[i].iterations < first[i].iterations);
        CHECK(same_image(warm[i]["x"], rt::solve(
            [&] { rt::Problem one = prob; one.set_input("b", members[i].inputs["b"]); return one; }(), opt, first[i])["x"]));
    }
    CHECK_THROWS_WITH(rt::solve_batch(prob, members, opt, {first[0]}), Contains("1 warm starts for 3 members"));
    CHECK(rt::solve_batch(prob, {}, opt).empty());
    // the problem itself cannot be planned: the whole call's error
    CHECK_THROWS_AS(rt::solve_batch(rt::Problem(), members, opt), pg::Error);
}

TEST_CASE("batch: two variables, each member with its own observation", "[batch][variables]") {
    const int n = 24;
    const rt::Expr x = rt::variable("x", {n, n}), y = rt::variable("y", {n, n});
    const rt::Problem prob = rt::sum_squares(rt::conv(pg::test::box_kernel(3), x) + y - rt::input("b", pattern(n, 0))) +
                             0.02 * rt::group_norm1(rt::grad(x)) + 2.0 * rt::sum_squares(rt::grad(y));
    std::vector<rt::BatchMember> members(3);
    for (unsigned i = 0; i < members.size(); ++i) members[i].inputs["b"] = pattern(n, i + 1);
    pg::Options opt;
    const std::vector<pg::Result> batch = rt::solve_batch(prob, members, opt);
    for (std::size_t i = 0; i < members.size(); ++i) {
        CAPTURE(i);
        const pg::Result one = alone(prob, members[i], opt);
        CHECK(batch[i].iterations == one.iterations);
        CHECK(same_image(batch[i]["x"], one["x"]));
        CHECK(same_image(batch[i]["y"], one["y"]));
    }
}

TEST_CASE("Options::stop set from another thread stops a solve, automatic's probes and every batch member", "[batch]") {
    const int n = 32;
    const rt::Problem prob = deblur(n);
    std::atomic<bool> stop{true};
    pg::Options opt;
    opt.max_iters = 10000000;
    opt.eps_abs = opt.eps_rel = 0;
    opt.stop = &stop;
    // set before: each run stops after its first iteration, automatic without probing further
    for (pg::Algorithm a : {pg::Algorithm::pock_chambolle, pg::Algorithm::admm, pg::Algorithm::automatic}) {
        CAPTURE(pg::name(a));
        opt.algorithm = a;
        const pg::Result r = rt::solve(prob, opt);
        CHECK(r.status == pg::Status::interrupted);
        CHECK(r.iterations == 1);
        CHECK(r["x"].sizes() == std::vector<int>{n, n});
    }
    std::vector<rt::BatchMember> members(6);
    for (unsigned i = 0; i < members.size(); ++i) members[i].inputs["b"] = pattern(n, i + 1);
    opt.algorithm = pg::Algorithm::pock_chambolle;
    for (const pg::Result& r : rt::solve_batch(prob, members, opt)) {
        CHECK(r.status == pg::Status::interrupted);
        CHECK(r.iterations == 0);
        CHECK_THAT(r.message, Contains("not started"));
    }
    // set while running (ten million iterations each would take many minutes): every member stops
    // within an iteration of the flag, the ones running report where they were
    stop = false;
    std::thread setter([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        stop = true;
    });
    const std::vector<pg::Result> batch = rt::solve_batch(prob, members, opt);
    setter.join();
    int ran = 0;
    for (const pg::Result& r : batch) {
        CHECK(r.status == pg::Status::interrupted);
        CHECK(r.iterations < opt.max_iters);
        if (r.iterations > 0) ++ran;
    }
    CHECK(ran >= 1);
}
