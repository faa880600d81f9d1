// Operators that resample the image plane: uneven_subsample (a gather at index images) and warp
// (a homography with bilinear interpolation, 0 outside). Channels pass through unchanged.
#pragma once

#include <array>
#include <cmath>

#include "proxgen/dsl/linear.hpp"

namespace proxgen::dsl {

/// out(p, c) = in(ix(p), iy(p), c): the index images are packed as planes 0 and 1 of `index`.
template <class E>
struct uneven_subsample_t {
    static constexpr int rank = E::rank;
    Image index;        // W' × H' × 2, integer values
    int multiplicity;   // the most output pixels that read one input pixel (‖K‖ = √multiplicity)
    E arg;
    std::vector<int> shape;
};

/// out(p, c) = bilinear sample of in at H·p (homogeneous coordinates), 0 outside the image.
/// `homography` is 3 × 3 × 3: plane 0 is H, plane 1 its inverse, plane 2 holds at (0, 0) and
/// (1, 0) the extents of the window of output pixels that can read one input pixel (the adjoint
/// gathers over it: part of the pipeline's structure); `norm` bounds ‖K‖.
template <class E>
struct warp_t {
    static constexpr int rank = E::rank;
    Image homography;
    double norm;
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
    detail::require_image(ix, "uneven_subsample", "column index");
    detail::require_image(iy, "uneven_subsample", "row index");
    if (ix.dimensions() != 2) fail("uneven_subsample: the index images must be 2-D, got {}", ix.shape_string());
    detail::require_same_shape("uneven_subsample", "the column index", ix.sizes(), "the row index", iy.sizes());
    const auto& s = dsl::shape_of(arg);
    Image index({ix.width(), ix.height(), 2});
    std::vector<int> count(std::size_t(s[0]) * s[1], 0);
    int most = 0;
    for (int y = 0; y < ix.height(); ++y)
        for (int x = 0; x < ix.width(); ++x) {
            const float u = ix(x, y), v = iy(x, y);
            if (!(u >= 0 && u < s[0] && v >= 0 && v < s[1] && u == std::floor(u) && v == std::floor(v)))
                fail("uneven_subsample: index ({}, {}) at output pixel ({}, {}) is not a pixel of its operand {}", u, v,
                     x, y, shape_string(s));
            index(x, y, 0) = u;
            index(x, y, 1) = v;
            most = std::max(most, ++count[std::size_t(v) * s[0] + std::size_t(u)]);
        }
    std::vector<int> shape = s;
    shape[0] = ix.width();
    shape[1] = ix.height();
    return dsl::uneven_subsample_t<E>{index, most, std::move(arg), std::move(shape)};
}

namespace detail {
using mat3 = std::array<std::array<double, 3>, 3>;

inline mat3 inverse(const mat3& m, const char* op) {
    const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                       m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                       m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (!std::isfinite(det) || std::abs(det) < 1e-12) fail("{}: the homography is singular (det = {})", op, det);
    mat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const int a = (j + 1) % 3, b = (j + 2) % 3, c = (i + 1) % 3, d = (i + 2) % 3;
            r[i][j] = (m[a][c] * m[b][d] - m[a][d] * m[b][c]) / det;
        }
    return r;
}

/// The homogeneous w of m·(x, y, 1) stays > 0 on the rectangle [x0, x1] × [y0, y1] (w is affine,
/// so its corners decide).
inline bool positive_w(const mat3& m, double x0, double y0, double x1, double y1) {
    for (double x : {x0, x1})
        for (double y : {y0, y1})
            if (!(m[2][0] * x + m[2][1] * y + m[2][2] > 1e-9)) return false;
    return true;
}
}  // namespace detail

