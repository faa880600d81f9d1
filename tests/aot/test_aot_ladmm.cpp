// Generated linearized ADMM solvers against the JIT engine on the plan they run (aot::halide_only
// of the ladmm plan): TV denoising and TV deconvolution with nonnegativity (one fused kernel per
// iteration), masked super-resolution (the separate x, (z, u) and residual steps); the same
// iterates, the same stopping iteration, and bad input as a status.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include <proxgen/aot/generator.hpp>
#include <proxgen/proxgen.hpp>

#include "../../examples/deploy/deblur_problem.hpp"
#include "deblur_ladmm.h"
#include "denoise_ladmm.h"
#include "denoise_problem.hpp"
#include "reference_problems.hpp"
#include "solver_test_support.hpp"
#include "superres_ladmm.h"
#include "superres_data.hpp"
#include "superres_problem.hpp"

namespace pg = proxgen;
using Buffer = pg::aot_test::Buffer;

namespace {

using pg::aot_test::negated;
using pg::aot_test::relative_difference;
using pg::aot_test::Superres;
using pg::aot_test::to_buffer;

/// The JIT on the plan a generated linearized ADMM solver runs.
template <class P>
pg::Result jit_ladmm(const P& problem, const pg::Options& opt) {
    return pg::detail::solve_ir(pg::aot_test::generated_plan<pg::Algorithm::ladmm>(problem), opt, nullptr);
}

}  // namespace

TEST_CASE("ladmm solver: TV denoising (one fused kernel per iteration) runs the JIT's iterations") {
    const auto noisy = pg::reference::make_denoise(96).b;
    pg::Options opt;
    opt.max_iters = 150;
    opt.eps_abs = opt.eps_rel = 0;
    const pg::Result jit = jit_ladmm(denoise_problem(noisy, 0.1f), opt);

    denoise_ladmm::Data d;
    d.sum_squares_offset = negated(noisy);
    d.group_norm1_weight = 0.1f;
    denoise_ladmm::Options o;
    o.max_iters = 150;
    o.eps_abs = o.eps_rel = 0;
    denoise_ladmm::Solver s;
    STATIC_REQUIRE(denoise_ladmm::Description::fused);
    REQUIRE(denoise_ladmm_init(s, {96, 96}, d, o) == denoise_ladmm::Status::ok);
    REQUIRE(denoise_ladmm_solve(s) == denoise_ladmm::Status::ok);
    CHECK(denoise_ladmm_state(s).iterations == 150);
    CHECK(relative_difference(s.x(), jit.x) <= 1e-5);
    CHECK(std::abs(denoise_ladmm_state(s).primal_residual - jit.primal_residual) <= 1e-5 * jit.primal_residual);
    CHECK(std::abs(denoise_ladmm_state(s).lambda - jit.steps.at(0)) <= 1e-6 * jit.steps.at(0));
}

TEST_CASE("ladmm solver: the default tolerances stop at the JIT's iteration, and step() in pieces equals solve()") {
    const auto noisy = pg::reference::make_denoise(64).b;
    const pg::Result jit = jit_ladmm(denoise_problem(noisy, 0.1f), pg::Options{});
    REQUIRE(jit.converged);

    denoise_ladmm::Data d;
    d.sum_squares_offset = negated(noisy);
    d.group_norm1_weight = 0.1f;
    denoise_ladmm::Solver whole, pieces;
    REQUIRE(whole.init({64, 64}, d) == denoise_ladmm::Status::ok);
    REQUIRE(whole.solve() == denoise_ladmm::Status::ok);
    CHECK(whole.state().converged);
    CHECK(whole.state().iterations == jit.iterations);
    CHECK(relative_difference(whole.x(), jit.x) <= 1e-5);

    REQUIRE(pieces.init({64, 64}, d) == denoise_ladmm::Status::ok);
    while (!pieces.state().finished) REQUIRE(pieces.step(7) == denoise_ladmm::Status::ok);
    CHECK(pieces.state().iterations == whole.state().iterations);
    CHECK(relative_difference(pieces.x(), jit.x) <= 1e-5);
}

