// The run-time API (proxgen/runtime.hpp): data replaced without recompiling and warm starts across
// edits, results by variable name, the typed front end's sentences for the same mistakes (as
// proxgen::Error, labelled with a node id when the caller gives one), several variables (built,
// not solved yet), the by-name catalogue, and problems as values shared between threads.
#include <catch2/catch.hpp>

#include <thread>

#include <proxgen/ir/ir.hpp>
#include <proxgen/proxgen.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using pg::test::random_image;

TEST_CASE("changing a weight and an image re-solves without recompiling, warm-started", "[runtime][jit]") {
    const pg::Image b = random_image({24, 20}, 1, 0, 1), k = random_image({3, 3}, 2, 0, 0.3f);
    rt::Expr x = rt::variable("x", {24, 20});
    rt::Problem prob = rt::sum_squares(rt::conv(rt::input("k", k), x) - rt::input("b", b)) +
                       rt::parameter("lambda", 0.05) * rt::group_norm1(rt::grad(x)) + rt::nonneg(x);
    const pg::Options opt = pg::test::fixed_iterations(pg::Algorithm::pock_chambolle, 20);
    const pg::Result first = rt::solve(prob, opt);
    // kernels compiled, or loaded from the on-disk cache of an earlier run
    auto obtained = [] { return pg::jit_stats().pipelines_compiled + pg::jit_stats().disk_loads; };
    const int compiled = obtained();
    const std::string signature = first.signature;

    prob.set_parameter("lambda", 0.2);
    prob.set_input("b", random_image({24, 20}, 3, 0, 1));
    prob.set_input("k", random_image({3, 3}, 4, 0, 0.3f));
    CHECK(prob.parameter("lambda") == 0.2);
    const pg::Result again = rt::solve(prob, opt, first);
    CHECK(obtained() == compiled);
    CHECK(again.compile_seconds == 0.0);
    CHECK(again.signature == signature);
    CHECK(again.iterations == 20);

    // the edit is the same problem as one built with the new data from the start ...
    rt::Problem rebuilt = rt::sum_squares(rt::conv(prob.input("k"), x) - prob.input("b")) +
                          0.2 * rt::group_norm1(rt::grad(x)) + rt::nonneg(x);
    CHECK(rt::describe(rebuilt) == rt::describe(prob));
    CHECK(rt::objective(rebuilt, again) == rt::objective(prob, again));
    // ... and the warm start went on from `first`, not from zero
    const pg::Result cold = rt::solve(prob, opt);
    CHECK(rt::objective(prob, again) != rt::objective(prob, cold));

    // an edit makes a new value: a copy taken before it keeps its data
    rt::Problem before = prob;
    prob.set_parameter("lambda", 0.5);
    CHECK(before.parameter("lambda") == 0.2);
    CHECK(rt::describe(before) != rt::describe(prob));
}

TEST_CASE("results by variable name, problem introspection", "[runtime]") {
    const pg::Image b = random_image({16, 12}, 5, 0, 1);
    rt::Expr x = rt::variable("img", {16, 12});
    const rt::Problem prob = rt::sum_squares(x - b) + 0.1 * rt::norm1(rt::grad(x));
    CHECK(prob.size() == 2);
    REQUIRE(prob.variables().size() == 1);
    CHECK(prob.variables()[0].name == "img");
    CHECK(prob.variables()[0].shape == std::vector<int>{16, 12});
    CHECK_THAT(rt::describe(prob), Contains("sum_squares(img + c[16x12])") && Contains("grad(img)"));
    CHECK_THAT(x.to_string(), Equals("img"));
    CHECK(rt::grad(x).shape() == std::vector<int>{16, 12, 2});
    const pg::Result r = rt::solve(prob, pg::test::fixed_iterations(pg::Algorithm::ladmm, 5));
    CHECK(r["img"].sizes() == std::vector<int>{16, 12});
    CHECK(r[x].data() == r["img"].data());
    CHECK_THROWS_WITH(r["y"], Contains("no variable named 'y'"));
    CHECK_THROWS_WITH(r[rt::grad(x)], Contains("not a variable"));
    CHECK_THROWS_WITH(prob.input("b"), Contains("no input named 'b'"));
}

