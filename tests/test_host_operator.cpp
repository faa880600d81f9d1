// Host operators (rt::host_operator): linear operators given as host functions on whole images, run
// by the kernels as extern stages. A problem with one reaches the optimum of the same problem
// written with built-in operators, in every algorithm; the adjoint is checked at creation; a
// function's failure is the solve's error.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>

#include <proxgen/proxgen.hpp>
#include <proxgen/runtime_apply.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
namespace rt = pg::rt;

namespace {

/// out(x, y) = s·in(x − 1 mod W, y): a circular shift, the built-in conv with a shifted delta.
pg::Image shift(const pg::Image& in, float s, int by) {
    pg::Image out(in.sizes());
    const int w = in.width(), h = in.height();
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) out(x, y) = s * in(((x - by) % w + w) % w, y);
    return out;
}

rt::HostOperator shift_operator(int w, int h) {
    rt::HostOperator op;
    op.name = "shift";
    op.in_shape = op.out_shape = {w, h};
    op.forward = [](const pg::Image& in) { return shift(in, 2.0f, 1); };
    op.adjoint = [](const pg::Image& in) { return shift(in, 2.0f, -1); };
    return op;
}

/// A black box computing a built-in expression of another shape (2x2 box blur, then every second
/// sample) through the run-time API's evaluation: the same operator, run by the host.
rt::HostOperator through_builtin(const rt::Expr& e, const std::vector<int>& in_shape) {
    rt::HostOperator op;
    op.name = "box_down";
    op.in_shape = in_shape;
    op.out_shape = e.shape();
    op.forward = [e](const pg::Image& in) { return rt::apply_linear(e, {{"x", in}}); };
    op.adjoint = [e](const pg::Image& y) { return rt::apply_adjoint(e, y).at("x"); };
    return op;
}

double max_abs_diff(const pg::Image& a, const pg::Image& b) {
    double m = a.size() == b.size() ? 0.0 : INFINITY;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::max(m, double(std::abs(a.data()[i] - b.data()[i])));
    return m;
}

double relative_gap(double a, double b) { return std::abs(a - b) / std::max(1e-12, std::abs(b)); }

}  // namespace

TEST_CASE("host operator: reaches the built-in problem's optimum in every algorithm", "[host]") {
    const int w = 24, h = 20;
    const pg::Image b = pg::test::random_image({w, h}, 5);
    pg::Image delta({3, 3});  // a convolution centred at (1, 1): the tap at (2, 1) reads x − 1
    for (std::size_t i = 0; i < delta.size(); ++i) delta.data()[i] = 0;
    delta(2, 1) = 2.0f;
    const rt::Expr x = rt::variable("x", {w, h});
    const rt::Problem host = rt::sum_squares(rt::host_operator(shift_operator(w, h), x) - rt::input("b", b)) +
                             0.05 * rt::group_norm1(rt::grad(x));
    const rt::Problem builtin = rt::sum_squares(rt::conv(delta, x) - rt::input("b", b)) +
                                0.05 * rt::group_norm1(rt::grad(x));
    // the two operators agree
    const pg::Image probe = pg::test::random_image({w, h}, 6);
    CHECK(max_abs_diff(rt::apply_linear(rt::host_operator(shift_operator(w, h), x), {{"x", probe}}),
                       rt::apply_linear(rt::conv(delta, x), {{"x", probe}})) < 1e-6);
    for (pg::Algorithm a : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm,
                            pg::Algorithm::hqs}) {
        pg::Options opt;
        opt.algorithm = a;
        opt.max_iters = 3000;
        opt.eps_abs = opt.eps_rel = 1e-6;
        const pg::Result r = rt::solve(host, opt);
        pg::Options ref = opt;
        ref.algorithm = pg::Algorithm::pock_chambolle;
        ref.max_iters = 6000;
        const double optimum = rt::objective(builtin, rt::solve(builtin, ref));
        INFO(pg::name(a) << ": " << r.iterations << " iterations, " << r.message);
        CHECK(relative_gap(rt::objective(builtin, r), optimum) < (a == pg::Algorithm::hqs ? 1e-3 : 1e-4));
    }
}

TEST_CASE("host operator: an output of another shape, against the built-in blur and subsampling", "[host]") {
    const int w = 16, h = 12;
    pg::Image box({2, 2});
    for (std::size_t i = 0; i < box.size(); ++i) box.data()[i] = 0.25f;
    const rt::Expr x = rt::variable("x", {w, h});
    const rt::Expr builtin_down = rt::subsample(rt::conv(box, x, rt::ConvBoundary::zero), 2, 2);
    const rt::Expr down = rt::host_operator(through_builtin(builtin_down, {w, h}), x);
    CHECK(down.shape() == std::vector<int>{w / 2, h / 2});
    const pg::Image b = pg::test::random_image(down.shape(), 7);
    const rt::Problem host = rt::sum_squares(down - rt::input("b", b)) + 0.02 * rt::group_norm1(rt::grad(x));
    const rt::Problem builtin =
        rt::sum_squares(builtin_down - rt::input("b", b)) + 0.02 * rt::group_norm1(rt::grad(x));
    pg::Options opt;
    opt.max_iters = 4000;
    opt.eps_abs = opt.eps_rel = 1e-6;
    const pg::Result r = rt::solve(host, opt);
    pg::Options ref = opt;
    ref.max_iters = 8000;
    INFO(r.iterations << " iterations, " << r.message);
    CHECK(relative_gap(rt::objective(builtin, r), rt::objective(builtin, rt::solve(builtin, ref))) < 1e-4);
}

