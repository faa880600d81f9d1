// What a node of the front ends' graph evaluates to while it is built, and the arithmetic of the
// problem language on those values: the text's + - * / and the JSON graph's add, subtract,
// negate, scale and weights. Errors are plain proxgen::Errors; the builder prefixes the node.
#pragma once

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "proxgen/runtime.hpp"

namespace proxgen::frontend {

/// A scalar: a number times named parameters (2 * lambda). Parameters stay named so that
/// Problem::set_parameter changes them later.
struct Scalar {
    double number = 1;
    std::vector<std::string> parameters;
    bool plain() const { return parameters.empty(); }
};

using Value = std::variant<rt::Expr, rt::Data, Scalar, std::vector<int>, std::string, rt::Problem>;

/// The parameters' values by name.
using ParameterValues = std::map<std::string, double>;

/// "an expression", "an image", "a number", "a parameter", "a list of integers", "a word", "a penalty".
const char* value_name(const Value& v);
/// An expression's or an image's shape; empty for the other values.
std::vector<int> shape_of(const Value& v);
/// The scalar's value (named parameters read now).
double value_of(const Scalar& s, const ParameterValues& parameters);

/// a + b (plus) or a - b: expressions and images (offsets), penalties (added only), numbers.
Value add(const Value& a, const Value& b, bool plus);
Value negate(const Value& v);
/// One side a number or a parameter: a scaled expression, a weighted penalty, or a scalar.
Value multiply(const Value& a, const Value& b, const ParameterValues& parameters);
/// The divisor a number.
Value divide(const Value& a, const Value& b, const ParameterValues& parameters);

}  // namespace proxgen::frontend
