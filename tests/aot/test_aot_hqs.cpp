// Generated half-quadratic splitting solvers against the JIT engine on the plan they run (the hqs
// plan itself: ADMM's x-updates with u = 0, the penalty growing in stages, the continuation comparing
// the objective of the feasible copy across stages): TV deconvolution with periodic differences
// (FFT x-update through the generated passes), TV deconvolution with nonnegativity and masked
// super-resolution (CG); the same iterates, the same stopping iteration and objective with the
// default tolerances, bad input as a status, and a problem without a minimum reported as unbounded.
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include <proxgen/aot/generator.hpp>
#include <proxgen/proxgen.hpp>

#include "../../examples/deploy/deblur_problem.hpp"
#include "deblur_hqs.h"
#include "periodic_deblur_hqs.h"
#include "periodic_deblur_problem.hpp"
#include "reference_problems.hpp"
#include "solver_test_support.hpp"
#include "superres_data.hpp"
#include "superres_hqs.h"
#include "superres_problem.hpp"
#include "unbounded_hqs.h"
#include "unbounded_problem.hpp"

namespace pg = proxgen;
using Buffer = pg::aot_test::Buffer;

namespace {

using pg::aot_test::fixed;
using pg::aot_test::generated_plan;
using pg::aot_test::objective_of;
using pg::aot_test::relative_difference;
using pg::aot_test::Superres;

}  // namespace

TEST_CASE("hqs solver: TV deconvolution with periodic differences (FFT x-update) runs the JIT's iterations") {
    const auto deconv = pg::reference::make_deconv(64);
    const auto problem = periodic_deblur_problem(deconv.kernel, deconv.b, 0.002f);
    const auto plan = generated_plan<pg::Algorithm::hqs>(problem);
    // 100 iterations: ρ grows 1.5× every 20, and the two transforms' float32 roundings part the
    // iterates slowly as the x-update's system grows stiffer (1.1e-5 after 200)
    const pg::Result jit = pg::detail::solve_ir(plan, fixed<pg::Options>(100), nullptr);

    // by the names periodic_deblur_problem.hpp gives the data
    const auto d = pg::aot_test::deconv_data<periodic_deblur_hqs::Data>(deconv, 0.002f);
    STATIC_REQUIRE(periodic_deblur_hqs::Description::x_update_kind == pg::aot::XUpdate::fft);
    periodic_deblur_hqs::Solver s;
    REQUIRE(s.init({64, 64}, d, fixed<periodic_deblur_hqs::Options>(100)) == periodic_deblur_hqs::Status::ok);
    REQUIRE(s.solve() == periodic_deblur_hqs::Status::ok);
    const double e = relative_difference(s.x(), jit.x);
    std::printf("hqs periodic deconvolution (FFT) 64x64, 100 iterations: x %.2e from the JIT's (FFTW), rho %.6g vs %.6g\n",
                e, s.state().rho, jit.steps.at(0));
    CHECK(e <= 1e-5);
    CHECK(std::abs(s.state().rho - jit.steps.at(0)) <= 1e-6 * jit.steps.at(0));

    // with the default tolerances the continuation compares objectives: the same stop, the same optimum
    const pg::Result stopped = pg::detail::solve_ir(plan, pg::Options{}, nullptr);
    periodic_deblur_hqs::Solver t;
    REQUIRE(t.init({64, 64}, d) == periodic_deblur_hqs::Status::ok);
    REQUIRE(t.solve() == periodic_deblur_hqs::Status::ok);
    std::printf("hqs periodic deconvolution, default tolerances: %d iterations (JIT %d), converged %d (JIT %d)\n",
                t.state().iterations, stopped.iterations, int(t.state().converged), int(stopped.converged));
    CHECK(t.state().iterations == stopped.iterations);
    CHECK(t.state().converged == stopped.converged);
    const double f = objective_of(plan, t.x()), f_jit = pg::detail::objective_ir(plan, stopped.x);
    CHECK(std::abs(f - f_jit) <= 1e-5 * std::abs(f_jit));
}

