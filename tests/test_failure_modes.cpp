// Failure modes are named, never silent: an infeasible problem stops early with
// Status::likely_infeasible and a sentence; divergence is an error naming the step and iteration.
#include <catch2/catch.hpp>

#include "jit/kernel.hpp"
#include "solve/engine.hpp"
#include "test_support.hpp"

namespace pg = proxgen;
using Catch::Matchers::Contains;

TEST_CASE("box(x, -2, -1) + nonneg(x) is reported as likely infeasible by every algorithm", "[failure]") {
    const pg::Image b = pg::test::random_image({24, 20}, 5, 0.0f, 1.0f);
    auto x = pg::variable(24, 20);
    auto prob = pg::sum_squares(x - b) + pg::box(x, -2.0f, -1.0f) + pg::nonneg(x);
    for (pg::Algorithm a : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm, pg::Algorithm::hqs}) {
        pg::Options opt;
        opt.algorithm = a;
        opt.max_iters = 2000;
        const pg::Result r = pg::solve(prob, opt);
        INFO(pg::name(a) << ": " << pg::name(r.status) << " after " << r.iterations << ": " << r.message);
        CHECK(r.status == pg::Status::likely_infeasible);
        CHECK_FALSE(r.converged);
        CHECK(r.iterations < 2000);
        CHECK_THAT(r.message, Contains("likely infeasible"));
    }
}

TEST_CASE("a feasible problem with the same terms is not reported as infeasible", "[failure]") {
    const pg::Image b = pg::test::random_image({24, 20}, 6, 0.0f, 1.0f);
    auto x = pg::variable(24, 20);
    auto prob = pg::sum_squares(x - b) + pg::box(x, 0.25f, 0.75f) + pg::nonneg(x) + 0.05f * pg::group_norm1(pg::grad(x));
    for (pg::Algorithm a : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm, pg::Algorithm::hqs}) {
        pg::Options opt;
        opt.algorithm = a;
        opt.max_iters = 3000;
        const pg::Result r = pg::solve(prob, opt);
        INFO(pg::name(a) << ": " << pg::name(r.status) << " after " << r.iterations);
        CHECK(r.status != pg::Status::likely_infeasible);
        CHECK(r.message.empty());
        // HQS's penalty schedule needs more than 3000 iterations to meet the tolerance here
        if (a != pg::Algorithm::hqs) CHECK(r.status == pg::Status::converged);
    }
}

TEST_CASE("a problem whose penalties are finite everywhere is never reported as infeasible", "[failure]") {
    // norm1(conv(100 k, x) - b) + TV: no constraint, no domain, so feasible. Pock-Chambolle's
    // primal residual stalls at 0.6 on it (slow progress on a badly conditioned problem), which
    // the stall rule read as "likely infeasible" after 17,300 iterations.
    const auto [k, b] = pg::test::scaled_square_blur(0.01f);  // the kernel sums to 100
    auto x = pg::variable(32, 32);
    auto prob = pg::norm1(pg::conv(k, x) - b) + 0.02f * pg::group_norm1(pg::grad(x));
    pg::Options opt;
    opt.max_iters = 25000;
    const pg::Result r = pg::solve(prob, opt);
    INFO(pg::name(r.status) << " after " << r.iterations << ": " << r.message);
    CHECK(r.status != pg::Status::likely_infeasible);
    CHECK(r.iterations == 25000);
}

TEST_CASE("divergence names the algorithm, the iteration and the step", "[failure]") {
    pg::ir::Problem p;
    p.variable_shape = {4, 3};
    p.algorithm = pg::Algorithm::pock_chambolle;
    pg::Options opt;
    pg::Result res;
    pg::detail::Monitor mon(p, opt, res);
    pg::Image finite({4, 3}), broken({4, 3});
    broken(2, 1) = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH(mon.record(30, pg::algorithms::Residuals{NAN, 1, 1, 1}, broken, "the dual step"),
                      Contains("pock_chambolle: diverged at iteration 30: the x-update produced non-finite"));
    CHECK_THROWS_WITH(mon.record(40, pg::algorithms::Residuals{1, 1, INFINITY, 1}, finite, "the dual step"),
                      Contains("diverged at iteration 40: the dual step produced non-finite"));
}

TEST_CASE("running a kernel with an argument left unbound is an internal error naming it", "[failure][jit]") {
    // A stand-in entry point: run() must refuse before calling it.
    static bool called = false;
    auto fn = [](const void**) -> int {
        called = true;
        return 0;
    };
    using K = pg::jit::Kernel;
    using Arg = pg::jit::ArgInfo;
    auto kernel = std::make_shared<const K>(
        "step", +fn, std::vector<Arg>{{"x", Arg::Kind::buffer, false, 2}, {"out", Arg::Kind::buffer, true, 2}}, nullptr);
    pg::Image out({4, 4});
    pg::jit::Call call(kernel);
    call.out(0, out);
    CHECK_THROWS_AS(call.run(), std::logic_error);
    CHECK_THROWS_WITH(call.run(), Contains("argument 'x' of kernel 'step' is not bound"));
    CHECK_FALSE(called);
    pg::Image x({4, 4});
    call.in("x", x);
    call.run();
    CHECK(called);
}
