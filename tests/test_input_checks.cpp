// Bad input gets a sentence, never a crash or a silent wrong answer: options and weights out of
// range (one rule each, proxgen/check/rules.hpp, whichever front end gave them), values float32
// cannot hold, non-finite data named as the user wrote it (input name, coordinates, the value as
// given), sizes that cannot be allocated (under a capped address space), and statuses that say
// what happened (unbounded apart from infeasible; a problem the x-update solves exactly stops at
// once, converged; compilation timed apart from the iterations).
#include <sys/resource.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <proxgen/catalogue/data_norms.hpp>
#include <proxgen/check/rules.hpp>
#include <proxgen/proxgen.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using Catch::Matchers::StartsWith;

namespace {

/// The message of the proxgen::Error f throws ("" and a failed check when it throws none).
std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const pg::Error& e) {
        return e.what();
    }
    FAIL_CHECK("no proxgen::Error thrown");
    return "";
}

/// The process's virtual memory size in bytes (VmSize).
std::size_t virtual_memory_bytes() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmSize:", 0) == 0) return std::size_t(std::stoull(line.substr(7))) * 1024;
    return 0;
}

/// Runs f with the address space capped `headroom` bytes above what the process maps now, then
/// lifts the cap again (also when f throws).
template <class F>
void with_capped_address_space(std::size_t headroom, F&& f) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    // a sanitizer's shadow memory needs an address space no cap allows
    WARN("skipped under a sanitizer: capping the address space");
    (void)headroom, (void)f;
    return;
#endif
    rlimit old{};
    REQUIRE(getrlimit(RLIMIT_AS, &old) == 0);
    rlimit capped = old;
    capped.rlim_cur = virtual_memory_bytes() + headroom;
    REQUIRE(setrlimit(RLIMIT_AS, &capped) == 0);
    struct Restore {
        rlimit limit;
        ~Restore() { setrlimit(RLIMIT_AS, &limit); }
    } restore{old};
    f();
}

}  // namespace

TEST_CASE("rules: the shared sentences, numbers as given and positions as coordinates", "[checks]") {
    namespace r = pg::rules;
    CHECK(r::number(0.002) == "0.002");
    CHECK(r::number(-1) == "-1");
    CHECK(r::number(1e308) == "1e+308");
    CHECK(r::number(1099511627776.0) == "1099511627776");
    CHECK(r::number(-INFINITY) == "-inf");
    CHECK(r::position({16, 12}, 4 + 16 * 12 - 16) == "(x, y) = (4, 11)");
    CHECK(r::position({8, 4, 3}, 5 + 8 * (2 + 4 * 1)) == "(x, y, c) = (5, 2, 1)");
    CHECK(r::option("cg_max_iters", 50).empty());
    CHECK(r::option("tau", 0).empty());  // automatic
    CHECK(r::option("cg_max_iters", 0) == "cg_max_iters must be an integer from 1 to 2147483647, got 0");
    CHECK(r::option("max_iters", 1099511627776.0) ==
          "max_iters must be an integer from 0 to 2147483647, got 1099511627776");
    CHECK(r::option("max_iters", 10.5) == "max_iters must be an integer from 0 to 2147483647, got 10.5");
    CHECK(r::option("hqs_max_ratio", 0) == "hqs_max_ratio must be a finite number >= 1, got 0");
    CHECK(r::weight(2.5).empty());
    CHECK(r::weight(-1) == "a penalty's weight must be finite and non-negative, got -1");
    CHECK(r::weight(1e39) == "a penalty's weight must be finite and non-negative, got 1e+39, which float32 "
                             "(ProxGen's arithmetic) cannot hold: its largest value is 3.4028235e+38");
    CHECK(r::weight(double(std::numeric_limits<float>::max())).empty());
    CHECK(r::conv_kernel({15, 15}, {8, 8}) == "conv: the kernel is 15x15 but its operand is only 8x8");
    CHECK(r::conv_kernel({9, 9}, {8, 9, 3}) == "conv: the kernel is 9x9 but its operand is only 8x9x3");
    CHECK(r::conv_kernel({8, 8}, {8, 8}).empty());
}