TEST_CASE("a planned problem describes, solves and evaluates without planning again", "[runtime][plan]") {
    const pg::Image b = random_image({16, 12}, 7, 0, 1);
    const rt::Expr x = rt::variable("x", {16, 12});
    const rt::Problem prob = rt::sum_squares(x - rt::input("b", b)) + 0.1 * rt::group_norm1(rt::grad(x)) + rt::nonneg(x);
    for (pg::Algorithm a : {pg::Algorithm::admm, pg::Algorithm::pock_chambolle}) {
        INFO(pg::name(a));
        const std::size_t before = rt::detail::plans_made();
        const rt::Plan plan = rt::plan(prob, a);
        CHECK(rt::detail::plans_made() - before == 1);
        CHECK(plan.algorithm() == a);

        // The plan decides the algorithm: opt.algorithm names another one and is not read.
        pg::Options opt = pg::test::fixed_iterations(a == pg::Algorithm::admm ? pg::Algorithm::ladmm : pg::Algorithm::admm, 6);
        opt.check_every = 3;
        opt.track_objective = true;
        const std::size_t planned = rt::detail::plans_made();
        const std::string text = rt::describe(plan);
        const pg::Result r = rt::solve(plan, opt);
        const pg::Result warm = rt::solve(plan, opt, r);
        const double f = rt::objective(plan, r), fx = rt::objective(plan, r["x"]);
        CHECK(rt::detail::plans_made() == planned);
        CHECK(r.algorithm == a);
        CHECK(r.iterations == 6);
        CHECK(warm.iterations == 6);

        // ... and everything equals the same calls on the problem, which plan each time.
        pg::Options same = opt;
        same.algorithm = a;
        CHECK(text == rt::describe(prob, a));
        const pg::Result expected = rt::solve(prob, same);
        CHECK(rt::detail::plans_made() > planned);
        CHECK(r.signature == expected.signature);
        REQUIRE(r["x"].size() == expected["x"].size());
        CHECK(std::equal(r["x"].data(), r["x"].data() + r["x"].size(), expected["x"].data()));
        CHECK(f == fx);
        CHECK(f == Approx(rt::objective(prob, expected)).epsilon(1e-12));

        // an ir::Problem is still what code written before Plan existed receives
        const pg::ir::Problem copy = rt::plan(prob, a);
        CHECK(copy.algorithm == a);
        CHECK(copy.psi.size() == plan.ir().psi.size());
    }
}

