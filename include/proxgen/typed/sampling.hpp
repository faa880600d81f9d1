// Operators that resample the image plane: uneven_subsample (a gather at index images) and warp
// (a homography with bilinear interpolation, 0 outside). Channels pass through unchanged.
#pragma once

#include "proxgen/catalogue/ops/uneven_subsample.hpp"
#include "proxgen/catalogue/ops/warp.hpp"
#include "proxgen/typed/linear.hpp"

namespace proxgen {

/// pg::uneven_subsample(e, ix, iy): out(p) = e(ix(p), iy(p)) per channel; ix and iy are 2-D
/// images of the output's size holding integer column and row indices of e.
template <dsl::Expression E>
auto uneven_subsample(E arg, const Image& ix, const Image& iy) {
    return typed::apply_card<catalogue::ops::uneven_subsample>(std::move(arg), ix, iy);
}

/// pg::warp(e, H[, out_width, out_height]): out(p) = e sampled bilinearly at H·(p.x, p.y, 1)
/// (divided by its third coordinate), 0 where the sample falls outside e; per channel. H is a
/// 3 × 3 image (H(j, i) is row i, column j). The output has e's size unless given. Its adjoint is
/// the exact transpose (tested), not an inverse warp.
template <dsl::Expression E>
auto warp(E arg, const Image& H, int out_width = 0, int out_height = 0) {
    return typed::apply_card<catalogue::ops::warp>(std::move(arg), H, out_width, out_height);
}

}  // namespace proxgen