/// pg::warp(e, H[, out_width, out_height]): out(p) = e sampled bilinearly at H·(p.x, p.y, 1)
/// (divided by its third coordinate), 0 where the sample falls outside e; per channel. H is a
/// 3 × 3 image (H(j, i) is row i, column j). The output has e's size unless given. Its adjoint is
/// the exact transpose (tested), not an inverse warp.
template <dsl::Expression E>
auto warp(E arg, const Image& H, int out_width = 0, int out_height = 0) {
    detail::require_image(H, "warp", "homography");
    if (H.sizes() != std::vector<int>{3, 3}) fail("warp: the homography must be 3x3, got {}", H.shape_string());
    const auto& s = dsl::shape_of(arg);
    std::vector<int> shape = s;
    if (out_width > 0) shape[0] = out_width;
    if (out_height > 0) shape[1] = out_height;
    detail::mat3 m;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i][j] = H(j, i);
    const detail::mat3 inv = detail::inverse(m, "warp");
    if (!detail::positive_w(m, 0, 0, shape[0] - 1, shape[1] - 1) ||
        !detail::positive_w(inv, -1, -1, s[0], s[1]))
        fail("warp: the homography sends part of the image through infinity (its third coordinate changes sign "
             "over the {} output or the {} input)", shape_string(shape), shape_string(s));
    auto apply = [](const detail::mat3& a, double x, double y) {
        const double w = a[2][0] * x + a[2][1] * y + a[2][2];
        return std::array<double, 2>{(a[0][0] * x + a[0][1] * y + a[0][2]) / w, (a[1][0] * x + a[1][1] * y + a[1][2]) / w};
    };
    // The output pixels that read input pixel q lie in the preimage of the square (q − 1, q + 1)²,
    // a convex quadrilateral spanned by its mapped corners: the adjoint gathers over its bounding
    // box, whose largest extent over all q is found here once.
    int rx = 1, ry = 1;
    for (int qy = 0; qy < s[1]; ++qy)
        for (int qx = 0; qx < s[0]; ++qx) {
            double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
            for (int dx : {-1, 1})
                for (int dy : {-1, 1}) {
                    auto p = apply(inv, qx + dx, qy + dy);
                    for (int k = 0; k < 2; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
                }
            // clipped to the output: pixels outside it read nothing
            for (int k = 0; k < 2; ++k) {
                lo[k] = std::max(lo[k], -1.0);
                hi[k] = std::min(hi[k], double(shape[k]));
            }
            if (hi[0] >= lo[0]) rx = std::max(rx, int(std::floor(hi[0]) - std::floor(lo[0])) + 2);
            if (hi[1] >= lo[1]) ry = std::max(ry, int(std::floor(hi[1]) - std::floor(lo[1])) + 2);
        }
    // ‖K‖² ≤ ‖K‖₁ ‖K‖∞: every row's weights sum to ≤ 1, the largest column sum is accumulated here.
    std::vector<double> column(std::size_t(s[0]) * s[1], 0.0);
    for (int py = 0; py < shape[1]; ++py)
        for (int px = 0; px < shape[0]; ++px) {
            auto u = apply(m, px, py);
            const double x0 = std::floor(u[0]), y0 = std::floor(u[1]), fx = u[0] - x0, fy = u[1] - y0;
            for (int dy = 0; dy < 2; ++dy)
                for (int dx = 0; dx < 2; ++dx) {
                    const double qx = x0 + dx, qy = y0 + dy;
                    if (qx < 0 || qy < 0 || qx >= s[0] || qy >= s[1]) continue;
                    column[std::size_t(qy) * s[0] + std::size_t(qx)] += (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy);
                }
        }
    double most = 0;
    for (double c : column) most = std::max(most, c);
    Image packed({3, 3, 3});
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            packed(j, i, 0) = float(m[i][j]);
            packed(j, i, 1) = float(inv[i][j]);
        }
    packed(0, 0, 2) = float(rx);
    packed(1, 0, 2) = float(ry);
    return dsl::warp_t<E>{packed, std::sqrt(most) * 1.001 + 1e-6, std::move(arg), std::move(shape)};
}

}  // namespace proxgen