TEST_CASE("run-time nodes give the typed front end's sentences", "[runtime][errors]") {
    rt::Expr x = rt::variable("x", {8, 6});
    const pg::Image b({8, 6}), k({3, 3});
    // the typed DSL's static_asserts, here proxgen::Errors
    CHECK_THROWS_WITH(rt::variable("v", {8}), Equals(PROXGEN_MSG_VARIABLE_RANK));
    CHECK_THROWS_WITH(x + rt::grad(x), Equals(PROXGEN_MSG_SUM_SAME_RANK));
    CHECK_THROWS_WITH(rt::grad(rt::grad(rt::grad(x))), Equals(PROXGEN_MSG_GRAD_MAX_RANK));
    CHECK_THROWS_WITH(rt::grad(x, {0, 2}), Equals(PROXGEN_MSG_GRAD_AXES));
    CHECK_THROWS_WITH(rt::grad(x, {0, 0}), Equals(PROXGEN_MSG_GRAD_AXES));
    CHECK_THROWS_WITH(rt::reshape(x, {1, 1, 1, 6, 8}), Equals(PROXGEN_MSG_RESHAPE_RANK));
    CHECK_THROWS_WITH(rt::merge_last_axes(x), Equals(PROXGEN_MSG_MERGE_LAST_AXES_RANK));
    CHECK_THROWS_WITH(rt::concat(x, rt::grad(x), 0), Equals(PROXGEN_MSG_CONCAT_SAME_RANK));
    CHECK_THROWS_WITH(rt::mul_color(x, pg::color::opponent()), Equals(PROXGEN_MSG_MUL_COLOR_RANK));
    CHECK_THROWS_WITH(rt::pxwise_matmul(pg::Image({8, 6, 2, 1}), x), Equals(PROXGEN_MSG_PXWISE_MATMUL_RANK));
    CHECK_THROWS_WITH(rt::group_norm1(x), Equals(PROXGEN_MSG_GROUP_NORM1_NEEDS_GROUP_AXIS));
    CHECK_THROWS_WITH(rt::weighted_group_norm1(b, x), Equals(PROXGEN_MSG_WEIGHTED_GROUP_NORM1_NEEDS_GROUP_AXIS));
    CHECK_THROWS_WITH(rt::patch_nlm(rt::grad(rt::variable("v", {8, 6, 3}))), Equals(PROXGEN_MSG_PATCH_NLM_RANK));
    CHECK_THROWS_WITH(rt::sum_squares(rt::Expr()), Contains(PROXGEN_MSG_TAKES_EXPRESSION("sum_squares")));
    CHECK_THROWS_WITH(rt::call("norm1", {rt::Data(b)}), Equals(PROXGEN_MSG_TAKES_EXPRESSION("norm1")));
    CHECK_THROWS_WITH(rt::call("weighted_norm1", {rt::Data(b), rt::Data(b)}), Equals(PROXGEN_MSG_WEIGHTED_TAKES_EXPRESSION));
    CHECK_THROWS_WITH(rt::call("conv", {rt::Data(k), x, std::string("mirror")}), Contains(PROXGEN_MSG_CONV_BOUNDARY));
    CHECK_THROWS_WITH(rt::call("grad", {x, std::string("mirror")}), Contains(PROXGEN_MSG_GRAD_BOUNDARY));
    CHECK_THROWS_WITH(rt::solve(rt::Problem()), Equals(PROXGEN_MSG_NO_TERMS));
    pg::Options admm;
    admm.algorithm = pg::Algorithm::admm;
    CHECK_THROWS_WITH(rt::solve(rt::group_norm1(rt::grad(x)), admm), Equals(std::string("admm: ") + PROXGEN_MSG_SINGULAR_X_UPDATE));

    // the shared run-time checks: the same text as the typed DSL's
    auto tx = pg::variable(8, 6);
    auto same = [](auto typed, auto run) {
        std::string t, r;
        try { typed(); } catch (const pg::Error& e) { t = e.what(); }
        try { run(); } catch (const pg::Error& e) { r = e.what(); }
        CHECK(!t.empty());
        CHECK(t == r);
    };
    same([&] { pg::conv(pg::Image({9, 9}), tx); }, [&] { rt::conv(pg::Image({9, 9}), x); });
    same([&] { pg::conv(pg::Image(), tx); }, [&] { rt::conv(pg::Image(), x); });
    same([&] { (void)(tx - pg::Image({7, 6})); }, [&] { (void)(x - pg::Image({7, 6})); });
    same([&] { pg::mul_elemwise(pg::Image({8, 5}), tx); }, [&] { rt::mul_elemwise(pg::Image({8, 5}), x); });
    same([&] { pg::subsample(tx, 0, 1); }, [&] { rt::subsample(x, 0, 1); });
    same([&] { pg::crop(tx, 5, 0, 4, 2); }, [&] { rt::crop(x, 5, 0, 4, 2); });
    same([&] { pg::transpose(tx, {0, 0}); }, [&] { rt::transpose(x, {0, 0}); });
    same([&] { (void)(-1.0f * pg::sum_squares(tx)); }, [&] { (void)(-1.0 * rt::sum_squares(x)); });
    same([&] { pg::box(tx, 1.0f, 0.0f); }, [&] { rt::box(x, 1.0, 0.0); });
    same([&] { pg::huber(tx, 0.0f); }, [&] { rt::huber(x, 0.0); });
    pg::Image negative({8, 6});
    negative(2, 3) = -1;
    same([&] { pg::poisson_norm(tx, negative); }, [&] { rt::poisson_norm(x, negative); });
    same([&] { pg::weighted_norm1(pg::Image({8, 5}), tx); }, [&] { rt::weighted_norm1(pg::Image({8, 5}), x); });
    same([&] { pg::warp(tx, pg::Image({3, 3})); }, [&] { rt::warp(x, pg::Image({3, 3})); });
    same([&] { pg::uneven_subsample(tx, pg::Image({2, 2}), pg::Image({2, 3})); },
         [&] { rt::uneven_subsample(x, pg::Image({2, 2}), pg::Image({2, 3})); });
}

