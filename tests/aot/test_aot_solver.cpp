// Generated solvers as a program sees them: two of them (deblur from examples/deploy, denoise
// from here) linked into one binary over one Halide runtime; status codes for bad input; the
// stopping rule and step(); and the denoise solver against pg::solve on the same problem.
#include <sys/resource.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include <proxgen/check/rules.hpp>
#include <proxgen/proxgen.hpp>

#include "deblur.h"
#include "denoise.h"
#include "denoise_fused.h"
#include "denoise_problem.hpp"
#include "reference_problems.hpp"
#include "solver_test_support.hpp"
#include "vtv.h"
#include "vtv_problem.hpp"
#include "wavelet.h"
#include "wavelet_problem.hpp"

namespace pg = proxgen;
using Buffer = pg::aot_test::Buffer;

namespace {

using pg::aot_test::to_buffer;

deblur::Data deblur_data(int w) {
    const auto deconv = pg::reference::make_deconv(w);
    deblur::Data d;  // by the names deblur_problem.hpp gives the data, as the user has them
    d.k = to_buffer(deconv.kernel);
    d.b = to_buffer(deconv.b);
    d.lambda = 0.002f;
    return d;
}

/// The denoise solver's data for sum_squares(x - noisy) + weight * TV.
denoise::Data denoise_data(const pg::Image& noisy, float weight) {
    denoise::Data d;
    d.sum_squares_offset = to_buffer(noisy);
    d.sum_squares_offset.for_each_value([](float& v) { v = -v; });
    d.group_norm1_weight = weight;
    return d;
}

/// The process's virtual memory size in bytes (VmSize).
std::size_t virtual_memory_bytes() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmSize:", 0) == 0) return std::size_t(std::stoull(line.substr(7))) * 1024;
    return 0;
}

}  // namespace

TEST_CASE("solver: state that cannot be allocated is out_of_memory, never a crash") {
    // The data of a 2048² problem fit; then the address space is capped 48 MB above what the
    // process maps, less than the solver's state (x alone is 16 MB, the TV duals 32 MB each).
    const deblur::Data d = deblur_data(2048);
    rlimit old{};
    REQUIRE(getrlimit(RLIMIT_AS, &old) == 0);
    rlimit capped = old;
    capped.rlim_cur = virtual_memory_bytes() + (std::size_t(48) << 20);
    REQUIRE(setrlimit(RLIMIT_AS, &capped) == 0);
    deblur::Solver s;
    const deblur::Status status = deblur_init(s, {2048, 2048}, d);
    const std::string message = s.last_error();
    REQUIRE(setrlimit(RLIMIT_AS, &old) == 0);
    CHECK(status == deblur::Status::out_of_memory);
    CHECK_THAT(message, Catch::Matchers::Contains("cannot allocate"));
    // with the memory back, the same solver initialises and iterates
    CHECK(deblur_init(s, {2048, 2048}, d) == deblur::Status::ok);
    CHECK(deblur_step(s, 1) == deblur::Status::ok);
}

TEST_CASE("solver: bad input returns a status and a message, never aborts") {
    deblur::Solver s;
    CHECK(deblur_step(s, 1) == deblur::Status::not_initialized);
    CHECK(deblur_solve(s) == deblur::Status::not_initialized);

    deblur::Data d = deblur_data(32);
    CHECK(deblur_init(s, {32}, d) == deblur::Status::invalid_argument);
    CHECK(deblur_init(s, {32, 0}, d) == deblur::Status::invalid_argument);
    CHECK(deblur_init(s, {32, 31}, d) == deblur::Status::shape_mismatch);
    CHECK(std::string(s.last_error()).find("'b'") != std::string::npos);

    deblur::Options bad;
    bad.check_every = 0;
    CHECK(deblur_init(s, {32, 32}, d, bad) == deblur::Status::invalid_argument);
    bad = {};
    bad.tau = bad.sigma = 10;  // τσ‖K‖² > 1
    CHECK(deblur_init(s, {32, 32}, d, bad) == deblur::Status::invalid_argument);

    deblur::Data empty = d;
    empty.k = Buffer();
    CHECK(deblur_init(s, {32, 32}, empty) == deblur::Status::invalid_argument);

    deblur::Data nan = d;
    nan.k = d.k.copy();
    nan.k(4, 4) = std::numeric_limits<float>::quiet_NaN();
    CHECK(deblur_init(s, {32, 32}, nan) == deblur::Status::non_finite_input);
    nan = d;
    nan.lambda = INFINITY;
    CHECK(deblur_init(s, {32, 32}, nan) == deblur::Status::non_finite_input);

    REQUIRE(deblur_init(s, {32, 32}, d) == deblur::Status::ok);
    CHECK(s.set_x0(Buffer(31, 32)) == deblur::Status::shape_mismatch);
    CHECK(deblur_step(s, -1) == deblur::Status::invalid_argument);
    CHECK(deblur_step(s, 3) == deblur::Status::ok);
    CHECK(deblur_state(s).iterations == 3);
}

