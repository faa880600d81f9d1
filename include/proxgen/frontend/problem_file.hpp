// Problem files: a problem written as text in the DSL's own syntax, or as a JSON node graph (what a
// node editor saves), turned into a run-time problem (proxgen/runtime.hpp) that describes, solves
// and generates like a typed one. The syntax and the schema, with examples: docs/problem-files.md.
//
//   namespace pg = proxgen;
//   pg::frontend::Bindings data;
//   data.inputs["b"] = pg::load_image("blurred.png");
//   data.inputs["k"] = pg::load_image("kernel.npy");
//   auto loaded = pg::frontend::parse_text(
//       "sum_squares(conv(k, x) - b) + lambda * group_norm1(grad(x)) + nonneg(x)\n"
//       "lambda = 0.002   # a named parameter: set_parameter(\"lambda\", ...) changes it later",
//       data);
//   pg::Result r = pg::rt::solve(loaded.problem, opt);   // r["x"]: x's shape came from b
//
// Names are bound when the file is built: an identifier is a name the text defines (a variable,
// a parameter, a sub-expression), an input or a parameter of the Bindings, or — when the text
// declares no variable — the one remaining name is the problem's variable. Inputs become named
// inputs and parameters named parameters of the run-time problem, so Problem::set_input and
// Problem::set_parameter change them later without recompiling anything.
//
// Errors are ProblemErrors (proxgen/frontend/problem_error.hpp): syntax, unknown names, wrong
// argument counts and kinds, shapes and ranks (the run-time API's checks and sentences), each
// prefixed with the line and column or the JSON node and field.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "proxgen/frontend/problem_error.hpp"
#include "proxgen/image.hpp"
#include "proxgen/runtime.hpp"

namespace proxgen::frontend {

/// What a problem file refers to by name.
struct Bindings {
    /// Data images: kernels, observations, weights, masks, counts.
    std::map<std::string, Image> inputs;
    /// Scalar parameters; a value here also replaces the default of a parameter the file defines.
    std::map<std::string, double> parameters;
    /// Shapes ({width, height[, channels]}) for variables the file leaves undeclared or declares
    /// without a shape; a name here is a variable.
    std::map<std::string, std::vector<int>> variables;
};

/// A built problem file.
struct LoadedProblem {
    rt::Problem problem;
    /// Bindings the file does not use (a front end may warn or refuse: a misspelt name).
    std::vector<std::string> unused_inputs, unused_parameters;
};

/// A problem in the text syntax (docs/problem-files.md): definitions (`x = variable(64, 64)`,
/// `lambda = 0.002`, `r = conv(k, x) - b`) and objective lines (sums of penalties; all objective
/// lines are added), `#` comments.
LoadedProblem parse_text(std::string_view text, const Bindings& bindings = {});

/// A problem as a JSON node graph (docs/problem-files.md): {"nodes": [...], "objective": [...]}.
LoadedProblem parse_json(std::string_view json, const Bindings& bindings = {});

/// Reads a problem file: JSON when the name ends in .json, text otherwise. The file's errors name
/// the file: "deblur.txt:3:17: ...".
LoadedProblem load_problem_file(const std::string& path, const Bindings& bindings = {});

/// A linear or affine expression in the text syntax (definitions, then one expression line), for
/// tools that evaluate operators: `conv(k, x)`. Its variables come from bindings.variables.
rt::Expr parse_expression(std::string_view text, const Bindings& bindings);

/// K x: the linear expression e (no constant part) at x, the value of its one variable. For
/// making synthetic data (`proxgen apply`): JIT-compiles a small pipeline per call.
Image apply_linear(const rt::Expr& e, const Image& x);

}  // namespace proxgen::frontend
