// The typed front end's linear and affine expression nodes: the compile-time face of the cards
// (proxgen/catalogue/ops/). A node stores its operands and data (and its run-time output shape,
// checked by its card when the node is made) and names its card; what it *is* (facts, bounds,
// lowering) is the card's, which typed/traits.hpp and typed/to_ir.hpp read.
#pragma once

#include <cmath>
#include <type_traits>
#include <vector>

#include "proxgen/catalogue/ops/conv.hpp"
#include "proxgen/catalogue/ops/grad.hpp"
#include "proxgen/catalogue/ops/mul_elemwise.hpp"
#include "proxgen/catalogue/ops/scale.hpp"
#include "proxgen/catalogue/ops/subsample.hpp"
#include "proxgen/catalogue/ops/sum.hpp"
#include "proxgen/image.hpp"
#include "proxgen/messages.hpp"
#include "proxgen/tags.hpp"
#include "proxgen/typed/variable.hpp"

namespace proxgen::dsl {


/// convolution with a 2-D kernel, centre at floor(size/2); applied per channel.
template <class E, class Boundary = circular_t>
struct conv_t {
    using card = catalogue::ops::conv;
    static constexpr int rank = E::rank;
    using boundary = Boundary;
    Image kernel;
    E arg;
    std::vector<int> shape;
};


/// forward differences along the chosen axes (default x and y), stacked on a new last axis.
template <class E, class Boundary = neumann_t, class Axes = xy_axes>
struct grad_t {
    using card = catalogue::ops::grad;
    static constexpr int rank = E::rank + 1;
    static constexpr bool periodic = std::is_same_v<Boundary, periodic_t>;
    using axes = Axes;
    E arg;
    std::vector<int> shape;
};

/// sum of two expressions of the same rank and shape.
template <class A, class B>
struct sum_t {
    using card = catalogue::ops::sum;
    static constexpr int rank = A::rank;
    A lhs;
    B rhs;
    std::vector<int> shape;
};

/// a user-defined operator (defined in the opt-in proxgen/user_operator.hpp, which needs Halide.h).
template <class E>
struct user_t;
/// the argument of a diff_fn penalty, carrying the user's smooth function (proxgen/diff_fn.hpp).
template <class E>
struct smooth_arg_t;

// ---- which types are expressions -------------------------------------------------------------
template <class T> struct is_expression : std::false_type {};
template <class Tag, int R> struct is_expression<variable_t<Tag, R>> : std::true_type {};
template <class E, class B> struct is_expression<conv_t<E, B>> : std::true_type {};
template <class E, class B, class A> struct is_expression<grad_t<E, B, A>> : std::true_type {};
template <class A, class B> struct is_expression<sum_t<A, B>> : std::true_type {};

template <class T>
concept Expression = is_expression<std::remove_cvref_t<T>>::value;

template <class T>
concept Scalar = std::is_arithmetic_v<std::remove_cvref_t<T>>;

/// Maximum rank of any expression: Halide layout x, y, channel, stacked axis.
inline constexpr int max_rank = catalogue::max_rank;

/// run-time shape of any expression node.
template <Expression E>
const std::vector<int>& shape_of(const E& e) { return e.shape; }

}  // namespace proxgen::dsl

