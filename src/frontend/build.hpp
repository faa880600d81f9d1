// From the front ends' graph (graph.hpp) to a run-time problem (proxgen/runtime.hpp): names bound
// to inputs, parameters and variables, variables' shapes inferred, every operator and penalty
// built by name through the run-time API's catalogue (rt::call), whose checks and sentences come
// back prefixed with the node's position or id.
//
// Shape inference. A variable declared without a shape (or the text's undeclared variable) gets
// its shape where an expression of it meets data of a fixed shape: at a sum or difference whose
// other side is an image or an expression of known shape (`conv(k, x) - b`), or at a penalty with
// a data image (`poisson_norm(conv(k, x), counts)`). The candidate shape is the other side's (the
// image's); it is accepted when the expression of x, built with it, has that shape — so shape-
// keeping operators (conv, mul_elemwise, scale, sums) pass a shape through and the parser needs
// to know nothing about them. Sites are tried in the order they were written, again after every
// variable found; a variable no site fixes is an error asking for a declaration.
#pragma once

#include <string>
#include <vector>

#include "graph.hpp"
#include "proxgen/frontend/problem_file.hpp"

namespace proxgen::frontend {

enum class Goal {
    problem,    ///< the objective entries are penalties: their sum is the problem
    expression  ///< the one objective entry is an expression (parse_expression)
};

struct Built {
    rt::Problem problem;
    rt::Expr expression;
    std::vector<std::string> unused_inputs, unused_parameters;
};

Built build(const Graph& g, const Bindings& bindings, Goal goal);

}  // namespace proxgen::frontend
