// The entry points of a generated FFT pass library, as the driver (proxgen/aot/fft.hpp) receives
// them: the generated header <prefix>.h fills a Kernels with the library's argv functions
// (Halide's `<name>_argv(void**)`). What each pass computes and its argument order:
// src/aot/fft_passes.cpp.
#pragma once

#include <cstddef>

namespace proxgen::aot::fft {

/// An argv entry point of a Halide pipeline: 0 on success, a halide_error_code_t otherwise.
using Entry = int (*)(void**);

/// The radices of the Stockham passes, in the order of Kernels::radix.
inline constexpr int kRadices[] = {2, 3, 4, 5, 7, 8, 16};
inline constexpr std::size_t kRadixCount = sizeof(kRadices) / sizeof(kRadices[0]);

/// Bumped whenever a pass's arguments change, so that a driver never calls a library generated
/// for another argument order (the generated header stamps the version it was written for).
inline constexpr int kKernelsVersion = 1;

struct Kernels {
    int version = 0;
    /// Generated for a GPU target. Its `transpose` takes (2, x, y) → (2, y, x) floats; a CPU
    /// library's moves complex values as 64-bit units, (x, y) → (y, x).
    bool gpu = false;
    Entry radix[kRadixCount] = {};
    Entry transpose = nullptr, copy = nullptr;
    Entry r2c_post = nullptr, c2r_pre = nullptr, c2r_pre_gain = nullptr;
    Entry widen = nullptr, narrow = nullptr, hermitian = nullptr, hermitian_gain = nullptr;
    Entry chirp = nullptr;
    Entry dct_reorder = nullptr, dct_restore = nullptr, dct_post = nullptr, dct_pre = nullptr, dct_pre_gain = nullptr;
};

}  // namespace proxgen::aot::fft