namespace proxgen {


/// pg::conv(k, e[, boundary]): convolution of every channel of e with the 2-D kernel k, centre at
/// floor(size/2); outside the image e wraps around (pg::circular, default), is 0
/// (pg::zero_boundary) or repeats its edge pixel (pg::replicate).
template <dsl::Expression E, class Boundary = dsl::circular_t>
auto conv(const Image& kernel, E arg, Boundary = {}) {
    static_assert(std::is_same_v<Boundary, dsl::circular_t> || std::is_same_v<Boundary, dsl::zero_boundary_t> ||
                      std::is_same_v<Boundary, dsl::replicate_t>,
                  PROXGEN_MSG_CONV_BOUNDARY);
    std::vector<int> shape = catalogue::ops::conv::shape(kernel, dsl::shape_of(arg));
    return dsl::conv_t<E, Boundary>{kernel, std::move(arg), std::move(shape)};
}

/// pg::conv_nofft(k, e): ProxImaL's direct small-kernel convolution, replicate boundary; the same
/// operator as conv(k, e, pg::replicate).
template <dsl::Expression E>
auto conv_nofft(const Image& kernel, E arg) { return conv(kernel, std::move(arg), dsl::replicate_t{}); }


namespace detail {
template <class T> struct is_axes : std::false_type {};
template <int... A> struct is_axes<dsl::axes_t<A...>> : std::true_type {};

template <int Rank, int... A>
constexpr bool valid_axes() {
    constexpr int a[] = {A..., 0};
    return catalogue::ops::grad::valid_axes(Rank, a, sizeof...(A));
}

template <class Axes, class Boundary, dsl::Expression E>
auto make_grad(E arg) {
    static_assert(std::is_same_v<Boundary, dsl::neumann_t> || std::is_same_v<Boundary, dsl::periodic_t>,
                  PROXGEN_MSG_GRAD_BOUNDARY);
    static_assert(E::rank + 1 <= dsl::max_rank, PROXGEN_MSG_GRAD_MAX_RANK);
    std::vector<int> shape = catalogue::ops::grad::shape(dsl::shape_of(arg), Axes::list());
    return dsl::grad_t<E, Boundary, Axes>{std::move(arg), std::move(shape)};
}
}  // namespace detail

/// pg::grad(e[, pg::periodic]): forward differences along x and y, stacked on a new last axis of
/// extent 2; the last difference is 0 (Neumann, default) or wraps around (periodic).
template <dsl::Expression E, class Boundary = dsl::neumann_t>
    requires(!detail::is_axes<Boundary>::value)
auto grad(E arg, Boundary = {}) {
    return detail::make_grad<dsl::xy_axes, Boundary>(std::move(arg));
}

/// pg::grad(e, pg::on_axes<0, 1, 2>[, pg::periodic]): forward differences along the given axes of
/// e (distinct, each < e's rank), stacked on a new last axis with one slice per axis: grad of a
/// volume, or along x only (on_axes<0>).
template <dsl::Expression E, int... A, class Boundary = dsl::neumann_t>
auto grad(E arg, dsl::axes_t<A...>, Boundary = {}) {
    static_assert(detail::valid_axes<E::rank, A...>(), PROXGEN_MSG_GRAD_AXES);
    return detail::make_grad<dsl::axes_t<A...>, Boundary>(std::move(arg));
}

/// pg::mul_elemwise(w, e): elementwise product with a weight image of e's shape.
template <dsl::Expression E>
auto mul_elemwise(const Image& weight, E arg) {
    return typed::apply_card<catalogue::ops::mul_elemwise>(std::move(arg), weight);
}

/// pg::subsample(e, sx, sy): every sx-th column and sy-th row, starting at 0.
template <dsl::Expression E>
auto subsample(E arg, int step_x, int step_y) {
    return typed::apply_card<catalogue::ops::subsample>(std::move(arg), step_x, step_y);
}

namespace dsl {

template <Scalar S, Expression E>
auto operator*(S s, E e) {
    return typed::apply_card<catalogue::ops::scale>(std::move(e), static_cast<double>(s));
}
template <Expression E, Scalar S>
auto operator*(E e, S s) { return s * std::move(e); }

template <Expression E>
auto operator-(E e) { return -1.0f * std::move(e); }

template <Expression A, Expression B>
auto operator+(A a, B b) {
    static_assert(A::rank == B::rank, PROXGEN_MSG_SUM_SAME_RANK);
    std::vector<int> shape = catalogue::ops::sum::shape(shape_of(a), shape_of(b));
    return sum_t<A, B>{std::move(a), std::move(b), std::move(shape)};
}

template <Expression A, Expression B>
auto operator-(A a, B b) { return std::move(a) + (-1.0f * std::move(b)); }

/// e ± b: the sum card's offset form (b's sign in `sign`).
template <Expression E>
auto make_offset(E e, const Image& b, float sign, const char* op) {
    return typed::apply_card<catalogue::ops::sum::offset_form>(std::move(e), b, sign, op);
}

template <Expression E>
auto operator-(E e, const Image& b) { return make_offset(std::move(e), b, -1.0f, "-"); }
template <Expression E>
auto operator+(E e, const Image& b) { return make_offset(std::move(e), b, +1.0f, "+"); }
template <Expression E>
auto operator+(const Image& b, E e) { return make_offset(std::move(e), b, +1.0f, "+"); }
template <Expression E>
auto operator-(const Image& b, E e) { return make_offset(-std::move(e), b, +1.0f, "-"); }

}  // namespace dsl

}  // namespace proxgen