TEST_CASE("a caller's node label names the node in its errors", "[runtime][errors]") {
    rt::Expr x = rt::variable("x", {8, 6});
    CHECK_THROWS_WITH(rt::labelled("blur", [&] { return rt::conv(pg::Image({9, 9}), x); }),
                      Equals("node 'blur': conv: the kernel is 9x9 but its operand is only 8x6"));
    CHECK_THROWS_WITH(rt::labelled("tv", [&] { return rt::group_norm1(x); }),
                      Equals(std::string("node 'tv': ") + PROXGEN_MSG_GROUP_NORM1_NEEDS_GROUP_AXIS));
    const rt::Expr g = rt::labelled("g", [&] { return rt::grad(x); });
    CHECK(g.label() == "g");
    CHECK(g.shape() == std::vector<int>{8, 6, 2});
}

TEST_CASE("names: one variable one shape, one input one image, one parameter one value", "[runtime][errors]") {
    rt::Expr x = rt::variable("x", {8, 6});
    const pg::Image b = random_image({8, 6}, 9);
    CHECK_THROWS_WITH(x + rt::variable("x", {8, 7}), Contains("variable 'x'") && Contains("8x6") && Contains("8x7"));
    CHECK_THROWS_WITH((x - rt::input("b", b)) + (x - rt::input("b", b.copy())), Contains("input 'b' names two different images"));
    CHECK_THROWS_WITH(rt::parameter("a", 1) * x + rt::parameter("a", 2) * x, Contains("parameter 'a' has two values"));
    CHECK_THROWS_WITH(x - rt::input("x", b), Contains("'x' names both a variable and an input"));
    CHECK_THROWS_AS(rt::parameter("", 1), pg::Error);
    rt::Problem prob = rt::sum_squares(x - rt::input("b", b)) + rt::parameter("w", 0.5) * rt::norm1(x) +
                       rt::poisson_norm(x, rt::input("c", pg::Image({8, 6})));
    CHECK_THROWS_WITH(prob.set_input("b", pg::Image({4, 4})), Contains("'b' is 8x6") && Contains("4x4"));
    CHECK_THROWS_WITH(prob.set_input("nope", b), Contains("no input named 'nope'") && Contains("b, c"));
    CHECK_THROWS_WITH(prob.set_parameter("w", -1), Contains("finite and non-negative"));
    pg::Image negative({8, 6});
    negative(1, 1) = -1;
    CHECK_THROWS_WITH(prob.set_input("c", negative), Contains("counts must be finite and >= 0"));
    CHECK(prob.inputs() == std::vector<std::string>{"b", "c"});
    CHECK(prob.parameters() == std::vector<std::string>{"w"});
}

TEST_CASE("several variables: built and carried by the IR", "[runtime][variables]") {
    rt::Expr x = rt::variable("x", {8, 6}), y = rt::variable("y", {8, 6});
    const pg::Image b = random_image({8, 6}, 10);
    const rt::Problem prob = rt::sum_squares(x - y) + rt::sum_squares(x - b) + rt::norm1(rt::grad(y));
    REQUIRE(prob.variables().size() == 2);
    CHECK(prob.variables()[1].name == "y");
    CHECK((x - y).variables() == std::vector<std::string>{"x", "y"});
    CHECK_THAT(rt::describe(prob), Contains("2 variables: x 8x6, y 8x6"));
    // the IR of the normalized terms keeps each node's variable
    pg::plan::Draft d{{{"x", {8, 6}}, {"y", {8, 6}}}, {}};
    pg::ir::Term t;
    namespace ops = pg::catalogue::ops;
    t = pg::catalogue::term<pg::catalogue::penalties::sum_squares>(
        ops::sum::make(ops::variable::make(0, "x", {8, 6}), ops::scale::make(ops::variable::make(1, "y", {8, 6}), -1)));
    d.terms.push_back(t);
    const auto n = pg::plan::normalize(d.terms);
    CHECK(n[0].expr.args[0].variable == 0);
    CHECK(n[0].expr.args[1].args[0].variable == 1);
    CHECK(pg::plan::linear_facts(n[0].expr).diagonal);
    // a declared variable that no term uses is an error naming it
    rt::Problem one = rt::sum_squares(x - b);
    one.declare(rt::variable("z", {8, 6}));
    CHECK_THROWS_WITH(rt::solve(one), Equals("variable 'z' appears in no term of the problem"));
    CHECK_THROWS_WITH(one.declare(rt::grad(x)), Contains("not a variable"));
}