TEST_CASE("ladmm solver: TV deconvolution with nonnegativity runs the JIT's iterations") {
    const auto deconv = pg::reference::make_deconv(64);
    pg::Options opt;
    opt.max_iters = 200;
    opt.eps_abs = opt.eps_rel = 0;
    const pg::Result jit = jit_ladmm(deblur_problem(deconv.kernel, deconv.b, 0.002f), opt);

    deblur_ladmm::Data d;  // by the names deblur_problem.hpp gives the data
    d.k = to_buffer(deconv.kernel);
    d.b = to_buffer(deconv.b);
    d.lambda = 0.002f;
    deblur_ladmm::Options o;
    o.max_iters = 200;
    o.eps_abs = o.eps_rel = 0;
    deblur_ladmm::Solver s;
    REQUIRE(s.init({64, 64}, d, o) == deblur_ladmm::Status::ok);
    REQUIRE(s.solve() == deblur_ladmm::Status::ok);
    CHECK(relative_difference(s.x(), jit.x) <= 1e-5);
    CHECK(std::abs(s.state().dual_residual - jit.dual_residual) <= 1e-4 * jit.dual_residual);
    // the steps come from pg::solve's ||K||: the stack of the blur and the differences estimated at
    // init (Lanczos through the generated norm_gram pipelines), below the planner's bound
    // sqrt(||k||_1^2 + 8), as the JIT's
    STATIC_REQUIRE(deblur_ladmm::Description::norm_grams == 2);
    CHECK(std::abs(s.state().mu - jit.steps.at(1)) <= 1e-6 * jit.steps.at(1));
    double k1 = 0;
    for (std::size_t i = 0; i < deconv.kernel.size(); ++i) k1 += std::abs(deconv.kernel.data()[i]);
    CHECK(s.state().mu / s.state().lambda > 1.001 / (k1 * k1 + 8));
    // the returned x meets the constraint as pg::solve's does
    float lowest = 0;
    s.x().for_each_value([&](float v) { lowest = std::min(lowest, v); });
    float jit_lowest = 0;
    for (std::size_t i = 0; i < jit.x.size(); ++i) jit_lowest = std::min(jit_lowest, jit.x.data()[i]);
    CHECK((lowest < 0) == (jit_lowest < 0));
}

TEST_CASE("ladmm solver: masked super-resolution (separate steps) runs the JIT's iterations") {
    const Superres sr;
    pg::Options opt;
    opt.max_iters = 300;
    opt.eps_abs = opt.eps_rel = 0;
    const pg::Result jit = jit_ladmm(superres_problem(sr.mask, sr.kernel, sr.b, 0.01f), opt);

    superres_ladmm::Options o;
    o.max_iters = 300;
    o.eps_abs = o.eps_rel = 0;
    superres_ladmm::Solver s;
    STATIC_REQUIRE(!superres_ladmm::Description::fused);
    REQUIRE(s.init({64, 64}, sr.data<superres_ladmm::Data>(0.01f), o) == superres_ladmm::Status::ok);
    REQUIRE(s.solve() == superres_ladmm::Status::ok);
    CHECK(relative_difference(s.x(), jit.x) <= 1e-5);
    CHECK(std::abs(s.state().lambda - jit.steps.at(0)) <= 1e-6 * jit.steps.at(0));

    // and with the default tolerances: the same stopping iteration
    const pg::Result stopped = jit_ladmm(superres_problem(sr.mask, sr.kernel, sr.b, 0.01f), pg::Options{});
    superres_ladmm::Solver t;
    REQUIRE(t.init({64, 64}, sr.data<superres_ladmm::Data>(0.01f)) == superres_ladmm::Status::ok);
    REQUIRE(t.solve() == superres_ladmm::Status::ok);
    CHECK(t.state().iterations == stopped.iterations);
    CHECK(t.state().converged == stopped.converged);
    CHECK(relative_difference(t.x(), stopped.x) <= 1e-5);
}

TEST_CASE("ladmm solver: bad input returns a status and a sentence naming the field, never aborts") {
    const Superres sr;
    superres_ladmm::Solver s;
    pg::aot_test::check_superres_bad_input(sr, s);
    const superres_ladmm::Data d = sr.data<superres_ladmm::Data>(0.01f);

    superres_ladmm::Options too_far;
    too_far.lambda = 1;
    too_far.mu = 10;  // μ‖K‖²/λ > 1
    CHECK(s.init({64, 64}, d, too_far) == superres_ladmm::Status::invalid_argument);
    CHECK_THAT(std::string(s.last_error()), Catch::Matchers::Contains("mu"));

    REQUIRE(s.init({64, 64}, d) == superres_ladmm::Status::ok);
    CHECK(s.set_x0(Buffer(63, 64)) == superres_ladmm::Status::shape_mismatch);
    CHECK(s.step(-1) == superres_ladmm::Status::invalid_argument);
    CHECK(s.step(3) == superres_ladmm::Status::ok);
    CHECK(s.state().iterations == 3);
}
