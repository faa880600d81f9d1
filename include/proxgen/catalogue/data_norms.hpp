// Numbers computed from a node's or a term's data — the ingredients of norm bounds, diagonal
// minima and curvatures (proxgen/catalogue/formula.hpp). ONE definition, read by the JIT (through
// catalogue::Numbers) and called by the code generated solvers run (the formulas a card emits
// name these functions), so both compute the same number from the same image. Dense float32
// buffers, x fastest (what every ProxGen image and checked generated-solver input is).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include <HalideRuntime.h>

namespace proxgen::data {

inline std::size_t element_count(const halide_buffer_t* b) {
    std::size_t n = 1;
    for (int d = 0; d < b->dimensions; ++d) n *= std::size_t(b->dim[d].extent);
    return n;
}

inline const float* floats(const halide_buffer_t* b) { return reinterpret_cast<const float*>(b->host); }

/// mean(1/max(b, 1)): a Poisson likelihood's curvature b/e² at e = b, averaged.
inline double mean_inverse_counts(const halide_buffer_t* b) {
    double s = 0;
    const float* d = floats(b);
    const std::size_t n = element_count(b);
    for (std::size_t i = 0; i < n; ++i) s += 1.0 / std::max(1.0, double(d[i]));
    return s / double(n);
}

/// Σ|k| (the ‖·‖₂ bound of a convolution by k: Young's inequality, and max |OTF| ≤ ‖k‖₁).
inline double l1_norm(const halide_buffer_t* b) {
    double s = 0;
    const float* d = floats(b);
    for (std::size_t i = 0, n = element_count(b); i < n; ++i) s += std::abs(d[i]);
    return s;
}

/// (min |w|, max |w|): the range of a diagonal's entries (NaNs skipped; (inf, 0) for none). The
/// bits of |w| without their sign order as the values do, so the loop compares int32s, which
/// compilers vectorize (twice as fast as in double: a 17-term problem reads its 17 weights before
/// its first iteration).
inline std::pair<double, double> abs_range(const halide_buffer_t* b) {
    constexpr std::int32_t inf_bits = 0x7f800000, none = 0x7fffffff;  // (none: a NaN's bits, never kept)
    std::int32_t lo = none, hi = 0;
    const float* d = floats(b);
    for (std::size_t i = 0, n = element_count(b); i < n; ++i) {
        std::int32_t bits;
        std::memcpy(&bits, d + i, sizeof bits);
        bits &= 0x7fffffff;
        const bool nan = bits > inf_bits;
        lo = std::min(lo, nan ? none : bits);
        hi = std::max(hi, nan ? 0 : bits);
    }
    auto value = [](std::int32_t bits) {
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return double(f);
    };
    return {lo == none ? INFINITY : value(lo), value(hi)};
}
inline double abs_min(const halide_buffer_t* b) { return abs_range(b).first; }
inline double abs_max(const halide_buffer_t* b) { return abs_range(b).second; }

/// ‖M‖_F (≥ ‖M‖₂).
inline double frobenius(const halide_buffer_t* b) {
    double f = 0;
    const float* d = floats(b);
    for (std::size_t i = 0, n = element_count(b); i < n; ++i) f += double(d[i]) * d[i];
    return std::sqrt(f);
}

/// The largest eigenvalue of the symmetric n × n matrix g (row-major, overwritten) by cyclic Jacobi
/// rotations, converged to rounding (n is a few channels).
inline double largest_symmetric_eigenvalue(std::vector<double>& g, int n) {
    auto at = [&](int i, int j) -> double& { return g[std::size_t(i) * n + j]; };
    for (int sweep = 0; sweep < 64; ++sweep) {
        double off = 0, diag = 0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) (i == j ? diag : off) += at(i, j) * at(i, j);
        if (off <= 1e-30 * diag || off == 0) break;
        for (int p = 0; p < n; ++p)
            for (int q = p + 1; q < n; ++q) {
                const double apq = at(p, q);
                if (apq == 0) continue;
                const double theta = (at(q, q) - at(p, p)) / (2 * apq);
                const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
                const double c = 1 / std::sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < n; ++k) {
                    const double akp = at(k, p), akq = at(k, q);
                    at(k, p) = c * akp - s * akq;
                    at(k, q) = s * akp + c * akq;
                }
                for (int k = 0; k < n; ++k) {
                    const double apk = at(p, k), aqk = at(q, k);
                    at(p, k) = c * apk - s * aqk;
                    at(q, k) = s * apk + c * aqk;
                }
            }
    }
    double top = 0;
    for (int i = 0; i < n; ++i) top = std::max(top, at(i, i));
    return top;
}