TEST_CASE("hqs solver: TV deconvolution with nonnegativity (CG x-update) reaches the JIT's objective") {
    const auto deconv = pg::reference::make_deconv(64);
    const auto plan = generated_plan<pg::Algorithm::hqs>(deblur_problem(deconv.kernel, deconv.b, 0.002f));
    const pg::Result jit = pg::detail::solve_ir(plan, pg::Options{}, nullptr);

    const auto d = pg::aot_test::deconv_data<deblur_hqs::Data>(deconv, 0.002f);  // by deblur_problem.hpp's names
    STATIC_REQUIRE(deblur_hqs::Description::x_update_kind == pg::aot::XUpdate::cg);
    deblur_hqs::Solver s;
    REQUIRE(s.init({64, 64}, d) == deblur_hqs::Status::ok);
    REQUIRE(s.solve() == deblur_hqs::Status::ok);
    const double f = objective_of(plan, s.x()), f_jit = pg::detail::objective_ir(plan, jit.x);
    std::printf("hqs deconvolution + nonneg (CG) 64x64: %d iterations (JIT %d), objective %.9g vs %.9g (%.2e), "
                "x %.2e from the JIT's, CG iterations %d vs %d\n",
                s.state().iterations, jit.iterations, f, f_jit, std::abs(f - f_jit) / std::abs(f_jit),
                relative_difference(s.x(), jit.x), s.cg_iterations(), jit.cg_iterations);
    CHECK(s.state().iterations == jit.iterations);
    CHECK(s.state().converged == jit.converged);
    CHECK(std::abs(f - f_jit) <= 1e-5 * std::abs(f_jit));
    CHECK(relative_difference(s.x(), jit.x) <= 1e-4);
    // preconditioned as the JIT's (a circulant stand-in inverted by the generated FFT passes)
    STATIC_REQUIRE(deblur_hqs::Description::cg_preconditioned);
}

TEST_CASE("hqs solver: masked super-resolution (CG x-update) reaches the JIT's objective") {
    const Superres sr;
    const auto plan = generated_plan<pg::Algorithm::hqs>(superres_problem(sr.mask, sr.kernel, sr.b, 0.01f));
    const pg::Result fixed_jit = pg::detail::solve_ir(plan, fixed<pg::Options>(100), nullptr);
    superres_hqs::Solver s;
    REQUIRE(s.init({64, 64}, sr.data<superres_hqs::Data>(0.01f), fixed<superres_hqs::Options>(100)) ==
            superres_hqs::Status::ok);
    REQUIRE(s.solve() == superres_hqs::Status::ok);
    const double e = relative_difference(s.x(), fixed_jit.x);
    std::printf("hqs super-resolution (CG) 64x64, 100 iterations: x %.2e from the JIT's; CG iterations %d vs %d\n", e,
                s.cg_iterations(), fixed_jit.cg_iterations);
    CHECK(e <= 1e-5);

    const pg::Result jit = pg::detail::solve_ir(plan, pg::Options{}, nullptr);
    superres_hqs::Solver t;
    REQUIRE(t.init({64, 64}, sr.data<superres_hqs::Data>(0.01f)) == superres_hqs::Status::ok);
    REQUIRE(t.solve() == superres_hqs::Status::ok);
    const double f = objective_of(plan, t.x()), f_jit = pg::detail::objective_ir(plan, jit.x);
    std::printf("hqs super-resolution, default tolerances: %d iterations (JIT %d), objective %.9g vs %.9g\n",
                t.state().iterations, jit.iterations, f, f_jit);
    CHECK(t.state().iterations == jit.iterations);
    CHECK(std::abs(f - f_jit) <= 1e-5 * std::abs(f_jit));
}

TEST_CASE("hqs solver: step() in pieces equals solve(), and bad input returns a status naming the field") {
    const Superres sr;
    superres_hqs::Solver whole, pieces;
    pg::aot_test::check_superres_steps_in_pieces(sr, whole, pieces);
    CHECK(pieces.state().rho == whole.state().rho);

    superres_hqs::Solver s;
    pg::aot_test::check_superres_bad_input(sr, s);
    const superres_hqs::Data d = sr.data<superres_hqs::Data>(0.01f);
    superres_hqs::Options bad_growth;
    bad_growth.hqs_growth = 0.5;
    CHECK(s.init({64, 64}, d, bad_growth) == superres_hqs::Status::invalid_argument);
    CHECK_THAT(std::string(s.last_error()), Catch::Matchers::Contains("hqs_growth"));
    superres_hqs::Options bad_every;
    bad_every.hqs_every = 0;
    CHECK(s.init({64, 64}, d, bad_every) == superres_hqs::Status::invalid_argument);
    CHECK_THAT(std::string(s.last_error()), Catch::Matchers::Contains("hqs_every"));
}

TEST_CASE("hqs solver: a problem without a minimum is reported as unbounded, as pg::solve reports it") {
    pg::Options opt;
    opt.algorithm = pg::Algorithm::hqs;
    const pg::Result jit = pg::solve(unbounded_problem(), opt);
    REQUIRE(jit.status == pg::Status::unbounded);

    unbounded_hqs::Solver s;
    REQUIRE(s.init({16, 16}, unbounded_hqs::Data{}) == unbounded_hqs::Status::ok);
    CHECK(s.solve() == unbounded_hqs::Status::unbounded);
    CHECK_THAT(std::string(s.last_error()), Catch::Matchers::Contains("looks unbounded"));
    CHECK_FALSE(s.state().converged);
    std::printf("hqs unbounded: stopped after %d iterations (JIT %d)\n", s.state().iterations, jit.iterations);
    CHECK(s.state().iterations == jit.iterations);
}