TEST_CASE("host operator: a wrong adjoint is refused at creation, by the dot-product test", "[host]") {
    rt::HostOperator op = shift_operator(8, 8);
    op.adjoint = [](const pg::Image& in) { return shift(in, 2.0f, 1); };  // the forward again
    const rt::Expr x = rt::variable("x", {8, 8});
    REQUIRE_THROWS_AS(rt::host_operator(op, x), pg::Error);
    REQUIRE_THROWS_WITH(rt::host_operator(op, x), Catch::Contains("dot-product test") && Catch::Contains("shift"));
}

TEST_CASE("host operator: bad definitions and shapes are clear errors", "[host]") {
    const rt::Expr x = rt::variable("x", {8, 6});
    rt::HostOperator op = shift_operator(8, 8);
    REQUIRE_THROWS_WITH(rt::host_operator(op, x), Catch::Contains("input shape") && Catch::Contains("applied to"));
    op = shift_operator(8, 6);
    op.adjoint = nullptr;
    REQUIRE_THROWS_WITH(rt::host_operator(op, x), Catch::Contains("adjoint"));
    op = shift_operator(8, 6);
    op.forward = [](const pg::Image&) { return pg::Image({3, 3}); };
    REQUIRE_THROWS_WITH(rt::host_operator(op, x), Catch::Contains("returned an image of shape"));
}

TEST_CASE("host operator: a function that throws during a solve fails that solve with its message", "[host]") {
    const int w = 10, h = 8;
    auto calls = std::make_shared<std::atomic<int>>(0);
    rt::HostOperator op = shift_operator(w, h);
    op.norm_bound = 2;  // no power iteration: the calls below are the solve's
    op.forward = [calls](const pg::Image& in) {
        if (++*calls > 3) throw std::runtime_error("the camera model is not loaded");
        return shift(in, 2.0f, 1);
    };
    const rt::Expr x = rt::variable("x", {w, h});
    const rt::Problem prob = rt::sum_squares(rt::host_operator(op, x) - rt::input("b", pg::test::random_image({w, h}, 9))) +
                             0.1 * rt::norm1(rt::grad(x));
    pg::Options opt;
    opt.algorithm = pg::Algorithm::ladmm;
    REQUIRE_THROWS_WITH(rt::solve(prob, opt),
                        Catch::Contains("the camera model is not loaded") && Catch::Contains("host operator 'shift'"));
    // and the process goes on: the same structure solves once the function works
    *calls = -1000000;
    CHECK(rt::solve(prob, opt).status != pg::Status::failed);
}

TEST_CASE("host diff_fn: prox of -sum log t against its closed form, and a problem against built-ins", "[host]") {
    // f(t) = −Σ log t: prox_{f/ρ}(v) = (v + √(v² + 4/ρ)) / 2, elementwise
    const int n = 7;
    const rt::Expr t = rt::variable("t", {n, 1});
    const rt::Problem neg_log = rt::host_diff_fn(
        t, "neg_log",
        [](const pg::Image& a) {
            double s = 0;
            for (std::size_t i = 0; i < a.size(); ++i) s -= std::log(double(a.data()[i]));
            return s;  // NaN outside the domain: the line search backtracks
        },
        [](const pg::Image& a) {
            pg::Image g(a.sizes());
            for (std::size_t i = 0; i < a.size(); ++i) g.data()[i] = -1.0f / a.data()[i];
            return g;
        });
    pg::Image v({n, 1});
    for (int i = 0; i < n; ++i) v.data()[i] = 2.0f * float(i) + 1.0f;
    const double rho = 2;
    const pg::Image z = rt::prox(neg_log, rho, v);
    for (int i = 0; i < n; ++i) {
        const double vi = v.data()[i];
        CHECK(z.data()[i] == Approx((vi + std::sqrt(vi * vi + 4 / rho)) / 2).epsilon(1e-5));
    }
    // ‖x‖² as a host function beside sum_squares(x − b): x = b / 2, in every algorithm
    const int w = 12, h = 9;
    const pg::Image b = pg::test::random_image({w, h}, 21);
    const rt::Expr x = rt::variable("x", {w, h});
    const rt::Problem prob = rt::sum_squares(x - rt::input("b", b)) +
                             rt::host_diff_fn(
                                 x, "energy",
                                 [](const pg::Image& a) {
                                     double s = 0;
                                     for (std::size_t i = 0; i < a.size(); ++i) s += double(a.data()[i]) * a.data()[i];
                                     return s;
                                 },
                                 [](const pg::Image& a) {
                                     pg::Image g(a.sizes());
                                     for (std::size_t i = 0; i < a.size(); ++i) g.data()[i] = 2 * a.data()[i];
                                     return g;
                                 });
    for (pg::Algorithm a : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm}) {
        pg::Options opt;
        opt.algorithm = a;
        opt.max_iters = 2000;
        opt.eps_abs = opt.eps_rel = 1e-7;
        const pg::Result r = rt::solve(prob, opt);
        double err = 0;
        for (std::size_t i = 0; i < b.size(); ++i) err = std::max(err, double(std::abs(r["x"].data()[i] - b.data()[i] / 2)));
        INFO(pg::name(a) << ": " << r.iterations << " iterations, " << r.message);
        CHECK(err < 1e-3);
        double optimum = 0;  // ‖b/2 − b‖² + ‖b/2‖² = ‖b‖²/2
        for (std::size_t i = 0; i < b.size(); ++i) optimum += 0.5 * double(b.data()[i]) * b.data()[i];
        CHECK(rt::objective(prob, r) == Approx(optimum).epsilon(1e-4));
    }
}