TEST_CASE("the first non-finite value is found wherever it lies, and a weight's range skips NaNs", "[checks]") {
    // blocks of 1024 values are tested at once: values at a block's edges, in the last partial
    // block, and two in one block (the first is reported)
    std::vector<float> v(3000, 1.5f);
    CHECK(pg::rules::first_non_finite(v.data(), v.size()) == v.size());
    CHECK(pg::rules::first_non_finite(v.data(), 0) == 0);
    for (const std::size_t at : {std::size_t(0), std::size_t(1023), std::size_t(1024), std::size_t(2999)})
        for (const float bad : {INFINITY, -INFINITY, NAN}) {
            std::vector<float> w = v;
            w[at] = bad;
            CHECK(pg::rules::first_non_finite(w.data(), w.size()) == at);
        }
    v[2100] = NAN;
    v[2050] = -INFINITY;
    CHECK(pg::rules::first_non_finite(v.data(), v.size()) == 2050);
    CHECK(pg::rules::first_non_finite(v.data(), 2050) == 2050);  // none before the end given
    // the largest finite float32 and the smallest subnormal are finite
    v = {std::numeric_limits<float>::max(), -std::numeric_limits<float>::denorm_min(), 0.0f, -0.0f};
    CHECK(pg::rules::first_non_finite(v.data(), v.size()) == v.size());

    pg::Image w({5, 3});
    for (int i = 0; i < 15; ++i) w.data()[i] = float(i % 5) - 2.5f;  // |w| from 0.5 to 2.5
    w.data()[7] = -0.0f;
    auto range = pg::data::abs_range(w.buffer().raw_buffer());
    CHECK(range.first == 0.0);
    CHECK(range.second == 2.5);
    w.data()[7] = NAN;
    w.data()[9] = -INFINITY;
    range = pg::data::abs_range(w.buffer().raw_buffer());
    CHECK(range.first == 0.5);
    CHECK(range.second == INFINITY);
    for (int i = 0; i < 15; ++i) w.data()[i] = NAN;
    range = pg::data::abs_range(w.buffer().raw_buffer());
    CHECK(range.first == INFINITY);
    CHECK(range.second == 0.0);
}

