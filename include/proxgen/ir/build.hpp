// How each operator is written as an IR node: one factory per node kind, used by the typed front
// end (lower/to_ir.hpp) and the run-time one (src/runtime) alike, so a node means the same thing
// whichever front end made it. Shapes and data are checked before (dsl/checks.hpp).
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "proxgen/ir/ir.hpp"

namespace proxgen::ir::make {

inline Node unary(Op op, std::vector<int> shape, Node arg) {
    Node n;
    n.op = op;
    n.shape = std::move(shape);
    n.args.push_back(std::move(arg));
    return n;
}

inline Node binary(Op op, std::vector<int> shape, Node a, Node b) {
    Node n;
    n.op = op;
    n.shape = std::move(shape);
    n.args.push_back(std::move(a));
    n.args.push_back(std::move(b));
    return n;
}

/// An operator whose data is one image (a kernel, a weight, a matrix).
inline Node unary_with_image(Op op, std::vector<int> shape, Node arg, Image image) {
    Node n = unary(op, std::move(shape), std::move(arg));
    n.image = std::move(image);
    return n;
}

/// Variable `index` of the problem (ir::Problem::variables), named `name`.
inline Node variable(int index, std::string name, std::vector<int> shape) {
    Node n;
    n.op = Op::variable;
    n.shape = std::move(shape);
    n.variable = index;
    n.name = std::move(name);
    return n;
}

inline Node conv(Node arg, Image kernel, ConvBoundary boundary, std::vector<int> shape) {
    Node n = unary_with_image(Op::conv, std::move(shape), std::move(arg), std::move(kernel));
    n.boundary = boundary;
    return n;
}

/// grad along `axes` (x and y, {0, 1}, are the default and stay implicit: empty ints).
inline Node grad(Node arg, const std::vector<int>& axes, bool periodic, std::vector<int> shape) {
    Node n = unary(Op::grad, std::move(shape), std::move(arg));
    n.periodic = periodic;
    if (axes != std::vector<int>{0, 1}) n.ints = axes;
    return n;
}

inline Node mul_elemwise(Node arg, Image weight, std::vector<int> shape) {
    return unary_with_image(Op::mul_elemwise, std::move(shape), std::move(arg), std::move(weight));
}

inline Node scale(Node arg, float factor, std::vector<int> shape) {
    Node n = unary(Op::scale, std::move(shape), std::move(arg));
    n.scalar = factor;
    return n;
}

inline Node sum(Node a, Node b, std::vector<int> shape) { return binary(Op::sum, std::move(shape), std::move(a), std::move(b)); }

/// e ± b is sum(e, scale(±1, constant b)): the sign stays a bound scalar, not structure
/// (plan::is_offset recognizes it).
inline Node offset(Node arg, Image b, float sign, std::vector<int> shape) {
    Node c;
    c.op = Op::constant;
    c.shape = shape;
    c.image = std::move(b);
    Node signed_c = scale(std::move(c), sign, shape);
    return sum(std::move(arg), std::move(signed_c), std::move(shape));
}

inline Node subsample(Node arg, int step_x, int step_y, std::vector<int> shape) {
    Node n = unary(Op::subsample, std::move(shape), std::move(arg));
    n.step_x = step_x;
    n.step_y = step_y;
    return n;
}

inline Node crop(Node arg, int x0, int y0, std::vector<int> shape) {
    Node n = unary(Op::crop, std::move(shape), std::move(arg));
    n.ints = {x0, y0, n.shape[0], n.shape[1]};
    return n;
}

/// in: the operand's shape (the right and bottom margins follow from it).
inline Node pad(Node arg, int left, int top, const std::vector<int>& in, std::vector<int> shape) {
    Node n = unary(Op::pad, std::move(shape), std::move(arg));
    n.ints = {left, top, n.shape[0] - in[0] - left, n.shape[1] - in[1] - top};
    return n;
}

inline Node transpose(Node arg, std::vector<int> perm, std::vector<int> shape) {
    Node n = unary(Op::transpose, std::move(shape), std::move(arg));
    n.ints = std::move(perm);
    return n;
}

/// The target shape is structure: the pipeline's index arithmetic uses it.
inline Node reshape(Node arg, std::vector<int> shape) {
    Node n = unary(Op::reshape, shape, std::move(arg));
    n.ints = std::move(shape);
    return n;
}

inline Node concat(Node a, Node b, int axis, std::vector<int> shape) {
    Node n = binary(Op::concat, std::move(shape), std::move(a), std::move(b));
    n.ints = {axis};
    return n;
}

/// index: the packed index images; multiplicity: the most reads of one input pixel.
inline Node uneven_subsample(Node arg, Image index, int multiplicity, std::vector<int> shape) {
    Node n = unary_with_image(Op::uneven_subsample, std::move(shape), std::move(arg), std::move(index));
    n.norm_factor = std::sqrt(double(multiplicity));
    return n;
}

/// homography: H, H⁻¹ and the gather window packed (check::warp); in: the operand's shape.
inline Node warp(Node arg, Image homography, double norm, const std::vector<int>& in, std::vector<int> shape) {
    Node n = unary_with_image(Op::warp, std::move(shape), std::move(arg), std::move(homography));
    n.norm_factor = norm;
    // the adjoint's gather window, then the output size when it is not the input's
    n.ints = {int(n.image(0, 0, 2)), int(n.image(1, 0, 2))};
    if (n.shape[0] != in[0] || n.shape[1] != in[1]) n.ints.insert(n.ints.end(), {n.shape[0], n.shape[1]});
    return n;
}

inline Node mul_color(Node arg, Image matrix, std::vector<int> shape) {
    return unary_with_image(Op::mul_color, std::move(shape), std::move(arg), std::move(matrix));
}

inline Node pxwise_matmul(Node arg, Image matrices, std::vector<int> shape) {
    return unary_with_image(Op::pxwise_matmul, std::move(shape), std::move(arg), std::move(matrices));
}

inline Node user(Node arg, std::shared_ptr<const UserOperator> op, std::vector<int> shape) {
    Node n = unary(Op::user, std::move(shape), std::move(arg));
    n.user = std::move(op);
    return n;
}

}  // namespace proxgen::ir::make
