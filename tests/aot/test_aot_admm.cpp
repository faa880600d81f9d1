// Generated ADMM solvers against the JIT engine on the plan they run (the admm plan itself: its
// x-update is the JIT's, the spectral ones through the generated FFT passes instead of FFTW): TV
// denoising (DCT x-update), TV deconvolution with periodic differences (FFT), TV deconvolution
// with nonnegativity, masked super-resolution and a problem in two variables of different sizes
// (CG), a masked sparse fit (elementwise); the same iterates, the same stopping iteration, and
// bad input as a status.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include <proxgen/aot/generator.hpp>
#include <proxgen/proxgen.hpp>

#include "../../examples/deploy/deblur_problem.hpp"
#include "blocks_admm.h"
#include "deblur_admm.h"
#include "denoise_admm.h"
#include "denoise_problem.hpp"
#include "periodic_deblur_admm.h"
#include "periodic_deblur_problem.hpp"
#include "reference_problems.hpp"
#include "solver_test_support.hpp"
#include "sparse_admm.h"
#include "sparse_problem.hpp"
#include "superres_admm.h"
#include "superres_data.hpp"
#include "superres_problem.hpp"
#include "two_sizes_admm.h"
#include "variables_problems.hpp"

namespace pg = proxgen;
using Buffer = pg::aot_test::Buffer;

namespace {

using pg::aot_test::fixed;
using pg::aot_test::negated;
using pg::aot_test::relative_difference;
using pg::aot_test::Superres;
using pg::aot_test::to_buffer;

/// The JIT on the plan a generated ADMM solver runs.
template <class P>
pg::Result jit_admm(const P& problem, const pg::Options& opt) {
    return pg::detail::solve_ir(pg::aot_test::generated_plan<pg::Algorithm::admm>(problem), opt, nullptr);
}


}  // namespace

TEST_CASE("admm solver: TV denoising (DCT x-update through the generated passes) runs the JIT's iterations") {
    const auto noisy = pg::reference::make_denoise(96).b;
    const pg::Result jit = jit_admm(denoise_problem(noisy, 0.1f), fixed<pg::Options>(150));

    denoise_admm::Data d;
    d.sum_squares_offset = negated(noisy);
    d.group_norm1_weight = 0.1f;
    denoise_admm::Solver s;
    STATIC_REQUIRE(denoise_admm::Description::x_update_kind == pg::aot::XUpdate::dct);
    REQUIRE(denoise_admm_init(s, {96, 96}, d, fixed<denoise_admm::Options>(150)) == denoise_admm::Status::ok);
    REQUIRE(denoise_admm_solve(s) == denoise_admm::Status::ok);
    CHECK(denoise_admm_state(s).iterations == 150);
    const double e = relative_difference(s.x(), jit.x);
    std::printf("admm denoise (DCT) 96x96, 150 iterations: x %.2e from the JIT's (FFTW)\n", e);
    CHECK(e <= 1e-5);
    CHECK(std::abs(s.state().rho - jit.steps.at(0)) <= 1e-6 * jit.steps.at(0));
}

TEST_CASE("admm solver: TV deconvolution with periodic differences (FFT x-update) runs the JIT's iterations") {
    const auto deconv = pg::reference::make_deconv(64);
    const pg::Result jit = jit_admm(periodic_deblur_problem(deconv.kernel, deconv.b, 0.002f), fixed<pg::Options>(200));

    periodic_deblur_admm::Data d;  // by the names periodic_deblur_problem.hpp gives the data
    d.k = to_buffer(deconv.kernel);
    d.b = to_buffer(deconv.b);
    d.lambda = 0.002f;
    periodic_deblur_admm::Solver s;
    STATIC_REQUIRE(periodic_deblur_admm::Description::x_update_kind == pg::aot::XUpdate::fft);
    REQUIRE(s.init({64, 64}, d, fixed<periodic_deblur_admm::Options>(200)) == periodic_deblur_admm::Status::ok);
    REQUIRE(s.solve() == periodic_deblur_admm::Status::ok);
    const double e = relative_difference(s.x(), jit.x);
    std::printf("admm periodic deconvolution (FFT) 64x64, 200 iterations: x %.2e from the JIT's (FFTW)\n", e);
    CHECK(e <= 1e-5);
    CHECK(std::abs(s.state().dual_residual - jit.dual_residual) <= 1e-3 * jit.dual_residual);

    // and with the default tolerances: the same stopping iteration
    const pg::Result stopped = jit_admm(periodic_deblur_problem(deconv.kernel, deconv.b, 0.002f), pg::Options{});
    periodic_deblur_admm::Solver t;
    REQUIRE(t.init({64, 64}, d) == periodic_deblur_admm::Status::ok);
    REQUIRE(t.solve() == periodic_deblur_admm::Status::ok);
    CHECK(t.state().iterations == stopped.iterations);
    CHECK(t.state().converged == stopped.converged);
    CHECK(relative_difference(t.x(), stopped.x) <= 1e-5);
}