TEST_CASE("the by-name catalogue builds what the functions build", "[runtime]") {
    rt::Expr x = rt::variable("x", {8, 6});
    const pg::Image b = random_image({8, 6}, 11), k = random_image({3, 3}, 12);
    auto expr = [](const rt::Value& v) { return std::get<rt::Expr>(v); };
    auto problem = [](const rt::Value& v) { return std::get<rt::Problem>(v); };
    const rt::Problem by_name = problem(rt::call("sum_squares", {expr(rt::call("subtract", {expr(rt::call("conv", {rt::Data(k), x, std::string("zero")})), rt::Data(b)}))}));
    CHECK(rt::describe(by_name) == rt::describe(rt::sum_squares(rt::conv(k, x, pg::zero_boundary) - b)));
    CHECK(expr(rt::call("grad", {x, std::vector<int>{0}, std::string("periodic")})).to_string() ==
          rt::grad(x, {0}, rt::GradBoundary::periodic).to_string());
    CHECK(expr(rt::call("vstack", {x, x, x})).shape() == std::vector<int>{8, 18});
    CHECK(expr(rt::call("subsample", {x, 2.0, 2.0})).shape() == std::vector<int>{4, 3});
    CHECK_THROWS_WITH(rt::call("subsample", {x, 2.5, 2.0}), Contains("'step_x' must be an integer"));
    CHECK_THROWS_WITH(rt::call("blur", {x}), Contains("unknown operator or penalty 'blur'"));
    CHECK_THROWS_WITH(rt::call("conv", {x}), Contains("argument 'kernel' must be an image") && Contains("conv(kernel, e[, boundary])"));
    CHECK_THROWS_WITH(rt::call("crop", {x, 1.0, 1.0}), Contains("missing argument 'width'"));
    CHECK_THROWS_WITH(rt::call("nonneg", {x, x}), Contains("too many arguments"));
    CHECK_THROWS_WITH(rt::call("add", {rt::Data(b), rt::Data(b)}), Contains("both operands are images"));
    CHECK_THROWS_WITH(rt::call("uneven_subsample", {x, rt::input("ix", b), rt::Data(b)}), Contains("fixed when the node is built"));
    CHECK_THROWS_WITH(rt::call("user_operator", {x}), Contains("Halide code") && Contains("proxgen/user_operator.hpp"));
    CHECK_THROWS_WITH(rt::call("diff_fn", {x}), Contains("Halide code") && Contains("proxgen/diff_fn.hpp"));
    // every entry's text names its parameters
    int penalties = 0;
    for (const auto& s : rt::catalogue()) {
        CHECK(s.text().find(s.name + "(") == 0);
        penalties += s.penalty;
    }
    CHECK(penalties == 18);
}

TEST_CASE("problems are values: built and planned from several threads", "[runtime]") {
    const pg::Image b = random_image({16, 12}, 13, 0, 1);
    const rt::Expr x = rt::variable("x", {16, 12});
    const rt::Problem shared = rt::sum_squares(x - rt::input("b", b)) + rt::parameter("l", 0.1) * rt::group_norm1(rt::grad(x));
    std::vector<std::string> texts(4);
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i)
        threads.emplace_back([&, i] {
            rt::Problem mine = shared;  // each thread edits its own copy
            mine.set_parameter("l", 0.1 * (i + 1));
            texts[i] = rt::describe(mine, pg::Algorithm::admm);
        });
    for (auto& t : threads) t.join();
    CHECK(shared.parameter("l") == 0.1);
    CHECK(texts[0] == rt::describe(shared, pg::Algorithm::admm));
    CHECK(texts[1] != texts[0]);
}
