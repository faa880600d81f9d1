// Operators that move pixels without weighing them: crop, zero pad, axis permutation, reshape and
// concatenation (vstack / hstack). Each output pixel is one input pixel or 0, so each adjoint is
// the inverse move (zero-filling where the forward dropped pixels).
#pragma once

#include "proxgen/catalogue/ops/concat.hpp"
#include "proxgen/catalogue/ops/crop.hpp"
#include "proxgen/catalogue/ops/pad.hpp"
#include "proxgen/catalogue/ops/reshape.hpp"
#include "proxgen/catalogue/ops/transpose.hpp"
#include "proxgen/typed/linear.hpp"

namespace proxgen::dsl {

/// a and b side by side along `axis` (0: hstack, 1: vstack, 2: channels).
template <class A, class B>
struct concat_t {
    using card = catalogue::ops::concat;
    static constexpr int rank = A::rank;
    int axis;
    A lhs;
    B rhs;
    std::vector<int> shape;
};

template <class A, class B> struct is_expression<concat_t<A, B>> : std::true_type {};

}  // namespace proxgen::dsl

namespace proxgen {

/// pg::crop(e, x0, y0, w, h): the w × h window of e whose top-left pixel is (x0, y0).
template <dsl::Expression E>
auto crop(E arg, int x0, int y0, int w, int h) {
    return typed::apply_card<catalogue::ops::crop>(std::move(arg), x0, y0, w, h);
}

/// pg::pad(e, left, top, right, bottom): e surrounded by zeros.
template <dsl::Expression E>
auto pad(E arg, int left, int top, int right, int bottom) {
    return typed::apply_card<catalogue::ops::pad>(std::move(arg), left, top, right, bottom);
}

/// pg::transpose(e, perm): output axis d is e's axis perm[d], e.g. {1, 0} swaps x and y and
/// {0, 1, 3, 2} swaps the channel and stacked axes of a colour gradient.
template <dsl::Expression E>
auto transpose(E arg, std::vector<int> perm) {
    return typed::apply_card<catalogue::ops::transpose>(std::move(arg), std::move(perm));
}

/// pg::reshape<R>(e, shape): the elements of e in memory order (x fastest) under a new shape of
/// rank R with as many elements (e.g. a w·h × 1 column, or a W × H × C image seen as W × H·C).
template <int R, dsl::Expression E>
auto reshape(E arg, std::vector<int> shape) {
    static_assert(R >= 1 && R <= dsl::max_rank, PROXGEN_MSG_RESHAPE_RANK);
    shape = catalogue::ops::reshape::shape(dsl::shape_of(arg), shape, R);
    return typed::apply_card<catalogue::ops::reshape, R>(std::move(arg), std::move(shape));
}

/// pg::merge_last_axes(e): e's last two axes as one (W × H × C × 2 → W × H × 2C), so that
/// group_norm1(merge_last_axes(grad(x))) couples the colour channels of a TV into one group per
/// pixel (the vectorial TV of colour images) instead of one per channel.
template <dsl::Expression E>
auto merge_last_axes(E arg) {
    static_assert(E::rank >= 3, PROXGEN_MSG_MERGE_LAST_AXES_RANK);
    std::vector<int> shape = catalogue::ops::reshape::merged_last_axes(dsl::shape_of(arg));
    return typed::apply_card<catalogue::ops::reshape, E::rank - 1>(std::move(arg), std::move(shape));
}

/// pg::concat(a, b, axis): a followed by b along `axis`; every other axis must agree.
template <dsl::Expression A, dsl::Expression B>
auto concat(A a, B b, int axis) {
    static_assert(A::rank == B::rank, PROXGEN_MSG_CONCAT_SAME_RANK);
    std::vector<int> shape = catalogue::ops::concat::shape(dsl::shape_of(a), dsl::shape_of(b), axis);
    return dsl::concat_t<A, B>{axis, std::move(a), std::move(b), std::move(shape)};
}

/// pg::vstack(a, b, ...): stacked top to bottom (along y), like numpy's vstack of images.
template <dsl::Expression A, dsl::Expression B, dsl::Expression... More>
auto vstack(A a, B b, More... more) {
    if constexpr (sizeof...(More) == 0) return concat(std::move(a), std::move(b), 1);
    else return vstack(concat(std::move(a), std::move(b), 1), std::move(more)...);
}

/// pg::hstack(a, b, ...): side by side (along x), like numpy's hstack of images.
template <dsl::Expression A, dsl::Expression B, dsl::Expression... More>
auto hstack(A a, B b, More... more) {
    if constexpr (sizeof...(More) == 0) return concat(std::move(a), std::move(b), 0);
    else return hstack(concat(std::move(a), std::move(b), 0), std::move(more)...);
}

}  // namespace proxgen