TEST_CASE("admm solver: TV deconvolution with nonnegativity (CG x-update) runs the JIT's iterations") {
    const auto deconv = pg::reference::make_deconv(64);
    const pg::Result jit = jit_admm(deblur_problem(deconv.kernel, deconv.b, 0.002f), fixed<pg::Options>(100));

    deblur_admm::Data d;  // by the names deblur_problem.hpp gives the data
    d.k = to_buffer(deconv.kernel);
    d.b = to_buffer(deconv.b);
    d.lambda = 0.002f;
    deblur_admm::Solver s;
    STATIC_REQUIRE(deblur_admm::Description::x_update_kind == pg::aot::XUpdate::cg);
    REQUIRE(s.init({64, 64}, d, fixed<deblur_admm::Options>(100)) == deblur_admm::Status::ok);
    REQUIRE(s.solve() == deblur_admm::Status::ok);
    const double e = relative_difference(s.x(), jit.x);
    std::printf("admm deconvolution (CG) 64x64, 100 iterations: x %.2e from the JIT's; CG iterations %d vs %d\n", e,
                s.cg_iterations(), jit.cg_iterations);
    CHECK(e <= 1e-5);
    // preconditioned as the JIT's (a circulant stand-in inverted by the generated FFT passes)
    STATIC_REQUIRE(deblur_admm::Description::cg_preconditioned);
    CHECK(s.cg_iterations() == jit.cg_iterations);
}

TEST_CASE("admm solver: masked super-resolution (CG x-update) runs the JIT's iterations") {
    const Superres sr;
    const pg::Result jit = jit_admm(superres_problem(sr.mask, sr.kernel, sr.b, 0.01f), fixed<pg::Options>(100));

    superres_admm::Solver s;
    STATIC_REQUIRE(superres_admm::Description::x_update_kind == pg::aot::XUpdate::cg);
    REQUIRE(s.init({64, 64}, sr.data<superres_admm::Data>(0.01f), fixed<superres_admm::Options>(100)) == superres_admm::Status::ok);
    REQUIRE(s.solve() == superres_admm::Status::ok);
    const double e = relative_difference(s.x(), jit.x);
    std::printf("admm super-resolution (CG) 64x64, 100 iterations: x %.2e from the JIT's; CG iterations %d vs %d\n", e,
                s.cg_iterations(), jit.cg_iterations);
    CHECK(e <= 1e-5);
    CHECK(s.cg_iterations() == jit.cg_iterations);
}

TEST_CASE("admm solver: a masked sparse fit (elementwise x-update) runs the JIT's iterations") {
    const auto noisy = pg::reference::make_denoise(48).b;
    pg::Image mask({48, 48});
    for (int y = 0; y < 48; ++y)
        for (int x = 0; x < 48; ++x) mask(x, y) = (x * 7 + y * 3) % 5 == 0 ? 0.0f : 1.0f;
    const pg::Result jit = jit_admm(sparse_problem(mask, noisy, 0.05f), fixed<pg::Options>(80));

    sparse_admm::Data d;
    d.sum_squares_arg_weight = to_buffer(mask);
    d.sum_squares_offset = negated(noisy);
    d.norm1_weight = 0.05f;
    sparse_admm::Solver s;
    STATIC_REQUIRE(sparse_admm::Description::x_update_kind == pg::aot::XUpdate::direct);
    REQUIRE(s.init({48, 48}, d, fixed<sparse_admm::Options>(80)) == sparse_admm::Status::ok);
    REQUIRE(s.solve() == sparse_admm::Status::ok);
    CHECK(relative_difference(s.x(), jit.x) <= 1e-5);
}