TEST_CASE("options out of range are refused, before anything is compiled, with the shared sentence", "[checks]") {
    const pg::Image b = pg::test::random_image({12, 10}, 3, 0, 1);
    auto x = pg::variable(12, 10);
    auto typed = pg::sum_squares(x - b) + 0.1f * pg::norm1(pg::grad(x));
    const rt::Expr rx = rt::variable("x", {12, 10});
    const rt::Problem run = rt::sum_squares(rx - rt::input("b", b)) + 0.1 * rt::norm1(rt::grad(rx));
    struct Case {
        const char* option;
        double value;
        std::function<void(pg::Options&)> set;
        pg::Algorithm algorithm;
    };
    const Case cases[] = {
        {"cg_max_iters", 0, [](pg::Options& o) { o.cg_max_iters = 0; }, pg::Algorithm::admm},
        {"cg_max_iters", -3, [](pg::Options& o) { o.cg_max_iters = -3; }, pg::Algorithm::hqs},
        {"cg_tol", -1e-3, [](pg::Options& o) { o.cg_tol = -1e-3; }, pg::Algorithm::admm},
        {"cg_tol", 1, [](pg::Options& o) { o.cg_tol = 1; }, pg::Algorithm::admm},
        {"tau", -1, [](pg::Options& o) { o.tau = -1; }, pg::Algorithm::pock_chambolle},
        {"sigma", -1, [](pg::Options& o) { o.sigma = -1; }, pg::Algorithm::pock_chambolle},
        {"lambda", -1, [](pg::Options& o) { o.lambda = -1; }, pg::Algorithm::ladmm},
        {"mu", -2, [](pg::Options& o) { o.mu = -2; }, pg::Algorithm::ladmm},
        {"hqs_max_ratio", 0, [](pg::Options& o) { o.hqs_max_ratio = 0; }, pg::Algorithm::hqs},
        {"hqs_growth", 1, [](pg::Options& o) { o.hqs_growth = 1; }, pg::Algorithm::hqs},
        {"hqs_every", 0, [](pg::Options& o) { o.hqs_every = 0; }, pg::Algorithm::hqs},
        {"rho", -5, [](pg::Options& o) { o.rho = -5; }, pg::Algorithm::admm},
        {"rho", 1e39, [](pg::Options& o) { o.rho = 1e39; }, pg::Algorithm::admm},
        {"max_iters", -1, [](pg::Options& o) { o.max_iters = -1; }, pg::Algorithm::pock_chambolle},
        {"check_every", 0, [](pg::Options& o) { o.check_every = 0; }, pg::Algorithm::pock_chambolle},
        {"eps_abs", NAN, [](pg::Options& o) { o.eps_abs = NAN; }, pg::Algorithm::pock_chambolle},
        {"eps_rel", -1e-4, [](pg::Options& o) { o.eps_rel = -1e-4; }, pg::Algorithm::ladmm},
        {"iterations_per_call", 17, [](pg::Options& o) { o.iterations_per_call = 17; }, pg::Algorithm::pock_chambolle},
    };
    const int compiled = pg::jit_stats().pipelines_compiled + pg::jit_stats().disk_loads;
    for (const auto& c : cases) {
        pg::Options opt;
        opt.algorithm = c.algorithm;
        c.set(opt);
        const std::string expected = "Options: " + pg::rules::option(c.option, c.value);
        INFO(c.option << " = " << c.value << " (" << pg::name(c.algorithm) << ")");
        REQUIRE_THAT(expected, StartsWith(std::string("Options: ") + c.option + " must be"));
        CHECK_THAT(error_of([&] { pg::check_options(opt); }), Equals(expected));
        CHECK_THAT(error_of([&] { pg::solve(typed, opt); }), Equals(expected));
        CHECK_THAT(error_of([&] { rt::solve(run, opt); }), Equals(expected));
    }
    CHECK(pg::jit_stats().pipelines_compiled + pg::jit_stats().disk_loads == compiled);
    CHECK_THAT(pg::rules::option("rho", 1e39), Contains("got 1e+39, which float32"));

    pg::Options opt;
    opt.x0 = pg::Image({12, 10});
    opt.x0(3, 2) = NAN;
    CHECK_THAT(error_of([&] { rt::solve(run, opt); }),
               StartsWith("Options: x0 holds a non-finite value, nan, at (x, y) = (3, 2)"));
}

TEST_CASE("weights and scale factors float32 cannot hold are refused with what was given and where", "[checks]") {
    auto x = pg::variable(8, 8);
    CHECK_THAT(error_of([&] { (void)(1e308 * pg::norm1(x)); }),
               Equals("scalar * penalty: a penalty's weight must be finite and non-negative, got 1e+308, which "
                      "float32 (ProxGen's arithmetic) cannot hold: its largest value is 3.4028235e+38"));
    const rt::Expr rx = rt::variable("x", {8, 8});
    CHECK_THAT(error_of([&] { (void)(rt::parameter("lambda", 1e39) * rt::norm1(rx)); }),
               Equals("scalar * penalty: parameter 'lambda': a penalty's weight must be finite and non-negative, got "
                      "1e+39, which float32 (ProxGen's arithmetic) cannot hold: its largest value is 3.4028235e+38"));
    rt::Problem p = rt::parameter("lambda", 0.1) * rt::norm1(rx) + rt::sum_squares(rx);
    CHECK_THAT(error_of([&] { p.set_parameter("lambda", -2); }),
               Equals("scalar * penalty: parameter 'lambda': a penalty's weight must be finite and non-negative, "
                      "got -2"));
    CHECK(p.parameter("lambda") == 0.1);  // refused: unchanged
    // factors that each fit multiply to more than float32 holds
    CHECK_THAT(error_of([&] { (void)(1e30 * (1e30 * rt::norm1(rx))); }),
               Contains("the weights of norm1 multiply to 1e+60, which float32"));
    // the typed front end says the same when the product is formed, not as "inf" at solve time
    CHECK(error_of([&] { (void)(1e30f * (1e30f * pg::norm1(x))); }) == error_of([&] { (void)(1e30 * (1e30 * rt::norm1(rx))); }));
    CHECK_THAT(error_of([&] { (void)(1e30f * (1e30f * (pg::norm1(x) + pg::sum_squares(x)))); }),
               StartsWith("scalar * penalty: the weights of ") && Contains(" multiply to 1e+60"));
    CHECK_THAT(error_of([&] { (void)(1e39 * rx); }),
               Equals("scalar * expression: the scalar must be finite, got 1e+39, which float32 (ProxGen's "
                      "arithmetic) cannot hold: its largest value is 3.4028235e+38"));
}

