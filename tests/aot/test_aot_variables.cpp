// Generated solvers of problems in several variables: each variable's extents at init, one output
// per variable, and the iterates of the JIT engine on the same (Halide-only) plan, same steps and
// iterations, for every variable; bad extents refused with a status and a sentence naming the
// variable.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <proxgen/aot/generator.hpp>
#include <proxgen/proxgen.hpp>

#include "coupled_deconv.h"
#include "layers.h"
#include "reference_problems.hpp"
#include "solver_test_support.hpp"
#include "two_sizes.h"
#include "variables_problems.hpp"

namespace pg = proxgen;
using Buffer = pg::aot_test::Buffer;
using Catch::Matchers::Contains;

namespace {

using pg::aot_test::fixed;
using pg::aot_test::negated;
using pg::aot_test::to_buffer;

/// The JIT engine on the plan a generated solver runs (aot::halide_only of the pock_chambolle
/// plan), exactly `iterations` iterations: each variable's value, in the problem's order.
template <class P>
std::vector<pg::Image> jit_values(const P& problem, int iterations) {
    const pg::ir::Problem plan = pg::aot::halide_only(
        pg::detail::plan_for<pg::Algorithm::pock_chambolle>(pg::detail::normalized(problem)));
    pg::Options opt;
    opt.max_iters = iterations;
    opt.eps_abs = opt.eps_rel = 0;
    return pg::ir::split_state(plan, pg::detail::solve_ir(plan, opt, nullptr).x);
}

/// Every variable of the generated solver equals the JIT's, within the one-variable tests'
/// tolerance (test_aot_solver.cpp), by index and by name.
template <class Solver, class Description>
void check_matches_jit(Solver& s, const std::vector<pg::Image>& jit) {
    REQUIRE(int(jit.size()) == Description::variable_count);
    for (int j = 0; j < Description::variable_count; ++j) {
        CAPTURE(Description::variable_names[j]);
        const Buffer& x = s.x(j);
        REQUIRE(std::vector<int>{x.dim(0).extent(), x.dim(1).extent()} == jit[j].sizes());
        double d2 = 0, n2 = 0;
        for (std::size_t i = 0; i < jit[j].size(); ++i) {
            const double diff = double(x.data()[i]) - jit[j].data()[i];
            d2 += diff * diff;
            n2 += double(jit[j].data()[i]) * jit[j].data()[i];
        }
        CHECK(n2 > 0);
        CHECK(std::sqrt(d2) <= 1e-5 * std::sqrt(n2));
        CHECK(s.variable(Description::variable_names[j]).data() == x.data());
    }
}

}  // namespace

TEST_CASE("variables: a layer split (x + y = b, TV on x, smooth y) runs the JIT's iterations for x and y") {
    const pg::Image b = pg::reference::make_denoise(48).b;
    const std::vector<pg::Image> jit = jit_values(layers_problem(b, 0.1f, 0.5f), 80);

    STATIC_REQUIRE(layers::Description::variable_count == 2);
    CHECK(std::string(layers::Description::variable_names[0]) == "x");
    CHECK(std::string(layers::Description::variable_names[1]) == "y");
    layers::Data d;  // the weights default to the generator's problem's, 0.1 and 0.5
    d.sum_squares_2_offset = negated(b);
    layers::Solver s;
    REQUIRE(layers_init_variables(s, {{48, 48}, {48, 48}}, d, fixed<layers::Options>(80)) == layers::Status::ok);
    REQUIRE(layers_solve(s) == layers::Status::ok);
    CHECK(layers_state(s).iterations == 80);
    check_matches_jit<layers::Solver, layers::Description>(s, jit);
}

TEST_CASE("variables: a coupled deconvolution (k * x + y = b) runs the JIT's iterations, x projected as pg::solve") {
    const auto deconv = pg::reference::make_deconv(40);
    const std::vector<pg::Image> jit = jit_values(coupled_deconv_problem(deconv.kernel, deconv.b, 0.01f, 2.0f), 60);

    coupled_deconv::Data d;
    d.sum_squares_2_kernel = to_buffer(deconv.kernel);
    d.sum_squares_2_offset = negated(deconv.b);
    coupled_deconv::Solver s;
    REQUIRE(coupled_deconv_init_variables(s, {{40, 40}, {40, 40}}, d, fixed<coupled_deconv::Options>(60)) ==
            coupled_deconv::Status::ok);
    REQUIRE(coupled_deconv_solve(s) == coupled_deconv::Status::ok);
    check_matches_jit<coupled_deconv::Solver, coupled_deconv::Description>(s, jit);
    const Buffer& x = s.x(0);
    float lowest = INFINITY;
    x.for_each_value([&](float v) { lowest = std::min(lowest, v); });
    CHECK(lowest >= 0.0f);  // nonneg(x) exactly, as pg::solve returns it
}