TEST_CASE("admm solver: two variables of different sizes (CG over both) run the JIT's iterations") {
    const pg::Image b = pg::reference::make_denoise(32).b;
    pg::Image c({16, 16});
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) c(x, y) = b(2 * x, 2 * y) + 0.25f * float((x + 2 * y) % 5) / 4.0f;
    const pg::Result jit = jit_admm(two_sizes_problem(b, c, 0.1f), fixed<pg::Options>(60));

    two_sizes_admm::Data d;
    d.sum_squares_offset = negated(c);
    d.sum_squares_2_offset = negated(b);
    two_sizes_admm::Solver s;
    REQUIRE(two_sizes_admm_init_variables(s, {{32, 32}, {16, 16}}, d, fixed<two_sizes_admm::Options>(60)) ==
            two_sizes_admm::Status::ok);
    REQUIRE(two_sizes_admm_solve(s) == two_sizes_admm::Status::ok);
    // the JIT's x is the variables stacked in order
    CHECK(relative_difference(s.variable("x"), jit.x) <= 1e-5);
    CHECK(relative_difference(s.variable("y"), jit.x, 32 * 32) <= 1e-5);
}

TEST_CASE("admm solver: two variables whose blocks keep their own transforms (FFT and DCT) run the JIT's iterations") {
    const auto deconv = pg::reference::make_deconv(32);
    pg::Image k({5, 5});
    for (std::size_t i = 0; i < k.size(); ++i) k.data()[i] = 1.0f / 25;
    pg::Image c({16, 16});
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) c(x, y) = deconv.b(2 * x, 2 * y) + 0.2f * float((3 * x + y) % 7) / 6.0f;
    const auto problem = blocks_problem(k, deconv.b, c);
    CHECK_THAT(pg::describe(problem, pg::Algorithm::admm),
               Catch::Matchers::Contains("FFT solve x-update") && Catch::Matchers::Contains("DCT solve x-update"));
    const pg::Result jit = jit_admm(problem, fixed<pg::Options>(100));

    blocks_admm::Data d;  // by the names blocks_problem gives the data
    d.k = to_buffer(k);
    d.b = to_buffer(deconv.b);
    d.c = to_buffer(c);
    STATIC_REQUIRE(blocks_admm::Description::block_kinds[0] == pg::aot::XUpdate::fft);
    STATIC_REQUIRE(blocks_admm::Description::block_kinds[1] == pg::aot::XUpdate::dct);
    blocks_admm::Solver s;
    const blocks_admm::Status init = blocks_admm_init_variables(s, {{32, 32}, {16, 16}}, d, fixed<blocks_admm::Options>(100));
    INFO(s.last_error());
    REQUIRE(init == blocks_admm::Status::ok);
    REQUIRE(blocks_admm_solve(s) == blocks_admm::Status::ok);
    const double ex = relative_difference(s.variable("x"), jit.x), ey = relative_difference(s.variable("y"), jit.x, 32 * 32);
    std::printf("admm two blocks (FFT x, DCT y), 100 iterations: x %.2e, y %.2e from the JIT's (FFTW)\n", ex, ey);
    CHECK(ex <= 1e-5);
    CHECK(ey <= 1e-5);
    CHECK(std::abs(s.state().rho - jit.steps.at(0)) <= 1e-6 * jit.steps.at(0));
}

TEST_CASE("admm solver: step() in pieces equals solve(), and bad input returns a status naming the field") {
    const Superres sr;
    superres_admm::Solver whole, pieces;
    pg::aot_test::check_superres_steps_in_pieces(sr, whole, pieces);

    superres_admm::Solver s;
    pg::aot_test::check_superres_bad_input(sr, s);
    const superres_admm::Data d = sr.data<superres_admm::Data>(0.01f);
    superres_admm::Options bad_cg;
    bad_cg.cg_tol = 1.5;
    CHECK(s.init({64, 64}, d, bad_cg) == superres_admm::Status::invalid_argument);
    CHECK_THAT(std::string(s.last_error()), Catch::Matchers::Contains("cg_tol"));
    superres_admm::Options bad_rho;
    bad_rho.rho = -2;
    CHECK(s.init({64, 64}, d, bad_rho) == superres_admm::Status::invalid_argument);
    CHECK_THAT(std::string(s.last_error()), Catch::Matchers::Contains("rho"));
}
