// Operators that move pixels without weighing them: crop, zero pad, axis permutation, reshape and
// concatenation (vstack / hstack). Each output pixel is one input pixel or 0, so each adjoint is
// the inverse move (zero-filling where the forward dropped pixels).
#pragma once

#include <algorithm>
#include <numeric>

#include "proxgen/dsl/linear.hpp"

namespace proxgen::dsl {

/// the window [x0, x0 + w) × [y0, y0 + h) of every channel.
template <class E>
struct crop_t {
    static constexpr int rank = E::rank;
    int x0, y0;
    E arg;
    std::vector<int> shape;
};

/// zero padding: `left` columns and `top` rows before, and more after up to `shape`.
template <class E>
struct pad_t {
    static constexpr int rank = E::rank;
    int left, top;
    E arg;
    std::vector<int> shape;
};

/// axis permutation: output axis d is input axis perm[d] (numpy's transpose, in Halide order).
template <class E>
struct transpose_t {
    static constexpr int rank = E::rank;
    std::vector<int> perm;
    E arg;
    std::vector<int> shape;
};

/// the same elements in the same order (x fastest) under another shape of rank R.
template <class E, int R>
struct reshape_t {
    static constexpr int rank = R;
    E arg;
    std::vector<int> shape;
};

/// a and b side by side along `axis` (0: hstack, 1: vstack, 2: channels).
template <class A, class B>
struct concat_t {
    static constexpr int rank = A::rank;
    int axis;
    A lhs;
    B rhs;
    std::vector<int> shape;
};

template <class E> struct is_expression<crop_t<E>> : std::true_type {};
template <class E> struct is_expression<pad_t<E>> : std::true_type {};
template <class E> struct is_expression<transpose_t<E>> : std::true_type {};
template <class E, int R> struct is_expression<reshape_t<E, R>> : std::true_type {};
template <class A, class B> struct is_expression<concat_t<A, B>> : std::true_type {};

}  // namespace proxgen::dsl

namespace proxgen {

/// pg::crop(e, x0, y0, w, h): the w × h window of e whose top-left pixel is (x0, y0).
template <dsl::Expression E>
auto crop(E arg, int x0, int y0, int w, int h) {
    const auto& s = dsl::shape_of(arg);
    if (x0 < 0 || y0 < 0 || w < 1 || h < 1 || x0 + w > s[0] || y0 + h > s[1])
        fail("crop: the window {}x{} at ({}, {}) does not fit in its operand {}", w, h, x0, y0, shape_string(s));
    std::vector<int> shape = s;
    shape[0] = w;
    shape[1] = h;
    return dsl::crop_t<E>{x0, y0, std::move(arg), std::move(shape)};
}

/// pg::pad(e, left, top, right, bottom): e surrounded by zeros.
template <dsl::Expression E>
auto pad(E arg, int left, int top, int right, int bottom) {
    if (left < 0 || top < 0 || right < 0 || bottom < 0)
        fail("pad: the margins must be >= 0, got {}, {}, {}, {}", left, top, right, bottom);
    std::vector<int> shape = dsl::shape_of(arg);
    shape[0] += left + right;
    shape[1] += top + bottom;
    return dsl::pad_t<E>{left, top, std::move(arg), std::move(shape)};
}

/// pg::transpose(e, perm): output axis d is e's axis perm[d], e.g. {1, 0} swaps x and y and
/// {0, 1, 3, 2} swaps the channel and stacked axes of a colour gradient.
template <dsl::Expression E>
auto transpose(E arg, std::vector<int> perm) {
    const auto& s = dsl::shape_of(arg);
    std::vector<int> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> iota(s.size());
    std::iota(iota.begin(), iota.end(), 0);
    if (sorted != iota)
        fail("transpose: {{{}}} is not a permutation of the {} axes of its operand {}", fmt::join(perm, ", "),
             s.size(), shape_string(s));
    std::vector<int> shape(s.size());
    for (std::size_t d = 0; d < s.size(); ++d) shape[d] = s[perm[d]];
    return dsl::transpose_t<E>{std::move(perm), std::move(arg), std::move(shape)};
}

/// pg::reshape<R>(e, shape): the elements of e in memory order (x fastest) under a new shape of
/// rank R with as many elements (e.g. a w·h × 1 column, or a W × H × C image seen as W × H·C).
template <int R, dsl::Expression E>
auto reshape(E arg, std::vector<int> shape) {
    static_assert(R >= 1 && R <= dsl::max_rank, "reshape's rank must be between 1 and 4");
    const auto& s = dsl::shape_of(arg);
    auto count = [](const std::vector<int>& v) {
        long long n = 1;
        for (int x : v) n *= x;
        return n;
    };
    if (int(shape.size()) != R || std::any_of(shape.begin(), shape.end(), [](int x) { return x < 1; }) ||
        count(shape) != count(s))
        fail("reshape: {} cannot hold the {} elements of its operand {} as a rank-{} shape", shape_string(shape),
             count(s), shape_string(s), R);
    return dsl::reshape_t<E, R>{std::move(arg), std::move(shape)};
}

/// pg::merge_last_axes(e): e's last two axes as one (W × H × C × 2 → W × H × 2C), so that
/// group_norm1(merge_last_axes(grad(x))) couples the colour channels of a TV into one group per
/// pixel (the vectorial TV of colour images) instead of one per channel.
template <dsl::Expression E>
auto merge_last_axes(E arg) {
    static_assert(E::rank >= 3, "merge_last_axes needs at least three axes (e.g. grad of a colour image)");
    std::vector<int> shape = dsl::shape_of(arg);
    const int last = shape.back();
    shape.pop_back();
    shape.back() *= last;
    return reshape<E::rank - 1>(std::move(arg), std::move(shape));
}

/// pg::concat(a, b, axis): a followed by b along `axis`; every other axis must agree.
template <dsl::Expression A, dsl::Expression B>
auto concat(A a, B b, int axis) {
    static_assert(A::rank == B::rank, "concat, vstack and hstack join operands of the same rank");
    const auto& sa = dsl::shape_of(a);
    const auto& sb = dsl::shape_of(b);
    if (axis < 0 || axis >= int(sa.size())) fail("concat: axis {} is not an axis of {}", axis, shape_string(sa));
    for (std::size_t d = 0; d < sa.size(); ++d)
        if (int(d) != axis && sa[d] != sb[d])
            fail("concat: joining along axis {}, but the operands are {} and {}", axis, shape_string(sa),
                 shape_string(sb));
    std::vector<int> shape = sa;
    shape[axis] += sb[axis];
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
