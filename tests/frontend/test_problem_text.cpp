// The text form (proxgen/frontend/problem_file.hpp): the same problem as the run-time API builds
// (text, plan and iterates), declarations, parameters and inputs that stay named, comments and
// continued lines, every catalogue entry by name, shape inference, and errors with line:column.
#include <catch2/catch.hpp>

#include <proxgen/frontend/problem_file.hpp>
#include <proxgen/proxgen.hpp>

#include "../test_support.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;
namespace fe = proxgen::frontend;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using pg::test::random_image;

namespace {

fe::Bindings deblur_data() {
    fe::Bindings d;
    d.inputs["b"] = random_image({24, 20}, 1, 0, 1);
    d.inputs["k"] = random_image({5, 5}, 2, 0, 0.2f);
    return d;
}

rt::Problem deblur_by_api(const fe::Bindings& d, double lambda) {
    rt::Expr x = rt::variable("x", {24, 20});
    return rt::sum_squares(rt::conv(rt::input("k", d.inputs.at("k")), x) - rt::input("b", d.inputs.at("b"))) +
           rt::parameter("lambda", lambda) * rt::group_norm1(rt::grad(x)) + rt::nonneg(x);
}

/// The ProblemError a text gives (fails the test when it builds, or throws anything else).
fe::ProblemError text_error(const std::string& text, const fe::Bindings& d = deblur_data()) {
    try {
        fe::parse_text(text, d);
    } catch (const fe::ProblemError& e) {
        return e;
    }
    FAIL("no error for: " << text);
    throw;
}

bool same_image(const pg::Image& a, const pg::Image& b) {
    return a.sizes() == b.sizes() && std::equal(a.data(), a.data() + a.size(), b.data());
}

}  // namespace

TEST_CASE("text: the DSL's syntax builds the problem the run-time API builds", "[frontend][text]") {
    const fe::Bindings d = deblur_data();
    const auto loaded = fe::parse_text("lambda = 0.002\n"
                                       "sum_squares(conv(k, x) - b) + lambda * group_norm1(grad(x)) + nonneg(x)\n",
                                       d);
    const rt::Problem api = deblur_by_api(d, 0.002);
    CHECK(loaded.problem.to_string() == api.to_string());
    for (pg::Algorithm a : {pg::Algorithm::admm, pg::Algorithm::ladmm, pg::Algorithm::pock_chambolle, pg::Algorithm::hqs})
        CHECK(rt::describe(loaded.problem, a) == rt::describe(api, a));
    REQUIRE(loaded.problem.variables().size() == 1);
    CHECK(loaded.problem.variables()[0].name == "x");
    CHECK(loaded.problem.variables()[0].shape == std::vector<int>{24, 20});  // inferred from b
    CHECK(loaded.problem.inputs() == std::vector<std::string>{"b", "k"});
    CHECK(loaded.problem.parameters() == std::vector<std::string>{"lambda"});
    CHECK(loaded.unused_inputs.empty());

    const pg::Options opt = pg::test::fixed_iterations(pg::Algorithm::pock_chambolle, 25);
    const pg::Result from_text = rt::solve(loaded.problem, opt), from_api = rt::solve(api, opt);
    CHECK(same_image(from_text["x"], from_api["x"]));  // bitwise: the same problem
}

TEST_CASE("text: C++ spellings, comments, continued lines, declarations", "[frontend][text]") {
    const fe::Bindings d = deblur_data();
    const std::string reference = deblur_by_api(d, 0.002).to_string();
    // copied from C++
    CHECK(fe::parse_text("auto x = pg::variable(24, 20);\n"
                         "pg::sum_squares(pg::conv(k, x) - b) + 0.002f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);",
                         d)
              .problem.to_string() == reference);
    // several lines: an operator at the end or the start of a line continues it; brackets too
    const auto multi = fe::parse_text("# TV deblurring\n"
                                      "x = variable(24, 20)   # the unknown image\n"
                                      "\n"
                                      "sum_squares(conv(k,\n"
                                      "                 x) - b) +\n"
                                      "  0.002 * group_norm1(grad(x))\n"
                                      "  + nonneg(x)\n",
                                      d);
    CHECK(multi.problem.to_string() == reference);
    // several objective lines add up; a named sub-expression is used by name
    CHECK(fe::parse_text("r = conv(k, x) - b\nsum_squares(r)\n0.002 * group_norm1(grad(x))\nnonneg(x)", d)
              .problem.to_string() == reference);
    // colour: a declared 3-channel variable, shape (w, h, c)
    fe::Bindings colour;
    colour.inputs["b"] = random_image({16, 12, 3}, 3, 0, 1);
    const auto c = fe::parse_text("x = variable(16, 12, 3)\nsum_squares(x - b) + 0.1 * group_norm1(grad(x))", colour);
    CHECK(c.problem.variables()[0].shape == std::vector<int>{16, 12, 3});
    // x = variable() leaves the shape to the data, like an undeclared variable
    CHECK(fe::parse_text("x = variable()\nsum_squares(x - b)", colour).problem.variables()[0].shape ==
          std::vector<int>{16, 12, 3});
    // the shape may come from the bindings instead
    fe::Bindings given = d;
    given.variables["x"] = {24, 20};
    CHECK(fe::parse_text("norm1(grad(x)) + sum_squares(conv(k, x) - b)", given).problem.variables()[0].shape ==
          std::vector<int>{24, 20});
}