TEST_CASE("solver: options, weights, kernels and data are refused as pg::solve refuses them") {
    // the JIT's sentence for the same mistake, which the generated solver must say too
    auto jit_error = [](auto&& f) {
        try {
            f();
        } catch (const pg::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    deblur::Solver s;
    const deblur::Data good = deblur_data(32);

    // a negative weight (the JIT refuses -1 * penalty)
    deblur::Data d = good;
    d.lambda = -1.0f;
    CHECK(deblur_init(s, {32, 32}, d) == deblur::Status::invalid_argument);
    const std::string jit_weight = jit_error([] { (void)(-1.0 * pg::norm1(pg::variable(8, 8))); });
    REQUIRE_THAT(jit_weight, Catch::Matchers::EndsWith(pg::rules::weight(-1)));
    CHECK(std::string(s.last_error()) == "deblur: scalar 'lambda': " + pg::rules::weight(-1));

    // a kernel larger than the image (the JIT refuses conv's operand being smaller)
    d = good;
    d.k = Buffer(15, 15);
    d.k.fill(1.0f / 225);
    d.b = Buffer(8, 8);
    d.b.fill(0.5f);
    CHECK(deblur_init(s, {8, 8}, d) == deblur::Status::shape_mismatch);
    const std::string jit_kernel = jit_error([] { pg::conv(pg::Image(15, 15), pg::variable(8, 8)); });
    REQUIRE(jit_kernel == "conv: the kernel is 15x15 but its operand is only 8x8");
    CHECK(std::string(s.last_error()) == "deblur: data image 'k': " + jit_kernel);

    // options: the ranges and sentences of pg::Options
    deblur::Options o;
    o.tau = -1;
    CHECK(deblur_init(s, {32, 32}, good, o) == deblur::Status::invalid_argument);
    pg::Options jo;
    jo.tau = -1;
    const std::string jit_option = jit_error([&] { pg::check_options(jo); });
    REQUIRE(jit_option == "Options: " + pg::rules::option("tau", -1));
    CHECK(std::string(s.last_error()) == "deblur: " + jit_option);

    // non-finite data: named, at coordinates
    d = good;
    d.b = good.b.copy();
    d.b(7, 3) = -INFINITY;
    CHECK(deblur_init(s, {32, 32}, d) == deblur::Status::non_finite_input);
    CHECK_THAT(std::string(s.last_error()),
               Catch::Matchers::StartsWith("deblur: data image 'b' holds a non-finite value, -inf, at (x, y) = (7, 3)"));

    // an ok leaves no earlier failure's message behind
    CHECK(deblur_init(s, {32, 32}, good) == deblur::Status::ok);
    CHECK(std::string(s.last_error()).empty());
    CHECK(deblur_step(s, -1) == deblur::Status::invalid_argument);
    CHECK_FALSE(std::string(s.last_error()).empty());
    CHECK(deblur_step(s, 2) == deblur::Status::ok);
    CHECK(std::string(s.last_error()).empty());
}

TEST_CASE("solver: tolerances stop the loop at a check, and step() in pieces equals solve()") {
    deblur::Data d = deblur_data(64);
    deblur::Options o;
    o.max_iters = 2000;
    o.eps_abs = o.eps_rel = 1e-3;
    deblur::Solver a;
    REQUIRE(deblur_init(a, {64, 64}, d, o) == deblur::Status::ok);
    REQUIRE(deblur_solve(a) == deblur::Status::ok);
    const auto& st = deblur_state(a);
    CHECK(st.converged);
    CHECK(st.iterations < o.max_iters);
    CHECK(st.iterations % o.check_every == 0);
    CHECK(st.primal_residual <= st.eps_primal);
    CHECK(st.dual_residual <= st.eps_dual);

    deblur::Solver b;
    REQUIRE(deblur_init(b, {64, 64}, d, o) == deblur::Status::ok);
    while (!deblur_state(b).finished) REQUIRE(deblur_step(b, 7) == deblur::Status::ok);
    CHECK(deblur_state(b).iterations == st.iterations);
    const Buffer& xa = a.x();
    const Buffer& xb = b.x();
    bool same = true;
    xa.for_each_element([&](int x, int y) { same = same && xa(x, y) == xb(x, y); });
    CHECK(same);
    // x() is the feasible copy, as pg::solve returns it: nonneg(x) holds exactly although it is
    // split (the iterate meets it only up to the primal residual)
    float lowest = INFINITY;
    xa.for_each_element([&](int x, int y) { lowest = std::min(lowest, xa(x, y)); });
    CHECK(lowest >= 0.0f);
}

TEST_CASE("solver: a second solver in the same program (accelerated plan) matches pg::solve") {
    const auto noisy = pg::reference::make_denoise(96).b;
    pg::Options opt;
    opt.max_iters = 150;
    opt.eps_abs = opt.eps_rel = 0;
    const pg::Result jit = pg::solve(denoise_problem(noisy, 0.1f), opt);

    denoise::Data d = denoise_data(noisy, 0.1f);
    denoise::Options o;
    o.max_iters = 150;
    o.eps_abs = o.eps_rel = 0;
    denoise::Solver s;
    REQUIRE(denoise_init(s, {96, 96}, d, o) == denoise::Status::ok);
    const double tau0 = denoise_state(s).tau;
    REQUIRE(denoise_solve(s) == denoise::Status::ok);
    // the accelerated rule ran (Ω strongly convex): τ shrank, and after τ₀/50 the steps stay, θ = 1
    CHECK(denoise_state(s).tau < tau0 / 10);
    const Buffer& x = s.x();
    double d2 = 0, n2 = 0;
    x.for_each_element([&](int i, int j) {
        const double diff = double(x(i, j)) - jit.x(i, j);
        d2 += diff * diff;
        n2 += double(jit.x(i, j)) * jit.x(i, j);
    });
    CHECK(std::sqrt(d2) <= 1e-5 * std::sqrt(n2));
    CHECK(std::abs(denoise_state(s).primal_residual - jit.primal_residual) <= 1e-5 * jit.primal_residual);
}

TEST_CASE("solver: 4 iterations per call of the fused pipeline give the one-step result") {
    const auto noisy = pg::reference::make_denoise(64).b;
    denoise::Data d = denoise_data(noisy, 0.1f);
    denoise_fused::Data f;
    f.sum_squares_offset = d.sum_squares_offset;
    f.group_norm1_weight = d.group_norm1_weight;
    static_assert(denoise_fused::Description::iterations_per_call == 4);
    denoise::Options o;
    o.max_iters = 57;  // checks at 10, 20, ..., 50 and 57: blocks of 4 and single steps mix
    o.eps_abs = o.eps_rel = 0;
    denoise::Solver one;
    denoise_fused::Solver four;
    REQUIRE(denoise_init(one, {64, 64}, d, o) == denoise::Status::ok);
    REQUIRE(denoise_fused_init(four, {64, 64}, f, o) == denoise_fused::Status::ok);
    REQUIRE(denoise_solve(one) == denoise::Status::ok);
    REQUIRE(denoise_fused_solve(four) == denoise_fused::Status::ok);
    CHECK(denoise_fused_state(four).iterations == 57);
    // the same arithmetic per level, scheduled differently: equal up to float32 rounding
    const double rp = denoise_state(one).primal_residual, rd = denoise_state(one).dual_residual;
    CHECK(rp > 0);
    CHECK(std::abs(denoise_fused_state(four).primal_residual - rp) <= 1e-4 * rp);
    CHECK(std::abs(denoise_fused_state(four).dual_residual - rd) <= 1e-4 * rd);
    const Buffer& a = one.x();
    const Buffer& b = four.x();
    double d2 = 0, n2 = 0;
    a.for_each_element([&](int x, int y) {
        d2 += std::pow(double(a(x, y)) - b(x, y), 2);
        n2 += std::pow(double(a(x, y)), 2);
    });
    CHECK(n2 > 0);
    CHECK(std::sqrt(d2) <= 1e-6 * std::sqrt(n2));
}

TEST_CASE("solver: a wavelet prior (haar, a card without a node type) runs the JIT's iterations") {
    const auto noisy = pg::reference::make_denoise(64).b;
    pg::Options opt;
    opt.algorithm = pg::Algorithm::pock_chambolle;
    opt.max_iters = 100;
    opt.eps_abs = opt.eps_rel = 0;
    const pg::Result jit = pg::solve(wavelet_problem(noisy, 0.05f), opt);

    wavelet::Data d;
    d.sum_squares_offset = to_buffer(noisy);
    d.sum_squares_offset.for_each_value([](float& v) { v = -v; });
    d.norm1_weight = 0.05f;
    wavelet::Options o;
    o.max_iters = 100;
    o.eps_abs = o.eps_rel = 0;
    wavelet::Solver s;
    REQUIRE(wavelet_init(s, {64, 64}, d, o) == wavelet::Status::ok);
    REQUIRE(wavelet_solve(s) == wavelet::Status::ok);
    const Buffer& x = s.x();
    double d2 = 0, n2 = 0;
    x.for_each_element([&](int i, int j) {
        const double diff = double(x(i, j)) - jit.x(i, j);
        d2 += diff * diff;
        n2 += double(jit.x(i, j)) * jit.x(i, j);
    });
    CHECK(std::sqrt(d2) <= 1e-5 * std::sqrt(n2));
}

TEST_CASE("solver: init refuses extents haar's levels do not divide, with the JIT's sentence (silent wrong answers, item 4)") {
    // 3 levels need width and height divisible by 8
    for (const std::vector<int>& extents : {std::vector<int>{68, 68}, {63, 64}, {12, 8}}) {
        CAPTURE(extents[0], extents[1]);
        std::string jit_message;
        try {
            (void)wavelet_problem(pg::Image(extents), 0.05f);
        } catch (const pg::Error& e) {
            jit_message = e.what();
        }
        REQUIRE_THAT(jit_message, Catch::Matchers::Contains("divisible by 2^3 = 8"));
        wavelet::Data d;
        d.sum_squares_offset = Buffer(extents[0], extents[1]);
        d.sum_squares_offset.fill(0.5f);
        d.norm1_weight = 0.05f;
        wavelet::Solver s;
        CHECK(wavelet_init(s, extents, d) == wavelet::Status::shape_mismatch);
        CHECK(std::string(s.last_error()) == "wavelet: " + jit_message);
        CHECK(wavelet_step(s, 1) == wavelet::Status::not_initialized);
    }
    wavelet::Data d;
    d.sum_squares_offset = Buffer(64, 16);
    d.sum_squares_offset.fill(0.5f);
    wavelet::Solver s;
    CHECK(wavelet_init(s, {64, 16}, d) == wavelet::Status::ok);
}

TEST_CASE("solver: the vectorial TV (schatten, a penalty card without a node type) runs the JIT's iterations") {
    pg::Image noisy({48, 40, 3});
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < 40; ++y)
            for (int x = 0; x < 48; ++x) noisy(x, y, c) = float(((7 * x + 13 * y + 5 * c) % 17) / 16.0);
    pg::Options opt;
    opt.algorithm = pg::Algorithm::pock_chambolle;
    opt.max_iters = 60;
    opt.eps_abs = opt.eps_rel = 0;
    const pg::Result jit = pg::solve(vtv_problem(noisy, 0.1f), opt);

    vtv::Data d;
    d.sum_squares_offset = Buffer(48, 40, 3);
    d.sum_squares_offset.for_each_element([&](int x, int y, int c) { d.sum_squares_offset(x, y, c) = -noisy(x, y, c); });
    d.schatten_weight = 0.1f;
    vtv::Options o;
    o.max_iters = 60;
    o.eps_abs = o.eps_rel = 0;
    vtv::Solver s;
    REQUIRE(vtv_init(s, {48, 40, 3}, d, o) == vtv::Status::ok);
    REQUIRE(vtv_solve(s) == vtv::Status::ok);
    const Buffer& x = s.x();
    double d2 = 0, n2 = 0;
    x.for_each_element([&](int i, int j, int c) {
        const double diff = double(x(i, j, c)) - jit.x(i, j, c);
        d2 += diff * diff;
        n2 += double(jit.x(i, j, c)) * jit.x(i, j, c);
    });
    CHECK(std::sqrt(d2) <= 1e-5 * std::sqrt(n2));
}

TEST_CASE("solver: the absolute tolerances' unit follows the data, as the JIT's (silent wrong answers, item 5)") {
    // data at 1/100 of unit range: both solvers measure the absolute tolerances in the data's unit
    // (algorithms::data_unit), so a check's tolerances agree
    pg::Image small = pg::reference::make_denoise(96).b;
    for (std::size_t i = 0; i < small.size(); ++i) small.data()[i] *= 0.01f;
    pg::Options opt;
    opt.max_iters = 60;
    opt.eps_abs = opt.eps_rel = 1e-9;  // measured, never met
    const pg::Result jit = pg::solve(denoise_problem(small, 0.001f), opt);
    REQUIRE_FALSE(jit.history.empty());

    denoise::Data d = denoise_data(small, 0.001f);
    denoise::Options o;
    o.max_iters = 60;
    o.eps_abs = o.eps_rel = 1e-9;
    denoise::Solver s;
    REQUIRE(denoise_init(s, {96, 96}, d, o) == denoise::Status::ok);
    REQUIRE(denoise_solve(s) == denoise::Status::ok);
    const auto& st = denoise_state(s);
    CHECK(st.iterations == jit.iterations);
    const double unit_part = std::sqrt(96.0 * 96 * 2) * 1e-9;  // the absolute part with unit 1
    INFO("generated eps_dual " << st.eps_dual << ", JIT's " << jit.history.back().eps_dual);
    CHECK(st.eps_dual < jit.history.back().eps_dual + 0.5 * unit_part);
    CHECK(std::abs(st.eps_dual - jit.history.back().eps_dual) <= 1e-3 * jit.history.back().eps_dual);
}