/// ‖A‖₂ (the largest singular value) of the rows × cols matrix whose entry (i, j) is
/// a[i·row_stride + j·col_stride]: √ of the largest eigenvalue of the smaller Gram matrix.
inline double spectral_norm(const float* a, int rows, int cols, std::size_t row_stride, std::size_t col_stride) {
    const bool by_cols = cols <= rows;
    const int n = by_cols ? cols : rows, m = by_cols ? rows : cols;
    std::vector<double> g(std::size_t(n) * n, 0.0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) {
            double s = 0;
            for (int k = 0; k < m; ++k) {
                const double u = by_cols ? a[k * row_stride + i * col_stride] : a[i * row_stride + k * col_stride];
                const double v = by_cols ? a[k * row_stride + j * col_stride] : a[j * row_stride + k * col_stride];
                s += u * v;
            }
            g[std::size_t(i) * n + j] = g[std::size_t(j) * n + i] = s;
        }
    return std::sqrt(std::max(0.0, largest_symmetric_eigenvalue(g, n)));
}

/// ‖M‖₂ of a 2-D image read as a matrix (its exact operator norm; ≤ ‖M‖_F).
inline double spectral_norm(const halide_buffer_t* b) {
    const int w = b->dim[0].extent, h = b->dimensions > 1 ? b->dim[1].extent : 1;
    return spectral_norm(floats(b), h, w, std::size_t(w), 1);
}

/// The largest ‖A(p)‖₂ over the pixels p of a W × H × M × N image of per-pixel matrices: the exact
/// norm of the per-pixel (block-diagonal) operator.
inline double largest_pixel_spectral_norm(const halide_buffer_t* b) {
    const std::size_t pixels = std::size_t(b->dim[0].extent) * b->dim[1].extent;
    const int M = b->dimensions > 2 ? b->dim[2].extent : 1, N = b->dimensions > 3 ? b->dim[3].extent : 1;
    const float* d = floats(b);
    double most = 0;
    for (std::size_t p = 0; p < pixels; ++p) most = std::max(most, spectral_norm(d + p, M, N, pixels, pixels * M));
    return most;
}

/// Every value ≥ 0 or every value ≤ 0: a convolution by it has norm ‖k‖₁ (its transfer function
/// at frequency 0), so the bound ‖k‖₁ is exact.
inline bool single_signed(const halide_buffer_t* b) {
    bool pos = false, neg = false;
    const float* d = floats(b);
    for (std::size_t i = 0, n = element_count(b); i < n; ++i) {
        pos = pos || d[i] > 0;
        neg = neg || d[i] < 0;
    }
    return !(pos && neg);
}

/// The largest ‖A(p)‖_F over the pixels p of a W × H × M × N image of per-pixel matrices.
inline double largest_pixel_frobenius(const halide_buffer_t* b) {
    const std::size_t pixels = std::size_t(b->dim[0].extent) * b->dim[1].extent;
    const std::size_t entries = element_count(b) / (pixels ? pixels : 1);
    const float* d = floats(b);
    double most = 0;
    for (std::size_t p = 0; p < pixels; ++p) {
        double f = 0;
        for (std::size_t k = 0; k < entries; ++k) f += double(d[p + k * pixels]) * d[p + k * pixels];
        most = std::max(most, f);
    }
    return std::sqrt(most);
}

}  // namespace proxgen::data