TEST_CASE("text: arithmetic of scalars, parameters, expressions and penalties", "[frontend][text]") {
    const fe::Bindings d = deblur_data();
    rt::Expr x = rt::variable("x", {24, 20});
    const rt::Data b = rt::input("b", d.inputs.at("b"));
    auto same = [&](const std::string& text, const rt::Problem& api) {
        INFO(text);
        CHECK(fe::parse_text(text, d).problem.to_string() == api.to_string());
    };
    same("sum_squares(2 * x - b)", rt::sum_squares(2.0 * x - b));
    same("sum_squares(x / 4 - b)", rt::sum_squares(0.25 * x - b));
    same("sum_squares(-x + b)", rt::sum_squares(-x + b));
    same("sum_squares(b - x)", rt::sum_squares(b - x));
    same("0.5 * 0.1 * sum_squares(x - b)", 0.05 * rt::sum_squares(x - b));
    same("(sum_squares(x - b) + norm1(x)) * 3", 3.0 * (rt::sum_squares(x - b) + rt::norm1(x)));
}

TEST_CASE("text: parameters and inputs stay named: set_parameter and set_input edit the loaded problem",
          "[frontend][text]") {
    fe::Bindings d = deblur_data();
    const std::string text = "mu = 0.1\nsum_squares(conv(k, x) - b) + 2 * mu * group_norm1(grad(x)) + nonneg(x)";
    fe::LoadedProblem loaded = fe::parse_text(text, d);
    CHECK(loaded.problem.parameter("mu") == 0.1);
    CHECK(loaded.problem.to_string() == deblur_by_api(d, 0.2).to_string());
    // a value in the bindings replaces the file's default
    d.parameters["mu"] = 0.25;
    CHECK(fe::parse_text(text, d).problem.to_string() == deblur_by_api(d, 0.5).to_string());
    // a parameter that only the bindings name
    CHECK(fe::parse_text("sum_squares(conv(k, x) - b) + 2 * mu * group_norm1(grad(x)) + nonneg(x)", d)
              .problem.parameter("mu") == 0.25);
    // edits: the same as a problem built with the new values
    loaded.problem.set_parameter("mu", 0.05);
    const pg::Image b2 = random_image({24, 20}, 9, 0, 1);
    loaded.problem.set_input("b", b2);
    fe::Bindings d2 = deblur_data();
    d2.inputs["b"] = b2;
    CHECK(rt::describe(loaded.problem) == rt::describe(deblur_by_api(d2, 0.1)));
    // bindings the text does not use are reported, not an error
    d.inputs["unused"] = random_image({3, 3}, 4);
    d.parameters["nu"] = 1;
    const auto with_extra = fe::parse_text(text, d);
    CHECK(with_extra.unused_inputs == std::vector<std::string>{"unused"});
    CHECK(with_extra.unused_parameters == std::vector<std::string>{"nu"});
}

