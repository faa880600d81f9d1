// Run-time expressions and penalties as functions (proxgen/runtime_apply.hpp): K and Kᵀ by the
// dot-product test over several variables, the value with its constant, the prox against a closed
// form, the norm estimate against a known norm, and one compilation per structure.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include <proxgen/proxgen.hpp>
#include <proxgen/runtime_apply.hpp>
#include <proxgen/solve/jit_stats.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;
using pg::test::random_image;

namespace {
double dot(const pg::Image& a, const pg::Image& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += double(a.data()[i]) * b.data()[i];
    return s;
}
}  // namespace

TEST_CASE("apply_linear and apply_adjoint are adjoint over several variables", "[runtime][apply]") {
    rt::Expr x = rt::variable("x", {14, 11}), y = rt::variable("y", {14, 11, 2});
    const pg::Image k = random_image({3, 3}, 1, 0, 1), w = random_image({14, 11, 2}, 2);
    rt::Expr e = rt::grad(rt::conv(k, x, rt::ConvBoundary::zero)) + rt::mul_elemwise(w, y);
    const pg::Image xv = random_image({14, 11}, 3), yv = random_image({14, 11, 2}, 4), u = random_image({14, 11, 2}, 5);
    const pg::Image kx = rt::apply_linear(e, {{"x", xv}, {"y", yv}});
    const auto back = rt::apply_adjoint(e, u);
    REQUIRE(back.size() == 2);
    const double lhs = dot(kx, u), rhs = dot(xv, back.at("x")) + dot(yv, back.at("y"));
    CHECK(lhs == Approx(rhs).epsilon(1e-4));
    CHECK_THROWS_AS(rt::apply_linear(e, {{"x", xv}}), pg::Error);  // y has no value
}

TEST_CASE("evaluate adds the constant, and the prox is the card's", "[runtime][apply]") {
    rt::Expr x = rt::variable("x", {9, 7});
    const pg::Image b = random_image({9, 7}, 6), v = random_image({9, 7}, 7, -2, 2);
    const pg::Image value = rt::evaluate(2.0 * x - b, {{"x", v}});
    for (std::size_t i = 0; i < v.size(); ++i)
        CHECK(value.data()[i] == Approx(2 * v.data()[i] - b.data()[i]).margin(1e-6));
    // argmin 1.5 |2 z - b| + rho/2 (z - v)^2: z = (soft(2 v - b, 1.5 * 4 / rho) + b) / 2
    const double rho = 0.8;
    const pg::Image z = rt::prox(1.5 * rt::norm1(2.0 * x - b), rho, v);
    for (std::size_t i = 0; i < v.size(); ++i) {
        const double w = 2 * v.data()[i] - b.data()[i], t = 1.5 * 4 / rho;
        const double soft = std::copysign(std::max(std::abs(w) - t, 0.0), w);
        CHECK(z.data()[i] == Approx((soft + b.data()[i]) / 2).margin(1e-5));
    }
    CHECK_THROWS_AS(rt::prox(rt::norm1(rt::grad(x)), rho, v), pg::Error);  // not a scaled variable
    // through a transpose: Pᵀ prox(P v) of the card's; two constraints: their intersection
    pg::Image bt({7, 9});
    for (int i = 0; i < 9; ++i)
        for (int j = 0; j < 7; ++j) bt(j, i) = b(i, j);
    const pg::Image zt = rt::prox(rt::norm1(rt::transpose(x, {1, 0}) - bt), rho, v);
    for (std::size_t i = 0; i < v.size(); ++i) {
        const double w = v.data()[i] - b.data()[i];
        const double soft = std::copysign(std::max(std::abs(w) - 1 / rho, 0.0), w);
        CHECK(zt.data()[i] == Approx(soft + b.data()[i]).margin(1e-5));
    }
    const pg::Image zb = rt::prox(rt::nonneg(x) + rt::box(x, -0.5, 0.25), rho, v);
    for (std::size_t i = 0; i < v.size(); ++i)
        CHECK(zb.data()[i] == Approx(std::clamp(v.data()[i], 0.0f, 0.25f)).margin(1e-6));
}

TEST_CASE("norm estimate and one compilation per structure", "[runtime][apply][jit]") {
    rt::Expr x = rt::variable("x", {16, 16});
    const pg::Image k = random_image({5, 5}, 8, 0, 1);
    double sum = 0;
    for (std::size_t i = 0; i < k.size(); ++i) sum += k.data()[i];
    // a non-negative kernel's circular convolution has norm sum(k) (its transfer function at 0)
    const double est = rt::norm_estimate(rt::conv(k, x));
    CHECK(est >= sum * (1 - 1e-4));
    CHECK(est <= sum * 1.01);
    CHECK(rt::norm_bound(rt::conv(k, x)) >= sum * (1 - 1e-6));
    CHECK(rt::operator_facts(rt::conv(k, x)).fft_diagonal);
    CHECK_FALSE(rt::operator_facts(rt::conv(k, x)).diagonal);

    rt::Expr small = rt::variable("s", {8, 6});
    rt::apply_linear(rt::grad(small), {{"s", random_image({8, 6}, 9)}});
    auto obtained = [] { return pg::jit_stats().pipelines_compiled + pg::jit_stats().disk_loads; };
    const int before = obtained();
    rt::Expr other = rt::variable("t", {20, 13});  // other sizes and name, same structure
    rt::apply_linear(rt::grad(other), {{"t", random_image({20, 13}, 10)}});
    CHECK(obtained() == before);
}

TEST_CASE("a chain of reshapes and transposes runs on this CPU", "[runtime][apply][jit]") {
    // its flat-index arithmetic vectorizes into VNNI dot products: the JIT target must only hold
    // instructions the CPU has (jit::host_target; this died of SIGILL on AMD Zen 4)
    rt::Expr u = rt::variable("u", {5, 6, 6});
    rt::Expr e =
        rt::reshape(rt::transpose(rt::reshape(rt::transpose(u, {2, 0, 1}), {2, 3, 5, 6}), {2, 3, 1, 0}), {5, 6, 6});
    const pg::Image x = random_image({5, 6, 6}, 11), y = random_image({5, 6, 6}, 12);
    const pg::Image kx = rt::apply_linear(e, {{"u", x}});
    const pg::Image kty = rt::apply_adjoint(e, y).at("u");
    CHECK(dot(kx, y) == Approx(dot(x, kty)).epsilon(1e-5));
    CHECK(dot(kx, kx) == Approx(dot(x, x)).epsilon(1e-5));  // it only moves elements
}
