// diff_fn (proxgen/diff_fn.hpp): its prox satisfies the optimality condition
// ρ(v − z) = α a f'(a z + c) once its gradient steps have converged, is the identity at α = 0, and
// a problem with it solves to a lower objective than its starting point.
#include <catch2/catch.hpp>

#include <proxgen/diff_fn.hpp>
#include <proxgen/lower/evaluate.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
using pg::test::random_image;

namespace {
// pseudo-Huber: f(u) = √(1 + u²) − 1, f'(u) = u/√(1 + u²), f'' ≤ 1
Halide::Expr pseudo_huber(Halide::Expr u) { return Halide::sqrt(1.0f + u * u) - 1.0f; }
double pseudo_huber_prime(double u) { return u / std::sqrt(1 + u * u); }
}  // namespace

TEST_CASE("diff_fn prox: ρ(v − z) = α a f'(a z + c) after its gradient steps", "[prox]") {
    auto x = pg::variable(12, 9);
    // 20 steps: with τL ≤ 0.5 each contracts the error by ≥ 3, far below the tolerance (the
    // pipeline's compile time grows faster than linearly with the steps)
    const auto term = pg::diff_fn(x, pseudo_huber, 1.0, 20, "pseudo_huber");
    struct Case { float alpha, rho; bool offset, scaled; };
    for (const Case cs : {Case{0.5f, 1.0f, false, false}, Case{0.5f, 2.0f, true, true}}) {
        INFO("alpha " << cs.alpha << " rho " << cs.rho);
        const pg::Image v = random_image({12, 9}, 1, -3.0f, 3.0f);
        pg::lower::ProxData d;
        d.code = term.arg.fn;
        if (cs.offset) d.c = random_image({12, 9}, 2);
        if (cs.scaled) d.a = random_image({12, 9}, 3, 0.5f, 1.5f);
        const pg::Image z = pg::lower::apply_prox(pg::catalogue::card<pg::catalogue::penalties::diff_fn>(), cs.alpha, cs.rho, v, d);
        for (std::size_t i = 0; i < z.size(); ++i) {
            const double a = d.a.empty() ? 1.0 : d.a.data()[i];
            const double t = a * z.data()[i] + (d.c.empty() ? 0.0 : d.c.data()[i]);
            const double r = cs.rho * (double(v.data()[i]) - z.data()[i]);
            CHECK(std::abs(r - cs.alpha * a * pseudo_huber_prime(t)) <= 1e-4 * (1 + std::abs(r)));
        }
    }
    pg::lower::ProxData d;
    d.code = term.arg.fn;
    const pg::Image v = random_image({12, 9}, 4);
    const pg::Image same = pg::lower::apply_prox(pg::catalogue::card<pg::catalogue::penalties::diff_fn>(), 0.0f, 1.0f, v, d);
    for (std::size_t i = 0; i < v.size(); ++i) CHECK(same.data()[i] == v.data()[i]);
    CHECK_THROWS_WITH(pg::diff_fn(x, pseudo_huber, 0.0), Catch::Contains("Lipschitz"));
}

TEST_CASE("a problem with diff_fn solves and its objective counts f", "[prox]") {
    const pg::Image b = random_image({20, 14}, 5, 0.0f, 1.0f);
    auto x = pg::variable(20, 14);
    auto prob = pg::sum_squares(x - b) + 0.2f * pg::diff_fn(pg::grad(x), pseudo_huber, 1.0, 10);
    pg::Options opt;
    opt.max_iters = 300;
    const pg::Result r = pg::solve(prob, opt);
    const double f_start = pg::objective(prob, b), f_end = pg::objective(prob, r);
    INFO("objective at b " << f_start << ", at the solution " << f_end);
    CHECK(f_start > 0);        // b is not constant: the smooth TV of b counts
    CHECK(f_end < f_start);    // and the solver lowers it
    CHECK(std::isfinite(f_end));
}