TEST_CASE("text: every operator and penalty of the catalogue works by name", "[frontend][text]") {
    fe::Bindings d;
    const std::vector<int> plane{24, 20};
    d.inputs["b"] = random_image(plane, 1, 0, 1);
    d.inputs["w"] = random_image(plane, 2, 0.5f, 1);
    d.inputs["k"] = random_image({5, 5}, 3, 0, 0.2f);
    d.inputs["counts"] = random_image(plane, 4, 0, 5);
    d.inputs["mask"] = random_image(plane, 5, 0, 1);
    d.inputs["M"] = random_image({3, 3}, 6, 0, 1);
    d.inputs["A"] = random_image({16, 12, 2, 3}, 7, 0, 1);
    pg::Image H({3, 3}), ix({6, 5}), iy({6, 5});
    H(0, 0) = H(1, 1) = H(2, 2) = 1;
    H(2, 0) = 1.5f;  // a shift by 1.5 pixels
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 6; ++x) ix(x, y) = float(3 * x), iy(x, y) = float(3 * y);
    d.inputs["H"] = H;
    d.inputs["ix"] = ix;
    d.inputs["iy"] = iy;
    const std::string x = "x = variable(24, 20)\nc = variable(16, 12, 3)\n";
    // name -> a problem that uses it (operators under sum_squares); both variables, so all lines
    // mention x and c
    const std::map<std::string, std::string> uses{
        {"conv", "sum_squares(conv(k, x) + conv(k, x, \"zero\"))"},
        {"conv_nofft", "sum_squares(conv_nofft(k, x))"},
        {"grad", "sum_squares(grad(x) + grad(x, [0, 1], \"periodic\"))"},
        {"mul_elemwise", "sum_squares(mul_elemwise(w, x))"},
        {"subsample", "sum_squares(subsample(x, 2, 3))"},
        {"uneven_subsample", "sum_squares(uneven_subsample(x, ix, iy))"},
        {"warp", "sum_squares(warp(x, H) + warp(x, H, 24, 20))"},
        {"crop", "sum_squares(crop(x, 2, 3, 10, 8))"},
        {"pad", "sum_squares(pad(x, 1, 2, 3, 4))"},
        {"transpose", "sum_squares(transpose(x, [1, 0]))"},
        {"reshape", "sum_squares(reshape(x, [20, 24]))"},
        {"merge_last_axes", "sum_squares(merge_last_axes(grad(c)))"},
        {"concat", "sum_squares(concat(x, x, 0))"},
        {"vstack", "sum_squares(vstack(x, x, x))"},
        {"hstack", "sum_squares(hstack(x, x))"},
        {"mul_color", "sum_squares(mul_color(c, M))"},
        {"pxwise_matmul", "sum_squares(pxwise_matmul(A, c))"},
        {"haar", "norm1(haar(x, 2))"},
        {"schatten", "schatten(grad(c), 1) + schatten(grad(x), \"inf\")"},
        {"add", "sum_squares(add(x, b))"},
        {"subtract", "sum_squares(subtract(x, b))"},
        {"negate", "sum_squares(negate(x))"},
        {"scale", "sum_squares(scale(2, x))"},
        {"sum_squares", "sum_squares(x - b)"},
        {"least_squares", "least_squares(x - b)"},
        {"norm1", "norm1(x)"},
        {"group_norm1", "group_norm1(grad(x))"},
        {"nonneg", "nonneg(x)"},
        {"sum_entries", "sum_entries(x)"},
        {"patch_nlm", "patch_nlm(x)"},
        {"poisson_norm", "poisson_norm(x, counts)"},
        {"masked_nonneg", "masked_nonneg(x, mask)"},
        {"box", "box(x, 0, 1)"},
        {"huber", "huber(x, 0.5)"},
        {"weighted_sum_squares", "weighted_sum_squares(w, x)"},
        {"weighted_norm1", "weighted_norm1(w, x)"},
        {"weighted_nonneg", "weighted_nonneg(w, x)"},
        {"weighted_group_norm1", "weighted_group_norm1(w, grad(x))"},
        {"weighted_poisson_norm", "weighted_poisson_norm(w, x, counts)"}};
    for (const rt::Signature& s : rt::catalogue()) {
        INFO(s.name);
        if (s.name == "user_operator" || s.name == "diff_fn") {  // Halide code: a clear error by name
            const auto e = text_error(x + "sum_squares(c) + " + (s.name == "diff_fn" ? "diff_fn(x)" : "sum_squares(user_operator(x))"), d);
            CHECK_THAT(e.what(), Contains("Halide code"));
            continue;
        }
        auto use = uses.find(s.name);
        REQUIRE(use != uses.end());  // a new catalogue entry needs a line here
        const bool colour = s.name == "merge_last_axes" || s.name == "mul_color" || s.name == "pxwise_matmul";
        const std::string text = x + (colour ? "sum_squares(x) + " : "sum_squares(c) + ") + use->second;
        INFO(text);
        fe::LoadedProblem p;
        REQUIRE_NOTHROW(p = fe::parse_text(text, d));
        CHECK_THAT(p.problem.to_string(), Contains(s.penalty && s.name != "least_squares" ? s.name : std::string("sum_squares")));
        CHECK(p.problem.variables().size() == 2);
    }
}