TEST_CASE("non-finite data is named as the user wrote it, at coordinates, with the value as given", "[checks]") {
    pg::Image b = pg::test::random_image({16, 12}, 4, 0, 1);
    b(4, 11) = INFINITY;  // the rewrite rules would turn sum_squares(x - b) into an offset of -b: -inf
    const rt::Expr x = rt::variable("x", {16, 12});
    const rt::Problem run = rt::sum_squares(x - rt::input("b", b)) + rt::nonneg(x);
    const std::string named = "input 'b' holds a non-finite value, inf, at (x, y) = (4, 11)";
    CHECK_THAT(error_of([&] { rt::solve(run); }), StartsWith(named));
    CHECK_THAT(error_of([&] { rt::describe(run, pg::Algorithm::admm); }), StartsWith(named));
    CHECK_THAT(error_of([&] { rt::solve(run); }), Contains("replace NaN and Inf"));

    // anonymous data: the operator and its role (typed and run-time front ends alike)
    auto xt = pg::variable(16, 12);
    CHECK_THAT(error_of([&] { pg::solve(pg::sum_squares(xt - b)); }),
               StartsWith("the image of an offset (e + b or e - b) holds a non-finite value, inf, at (x, y) = (4, 11)"));
    pg::Image k = pg::test::random_image({3, 3}, 5, 0, 0.3f);
    k(1, 2) = NAN;
    const pg::Image clean = pg::test::random_image({16, 12}, 6, 0, 1);
    CHECK_THAT(error_of([&] { pg::solve(pg::sum_squares(pg::conv(k, xt) - clean)); }),
               StartsWith("conv: its kernel image holds a non-finite value, nan, at (x, y) = (1, 2)"));
    CHECK_THAT(error_of([&] { rt::solve(rt::sum_squares(rt::conv(k, x) - clean)); }),
               StartsWith("conv: its kernel image holds a non-finite value, nan, at (x, y) = (1, 2)"));
    // a weight image of a weighted penalty, named
    pg::Image w = pg::test::random_image({16, 12}, 7, 0.5f, 1);
    w(0, 3) = -INFINITY;
    CHECK_THAT(error_of([&] { rt::solve(rt::weighted_norm1(rt::input("w", w), x) + rt::sum_squares(x)); }),
               StartsWith("input 'w' holds a non-finite value, -inf, at (x, y) = (0, 3)"));
    // three axes: (x, y, c)
    pg::Image rgb = pg::test::random_image({6, 5, 3}, 8, 0, 1);
    rgb(2, 4, 1) = NAN;
    const rt::Expr xc = rt::variable("x", {6, 5, 3});
    CHECK_THAT(error_of([&] { rt::solve(rt::sum_squares(xc - rt::input("rgb", rgb))); }),
               StartsWith("input 'rgb' holds a non-finite value, nan, at (x, y, c) = (2, 4, 1)"));
}