TEST_CASE("variables: two variables of different sizes, coupled through subsample, run the JIT's iterations") {
    const pg::Image b = pg::reference::make_denoise(32).b;
    pg::Image c({16, 16});
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) c(x, y) = b(2 * x, 2 * y) + 0.25f * float((x + 2 * y) % 5) / 4.0f;
    const std::vector<pg::Image> jit = jit_values(two_sizes_problem(b, c, 0.1f), 70);

    STATIC_REQUIRE(two_sizes::Description::variable_count == 2);
    two_sizes::Data d;
    d.sum_squares_offset = negated(b);
    d.sum_squares_3_offset = negated(c);
    two_sizes::Solver s;
    REQUIRE(two_sizes_init_variables(s, {{32, 32}, {16, 16}}, d, fixed<two_sizes::Options>(70)) ==
            two_sizes::Status::ok);
    REQUIRE(two_sizes_solve(s) == two_sizes::Status::ok);
    check_matches_jit<two_sizes::Solver, two_sizes::Description>(s, jit);
    CHECK(s.x(1).dim(0).extent() == 16);
}

TEST_CASE("variables: extents for the wrong variables are refused with a status naming the variable") {
    const pg::Image b = pg::reference::make_denoise(32).b;
    layers::Data d;
    d.sum_squares_2_offset = negated(b);
    layers::Solver s;

    // the one-variable interface on a problem in two
    CHECK(layers_init(s, {32, 32}, d) == layers::Status::invalid_argument);
    CHECK(std::string(s.last_error()) ==
          "layers: the problem has 2 variables (x, y): pass each one's extents to init_variables, in that order");
    CHECK(layers_step(s, 1) == layers::Status::not_initialized);

    // too few, too many
    CHECK(layers_init_variables(s, {{32, 32}}, d) == layers::Status::invalid_argument);
    CHECK(std::string(s.last_error()) == "layers: the problem has 2 variables (x, y), got extents for 1; missing: y");
    CHECK(layers_init_variables(s, {{32, 32}, {32, 32}, {32, 32}}, d) == layers::Status::invalid_argument);
    CHECK_THAT(std::string(s.last_error()), Contains("got extents for 3"));

    // a variable's rank, its extents, and the shape the coupling term needs
    CHECK(layers_init_variables(s, {{32, 32}, {32}}, d) == layers::Status::invalid_argument);
    CHECK(std::string(s.last_error()) == "layers: variable 'y' has rank 2, got 1 extents");
    CHECK(layers_init_variables(s, {{32, 32}, {32, 0}}, d) == layers::Status::invalid_argument);
    CHECK(std::string(s.last_error()) == "layers: variable 'y': extents must be >= 1, got 32x0");
    CHECK(layers_init_variables(s, {{32, 32}, {32, 31}}, d) == layers::Status::shape_mismatch);
    CHECK(std::string(s.last_error()) == "layers: +: the left operand is 32x32 but the right operand is 32x31");

    // outputs and starts by variable
    REQUIRE(layers_init_variables(s, {{32, 32}, {32, 32}}, d) == layers::Status::ok);
    CHECK(s.variable("z").data() == nullptr);
    CHECK(std::string(s.last_error()) == "layers: the problem has no variable 'z'; its variables are x, y");
    CHECK(s.x(2).data() == nullptr);
    CHECK_THAT(std::string(s.last_error()), Contains("x(2)"));
    CHECK(s.set_x0(Buffer(32, 32)) == layers::Status::invalid_argument);
    Buffer start(32, 32);
    start.fill(0.5f);
    CHECK(s.set_x0_variables({start, Buffer(32, 31)}) == layers::Status::shape_mismatch);
    CHECK_THAT(std::string(s.last_error()), Contains("x0 of 'y'"));
    REQUIRE(s.set_x0_variables({start, start}) == layers::Status::ok);
    CHECK(layers_step(s, 2) == layers::Status::ok);
    CHECK(layers_state(s).iterations == 2);
}