TEST_CASE("text: shape inference through shape-keeping operators, not through size-fixing ones",
          "[frontend][text]") {
    fe::Bindings d = deblur_data();
    auto shape = [&](const std::string& text) { return fe::parse_text(text, d).problem.variables()[0].shape; };
    const std::vector<int> b_shape{24, 20};
    CHECK(shape("sum_squares(x - b)") == b_shape);
    CHECK(shape("norm1(grad(x)) + sum_squares(conv(k, 2 * x) - b)") == b_shape);  // found in a later term
    CHECK(shape("sum_squares(mul_elemwise(b, x) - b)") == b_shape);               // the weight pins the size
    d.inputs["counts"] = random_image(b_shape, 5, 0, 4);
    CHECK(shape("poisson_norm(conv(k, x), counts)") == b_shape);  // a penalty's data image
    // crop(x, ...) - b and subsample(x, ...) - b leave x's size open: declare it
    for (const char* open : {"sum_squares(crop(x, 0, 0, 24, 20) - b)", "sum_squares(subsample(x, 2, 2) - b)"}) {
        const auto e = text_error(open, d);
        CHECK_THAT(e.what(), Contains("the shape of variable 'x' cannot be inferred"));
        CHECK_THAT(e.what(), Contains("x = variable(width, height)"));
    }
    CHECK(fe::parse_text("x = variable(48, 40)\nsum_squares(subsample(x, 2, 2) - b)", d).problem.variables()[0].shape ==
          std::vector<int>{48, 40});
}

TEST_CASE("text: errors name the line and column and what was expected", "[frontend][text][errors]") {
    struct Case {
        const char* text;
        const char* message;  // the whole message, position included
    };
    const std::vector<Case> cases{
        {"norm1(conv(k, x x))", "1:17: expected ')' after the arguments of conv, got 'x'"},
        {"sum_squares(conv(k, x) - b", "1:27: expected ')' after the arguments of sum_squares, got the end of the text (the '(' at 1:12 is not closed)"},
        {"sum_squares(x - b) nonneg(x)",
         "1:20: expected an operator (+ - * /) or the end of the line after the statement, got 'nonneg'"},
        {"sum_squares(x - b) + ", "1:22: expected an expression after '+', got the end of the text"},
        {"sum_squares(x - b) + norm1([1, 2)", "1:33: expected ',' or ']' to close the list opened at 1:28, got ')'"},
        {"x = variable(24 20)\nsum_squares(x - b)",
         "1:17: expected ')' after the sizes of variable 'x' (variable(width, height[, channels])), got '20'"},
        {"sum_squares(x - b) + $", "1:22: unexpected character '$'"},
        {"sum_squares(x - b) + norm1(x, \"zero)", "1:31: unterminated word: a closing '\"' is missing on this line"},
        {"sum_squares(x - b) + 1e999 * norm1(x)", "1:22: number out of range: 1e999"},
        {"\n\nsum_squares(conv2(k, x) - b)",
         "3:13: unknown operator or penalty 'conv2'; did you mean 'conv'? (docs/operators.md lists them)"},
        {"x = variable(24, 20)\nsum_squares(conv(k, x, 1, 2) - b)",
         "2:13: conv: too many arguments (4, and argument 3 is a number); conv takes conv(kernel, e[, boundary])"},
        {"sum_squares(conv(x, k) - b)",  // swapped: found while inferring x's shape
         "1:13: conv: argument 'kernel' must be an image, got an expression; conv takes conv(kernel, e[, boundary]) "
         "(with 'x' taken as 24x20, the shape of the data it meets at 1:26; if that is not its shape, declare it on a "
         "line before the objective: x = variable(width, height))"},
        {"x = variable(24, 20)\nsum_squares(x - b) + norm1(grad(y))",
         "2:33: unknown name 'y' (inputs given: b, k; parameters: none; variables: x)"},
        {"sum_squares(x - bb)",
         "1:13: unknown names 'x' (1:13), 'bb' (1:17): when the text declares no variable, one name alone is taken "
         "as the problem's variable; give the others as inputs or parameters (inputs given: b, k; parameters: none; "
         "variables: none), or declare the variables on lines of their own: x = variable(width, height)"},
        // an unquoted word where an operator takes one: blamed alone, x stays the variable
        {"sum_squares(x - b) + 0.1 * schatten(grad(x), inf)",
         "1:46: unknown name 'inf' as schatten's argument 'p', which takes a word: a word is written in quotes, "
         "\"inf\" (inputs given: b, k; parameters: none; variables: none)"},
        {"sum_squares(x - b)\n+ group_norm1(x)",
         "2:3: group_norm1 groups over the last axis, so its argument needs a group axis (rank >= 3), e.g. "
         "group_norm1(grad(x))"},
        {"x = variable(24, 20)\nx = variable(24, 20)\nsum_squares(x - b)", "2:1: 'x' is already defined at 1:1"},
        {"sum_squares(x - b) + mu * norm1(x)\nmu = 0.1",
         "2:1: 'mu' is used at 1:22 before this definition; define names on lines before the lines that use them"},
        {"x = variable(24, 20)\ny = variable(24, 20)\nsum_squares(x - b)",
         "2:1: variable 'y' is declared but no objective line uses it"},
        {"sum_squares(x - b) - norm1(x)", "1:20: penalties are added, not subtracted (a negative penalty is not convex)"},
        {"sum_squares(x - b) + -0.5 * norm1(x)",
         "1:27: scalar * penalty: a penalty's weight must be finite and non-negative, got -0.5"},
        {"sum_squares(k - b)", "1:15: cannot subtract two images: one side must be an expression of a variable"},
        {"sum_squares(x - b)\nconv(k, x)",
         "2:1: the objective is a sum of penalties, but this is an expression (a penalty of it, e.g. sum_squares(...), "
         "is a term)"},
        {"x = variable(24, 20)\nsum_squares(x * x - b)",
         "2:15: cannot multiply an expression by an expression: one side of a product is a number or a parameter (an "
         "image weights an expression with mul_elemwise(w, e))"},
        {"sum_squares(x - b) + norm1(sum_squares(x))",
         "1:28: a penalty cannot be an argument of norm1 (penalties are the terms of the objective)"},
        {"# nothing but a comment\n", "2:1: the problem has no objective: write a sum of penalties, e.g. sum_squares(x - b)"},
    };
    for (const Case& c : cases) {
        INFO(c.text);
        CHECK(std::string(text_error(c.text).what()) == c.message);
    }
    // the position as fields too
    const auto e = text_error("sum_squares(x - b)\n  + norm1(conv2(k, x))");
    CHECK(e.line() == 2);
    CHECK(e.column() == 11);
    // a rank error from the run-time API's checks, with the position
    CHECK(std::string(text_error("x = variable(24, 20, 3, 2)\nsum_squares(x)").what()) ==
          "1:1: a variable is 2-D (width, height) or 3-D (width, height, channels)");
    // load_problem_file names the file
    CHECK_THROWS_WITH(fe::load_problem_file("/nonexistent/problem.txt"), Contains("cannot read the problem file"));
}