TEST_CASE("a weighted penalty's weight of another shape is refused with one sentence in the typed and run-time forms alike",
          "[checks]") {
    namespace rt = pg::rt;
    const pg::Image b = pg::test::random_image({8, 6}, 1, 0.5f, 1), wrong = pg::test::random_image({6, 8}, 2, 0.5f, 1);
    const rt::Expr x = rt::variable("x", {8, 6});
    auto xt = pg::variable(8, 6);
    const std::string sentence = "the weight is 6x8 but the expected weight shape is 8x6";
    // every spelling through its card's weighted term: the same check, the same words
    CHECK_THAT(error_of([&] { pg::weighted_sum_squares(wrong, xt - b); }), Contains("weighted_sum_squares") && Contains(sentence));
    CHECK_THAT(error_of([&] { pg::weighted_norm1(wrong, xt); }), Contains("weighted_norm1") && Contains(sentence));
    CHECK_THAT(error_of([&] { pg::weighted_nonneg(wrong, xt); }), Contains("weighted_nonneg") && Contains(sentence));
    CHECK_THAT(error_of([&] { pg::weighted_poisson_norm(wrong, xt, b); }),
               Contains("weighted_poisson_norm") && Contains(sentence));
    CHECK(error_of([&] { pg::weighted_poisson_norm(wrong, xt, b); }) ==
          error_of([&] { rt::weighted_poisson_norm(wrong, x, b); }));
    CHECK(error_of([&] { pg::weighted_norm1(wrong, xt); }) == error_of([&] { rt::weighted_norm1(wrong, x); }));
}

TEST_CASE("an image larger than memory is an error naming the bytes asked for", "[checks][memory]") {
    // axes Halide cannot address (int32 strides) are refused whatever the memory
    CHECK_THROWS_AS(pg::Image({100000, 100000, 3}), pg::OutOfMemory);
    CHECK_THAT(error_of([] { pg::Image({100000, 100000, 3}); }), Contains("more than a Halide buffer addresses"));
    with_capped_address_space(std::size_t(256) << 20, [] {
        CHECK_THROWS_AS(pg::Image(100000, 100000), pg::OutOfMemory);
        CHECK_THAT(error_of([] { pg::Image(100000, 100000); }),
                   Equals("cannot allocate 40000000000 bytes (37.3 GiB) for a 100000x100000 float32 image: not "
                          "enough memory"));
        const pg::Image small({64, 64});
        CHECK(small(63, 63) == 0.0f);  // what fits is still allocated (and zeroed)
    });
}

TEST_CASE("a variable too large for memory is an error naming it and the bytes, never a crash", "[checks][memory]") {
    // the kernels of this structure are built (or loaded) at a small size first: compiling is not
    // what the capped address space should refuse
    const rt::Problem small = rt::sum_squares(rt::variable("frame", {16, 16}));
    REQUIRE(rt::solve(small).converged);
    const rt::Problem large = rt::sum_squares(rt::variable("frame", {20000, 20000}));  // 1.6 GB per copy
    with_capped_address_space(std::size_t(512) << 20, [&] {
        const std::string m = error_of([&] { rt::solve(large); });
        CHECK_THAT(m, StartsWith("solving for variable 'frame' (20000x20000, 1600000000 bytes per float32 copy): "
                                 "cannot allocate 1600000000 bytes (1.5 GiB)"));
        CHECK_THROWS_AS(rt::solve(large), pg::OutOfMemory);
    });
    CHECK(rt::solve(small).converged);  // and the process goes on
}

TEST_CASE("an unbounded problem is told apart from an infeasible one", "[checks][status]") {
    const rt::Expr x = rt::variable("x", {16, 16});
    const pg::Result r = rt::solve(rt::sum_entries(x));
    INFO(pg::name(r.status) << " after " << r.iterations << ": " << r.message);
    CHECK(r.status == pg::Status::unbounded);
    CHECK_FALSE(r.converged);
    CHECK(r.iterations < 500);
    CHECK_THAT(r.message, Contains("looks unbounded") && Contains("the objective fell from"));
    CHECK_THAT(r.message, !Contains("infeasible"));
    CHECK(std::string(pg::name(r.status)) == "unbounded");
}

