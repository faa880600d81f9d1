// Generated Condat–Vũ solvers against the JIT engine on the plan they run (the condat_vu plan: the
// data term's quadratic in Ω for a gradient step, TV split, nonneg in the per-pixel prox): TV
// deconvolution with nonnegativity and masked super-resolution (a mask over a subsampled
// convolution: the quadratic PC and L-ADMM must split and ADMM must solve by CG). The same
// iterates, steps, stopping iteration and objective; step() in pieces; bad input as a status.
#include <cmath>
#include <cstdio>
#include <string>

#include <catch2/catch.hpp>

#include <proxgen/aot/generator.hpp>
#include <proxgen/proxgen.hpp>

#include "../../examples/deploy/deblur_problem.hpp"
#include "deblur_cv.h"
#include "forward_backward_cv.h"
#include "forward_backward_problem.hpp"
#include "reference_problems.hpp"
#include "solver_test_support.hpp"
#include "superres_cv.h"
#include "superres_data.hpp"
#include "superres_problem.hpp"

namespace pg = proxgen;
using Buffer = pg::aot_test::Buffer;

namespace {

using pg::aot_test::fixed;
using pg::aot_test::generated_plan;
using pg::aot_test::objective_of;
using pg::aot_test::relative_difference;
using pg::aot_test::Superres;

/// 100 fixed iterations as the JIT's, then the default tolerances: the same stop and objective.
template <class Solver, class Options, class Data>
void check_against_jit(const char* what, const pg::ir::Problem& plan, const Data& d, std::vector<int> extents) {
    REQUIRE(pg::plan::has_gradient_steps(plan));
    const pg::Result jit = pg::detail::solve_ir(plan, fixed<pg::Options>(100), nullptr);
    Solver s;
    REQUIRE(s.init(extents, d, fixed<Options>(100)) == decltype(s.solve())::ok);
    REQUIRE(s.solve() == decltype(s.solve())::ok);
    const double e = relative_difference(s.x(), jit.x);
    std::printf("condat_vu %s, 100 iterations: x %.2e from the JIT's; tau %.6g vs %.6g, sigma %.6g vs %.6g\n", what, e,
                s.state().tau, jit.steps.at(0), s.state().sigma, jit.steps.at(1));
    CHECK(e <= 1e-5);
    CHECK(std::abs(s.state().tau - jit.steps.at(0)) <= 1e-6 * jit.steps.at(0));
    CHECK(std::abs(s.state().sigma - jit.steps.at(1)) <= 1e-6 * jit.steps.at(1));

    const pg::Result stopped = pg::detail::solve_ir(plan, pg::Options{}, nullptr);
    Solver t;
    REQUIRE(t.init(extents, d) == decltype(t.solve())::ok);
    REQUIRE(t.solve() == decltype(t.solve())::ok);
    const double f = objective_of(plan, t.x()), f_jit = pg::detail::objective_ir(plan, stopped.x);
    std::printf("condat_vu %s, default tolerances: %d iterations (JIT %d), objective %.9g vs %.9g\n", what,
                t.state().iterations, stopped.iterations, f, f_jit);
    CHECK(t.state().iterations == stopped.iterations);
    CHECK(t.state().converged == stopped.converged);
    CHECK(std::abs(f - f_jit) <= 1e-5 * std::abs(f_jit));
}

}  // namespace

TEST_CASE("condat_vu solver: TV deconvolution with nonnegativity runs the JIT's iterations and stops where it does") {
    const auto deconv = pg::reference::make_deconv(64);
    const auto plan = generated_plan<pg::Algorithm::condat_vu>(deblur_problem(deconv.kernel, deconv.b, 0.002f));
    STATIC_REQUIRE(deblur_cv::Description::gradient_steps);
    STATIC_REQUIRE(deblur_cv::Description::psi_terms == 1);  // TV only: the data term is a gradient step
    const auto d = pg::aot_test::deconv_data<deblur_cv::Data>(deconv, 0.002f);  // by deblur_problem.hpp's names
    check_against_jit<deblur_cv::Solver, deblur_cv::Options>("deconvolution + nonneg 64x64", plan, d, {64, 64});
}

TEST_CASE("condat_vu solver: masked super-resolution runs the JIT's iterations and stops where it does") {
    const Superres sr;
    const auto plan = generated_plan<pg::Algorithm::condat_vu>(superres_problem(sr.mask, sr.kernel, sr.b, 0.01f));
    STATIC_REQUIRE(superres_cv::Description::gradient_steps);
    STATIC_REQUIRE(superres_cv::Description::psi_terms == 1);
    check_against_jit<superres_cv::Solver, superres_cv::Options>("super-resolution 64x64", plan,
                                                                 sr.data<superres_cv::Data>(0.01f), {64, 64});
}

TEST_CASE("condat_vu solver: a plan that splits nothing runs forward-backward, the JIT's iterations, and stops where it does") {
    const auto deconv = pg::reference::make_deconv(64);
    const auto plan = generated_plan<pg::Algorithm::condat_vu>(forward_backward_problem(deconv.kernel, deconv.b, 0.05f));
    REQUIRE(plan.psi.empty());
    STATIC_REQUIRE(forward_backward_cv::Description::gradient_steps);
    STATIC_REQUIRE(forward_backward_cv::Description::psi_terms == 0);
    const auto d = pg::aot_test::deconv_data<forward_backward_cv::Data>(deconv, 0.05f);  // by the problem's names
    check_against_jit<forward_backward_cv::Solver, forward_backward_cv::Options>("forward-backward 64x64", plan, d,
                                                                                 {64, 64});
}

TEST_CASE("condat_vu solver: step() in pieces equals solve(), and bad input or steps return a status") {
    const Superres sr;
    superres_cv::Solver whole, pieces;
    pg::aot_test::check_superres_steps_in_pieces(sr, whole, pieces);

    superres_cv::Solver s;
    pg::aot_test::check_superres_bad_input(sr, s);
    superres_cv::Options steps;
    steps.tau = 1.0;
    steps.sigma = 1.0;
    CHECK(s.init({64, 64}, sr.data<superres_cv::Data>(0.01f), steps) == superres_cv::Status::invalid_argument);
    CHECK_THAT(std::string(s.last_error()), Catch::Matchers::Contains("tau * (sigma * ||K||^2 + L/2)"));
}
