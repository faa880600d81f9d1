// Operators that resample the image plane: uneven_subsample (a gather at index images) and warp
// (a homography with bilinear interpolation, 0 outside). Channels pass through unchanged.
#pragma once

#include "proxgen/catalogue/ops/uneven_subsample.hpp"
#include "proxgen/catalogue/ops/warp.hpp"
#include "proxgen/typed/linear.hpp"

namespace proxgen::dsl {

/// out(p, c) = in(ix(p), iy(p), c): the index images are packed as planes 0 and 1 of `index`.
template <class E>
struct uneven_subsample_t {
    using card = catalogue::ops::uneven_subsample;
    static constexpr int rank = E::rank;
    card::Gather gather;  // the packed index images, the most reads of one pixel, the shape
    E arg;
    std::vector<int> shape;
};

/// out(p, c) = bilinear sample of in at H·p (homogeneous coordinates), 0 outside the image.
/// `homography` is 3 × 3 × 3: plane 0 is H, plane 1 its inverse, plane 2 holds at (0, 0) and
/// (1, 0) the extents of the window of output pixels that can read one input pixel (the adjoint
/// gathers over it: part of the pipeline's structure); `norm` bounds ‖K‖.
template <class E>
struct warp_t {
    using card = catalogue::ops::warp;
    static constexpr int rank = E::rank;
    card::Packed packed;  // H, its inverse, the adjoint's window; ‖K‖; the shape
    E arg;
    std::vector<int> shape;
};

template <class E> struct is_expression<uneven_subsample_t<E>> : std::true_type {};
template <class E> struct is_expression<warp_t<E>> : std::true_type {};

}  // namespace proxgen::dsl

namespace proxgen {

/// pg::uneven_subsample(e, ix, iy): out(p) = e(ix(p), iy(p)) per channel; ix and iy are 2-D
/// images of the output's size holding integer column and row indices of e.
template <dsl::Expression E>
auto uneven_subsample(E arg, const Image& ix, const Image& iy) {
    auto g = catalogue::ops::uneven_subsample::gather(dsl::shape_of(arg), ix, iy);
    std::vector<int> shape = g.shape;
    return dsl::uneven_subsample_t<E>{std::move(g), std::move(arg), std::move(shape)};
}

/// pg::warp(e, H[, out_width, out_height]): out(p) = e sampled bilinearly at H·(p.x, p.y, 1)
/// (divided by its third coordinate), 0 where the sample falls outside e; per channel. H is a
/// 3 × 3 image (H(j, i) is row i, column j). The output has e's size unless given. Its adjoint is
/// the exact transpose (tested), not an inverse warp.
template <dsl::Expression E>
auto warp(E arg, const Image& H, int out_width = 0, int out_height = 0) {
    auto w = catalogue::ops::warp::pack(dsl::shape_of(arg), H, out_width, out_height);
    std::vector<int> shape = w.shape;
    return dsl::warp_t<E>{std::move(w), std::move(arg), std::move(shape)};
}

}  // namespace proxgen
