// Per-pixel matrices acting on the channel axis: mul_color (one 3 × 3 colour transform for the
// whole image: opponent, YUV or any matrix) and pxwise_matmul (a matrix per pixel).
#pragma once

#include "proxgen/catalogue/ops/mul_color.hpp"
#include "proxgen/catalogue/ops/pxwise_matmul.hpp"
#include "proxgen/typed/linear.hpp"

namespace proxgen {

namespace color {
/// A 3 × 3 colour matrix image from its rows.
inline Image matrix(const float (&rows)[3][3]) {
    Image m({3, 3});
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m(j, i) = rows[i][j];
    return m;
}
/// RGB → opponent colour space (luminance, red−blue, green−magenta), as in BM3D's "opp" and
/// ProxImaL's cross-channel priors: decorrelates natural images' channels.
inline Image opponent() {
    return matrix({{1.0f / 3, 1.0f / 3, 1.0f / 3}, {0.5f, 0.0f, -0.5f}, {0.25f, -0.5f, 0.25f}});
}
/// RGB → YUV (ITU-R BT.601).
inline Image yuv() {
    return matrix({{0.299f, 0.587f, 0.114f}, {-0.14713f, -0.28886f, 0.436f}, {0.615f, -0.51499f, -0.10001f}});
}
}  // namespace color

/// pg::mul_color(e, M): the 3 × 3 colour transform M (e.g. pg::color::opponent()) applied to every
/// pixel of a W × H × 3 expression.
template <dsl::Expression E>
auto mul_color(E arg, const Image& M) {
    static_assert(E::rank == 3, PROXGEN_MSG_MUL_COLOR_RANK);
    return typed::apply_card<catalogue::ops::mul_color>(std::move(arg), M);
}

/// pg::pxwise_matmul(A, e): a matrix per pixel, A of shape W × H × M × N applied to the N
/// channels of the W × H × N expression e, giving W × H × M.
template <dsl::Expression E>
auto pxwise_matmul(const Image& A, E arg) {
    static_assert(E::rank == 3, PROXGEN_MSG_PXWISE_MATMUL_RANK);
    return typed::apply_card<catalogue::ops::pxwise_matmul>(std::move(arg), A);
}

}  // namespace proxgen