TEST_CASE("text: a problem in two variables of different shapes iterates bitwise as the run-time one",
          "[frontend][text][variables]") {
    fe::Bindings d;
    d.inputs["b"] = random_image({24, 20}, 3, 0, 1);
    d.inputs["c"] = random_image({12, 10}, 4, 0, 1);
    const auto loaded = fe::parse_text("x = variable(24, 20)\n"
                                       "lo = variable(12, 10)\n"
                                       "sum_squares(x - b) + 0.1 * group_norm1(grad(x)) + sum_squares(subsample(x, 2, 2) - lo)\n"
                                       "  + 0.5 * sum_squares(lo - c) + nonneg(lo)\n",
                                       d);
    rt::Expr x = rt::variable("x", {24, 20}), lo = rt::variable("lo", {12, 10});
    const rt::Problem api = rt::sum_squares(x - rt::input("b", d.inputs.at("b"))) + 0.1 * rt::group_norm1(rt::grad(x)) +
                            rt::sum_squares(rt::subsample(x, 2, 2) - lo) +
                            0.5 * rt::sum_squares(lo - rt::input("c", d.inputs.at("c"))) + rt::nonneg(lo);
    REQUIRE(loaded.problem.variables().size() == 2);
    CHECK(rt::describe(loaded.problem) == rt::describe(api));
    for (pg::Algorithm a : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm}) {
        const pg::Options opt = pg::test::fixed_iterations(a, 25);
        const pg::Result r1 = rt::solve(loaded.problem, opt), r2 = rt::solve(api, opt);
        CHECK(same_image(r1["x"], r2["x"]));
        CHECK(same_image(r1["lo"], r2["lo"]));
    }
}