TEST_CASE("a problem the x-update solves exactly stops after one iteration, converged", "[checks][status]") {
    const pg::Image b = pg::test::random_image({20, 16}, 9, 0, 1);
    const rt::Expr x = rt::variable("x", {20, 16});
    const rt::Problem p = rt::sum_squares(x - rt::input("b", b));
    for (pg::Algorithm a : {pg::Algorithm::hqs, pg::Algorithm::pock_chambolle, pg::Algorithm::admm, pg::Algorithm::ladmm}) {
        pg::Options opt;
        opt.algorithm = a;
        const pg::Result r = rt::solve(p, opt);
        INFO(pg::name(a) << ": " << pg::name(r.status) << " after " << r.iterations << ", residuals "
                         << r.primal_residual << " " << r.dual_residual);
        CHECK(r.status == pg::Status::converged);
        CHECK(r.iterations == 1);
        const pg::Image& xs = r["x"];
        double d2 = 0;
        for (std::size_t i = 0; i < b.size(); ++i) d2 += std::pow(double(xs.data()[i]) - b.data()[i], 2);
        CHECK(std::sqrt(d2) <= 1e-5 * pg::test::norm(b));
    }
}

TEST_CASE("a first solve times the objective's compilation as compilation, not as iterations", "[checks][status]") {
    // a structure no other test case of this process built. A first solve without the objective
    // builds the step kernels (side by side: their compile times overlap, so their sum exceeds the
    // wait); the second, with it, builds the objective's pipeline alone, whose time must be in the
    // solve's compile_seconds.
    const pg::Image b = pg::test::random_image({24, 20}, 10, 0, 1);
    const rt::Expr x = rt::variable("x", {24, 20});
    const rt::Problem p = rt::sum_squares(x - rt::input("b", b)) + 0.05 * rt::group_norm1(rt::grad(x, rt::GradBoundary::periodic));
    pg::Options opt;
    opt.max_iters = 20;
    rt::solve(p, opt);
    opt.track_objective = true;
    const pg::JitStats before = pg::jit_stats();
    const pg::Result r = rt::solve(p, opt);
    const pg::JitStats after = pg::jit_stats();
    const double built = (after.compile_seconds - before.compile_seconds) +
                         (after.disk_load_seconds - before.disk_load_seconds);
    REQUIRE(after.pipelines_compiled + after.disk_loads == before.pipelines_compiled + before.disk_loads + 1);
    REQUIRE(std::isfinite(r.history.back().objective));
    CHECK(r.compile_seconds >= built - 1e-4);
}

TEST_CASE("a run-time problem prints its inputs by the names it gave them", "[checks]") {
    const pg::Image k = pg::test::random_image({3, 3}, 11, 0, 0.3f), b = pg::test::random_image({16, 12}, 12, 0, 1);
    const rt::Expr x = rt::variable("x", {16, 12});
    const rt::Problem named = rt::sum_squares(rt::conv(rt::input("kernel", k), x) - rt::input("blurred", b));
    CHECK_THAT(named.to_string(), Contains("conv(kernel[3x3], x)") && Contains("blurred[16x12]"));
    // the plan's text stays the typed front end's (k, b, ...): describe reads alike for both
    auto xt = pg::variable(16, 12);
    CHECK(rt::describe(named) == pg::describe(pg::sum_squares(pg::conv(k, xt) - b)));
    // anonymous data keeps the letters
    CHECK_THAT(rt::sum_squares(rt::conv(k, x) - b).to_string(), Contains("conv(k[3x3], x)") && Contains("b[16x12]"));
}

TEST_CASE("a non-finite x is never a result, even where the residuals cannot see it", "[checks][status]") {
    // nothing split: the residuals of ADMM and L-ADMM are 0 whatever x is; steps of 1e30 on a weight
    // of 1e30 overflow the x-update (found by fuzz/fuzz_rt_options)
    const pg::Image b = pg::test::random_image({9, 7}, 13, 0, 1);
    const rt::Expr x = rt::variable("x", {9, 7});
    pg::Options opt;
    opt.algorithm = pg::Algorithm::ladmm;
    opt.lambda = opt.mu = 1e30;
    CHECK_THAT(error_of([&] { rt::solve(1e30 * rt::sum_squares(x - rt::input("b", b)), opt); }),
               StartsWith("ladmm: diverged at iteration 1: the x-update produced non-finite values"));
}
