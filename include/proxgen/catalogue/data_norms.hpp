// Numbers computed from a node's or a term's data — the ingredients of norm bounds, diagonal
// minima and curvatures (proxgen/catalogue/formula.hpp). ONE definition, read by the JIT (through
// catalogue::Numbers) and called by the code generated solvers run (the formulas a card emits
// name these functions), so both compute the same number from the same image. Dense float32
// buffers, x fastest (what every ProxGen image and checked generated-solver input is).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

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

/// (min |w|, max |w|): the range of a diagonal's entries.
inline std::pair<double, double> abs_range(const halide_buffer_t* b) {
    double lo = INFINITY, hi = 0;
    const float* d = floats(b);
    for (std::size_t i = 0, n = element_count(b); i < n; ++i) {
        lo = std::min(lo, double(std::abs(d[i])));
        hi = std::max(hi, double(std::abs(d[i])));
    }
    return {lo, hi};
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
