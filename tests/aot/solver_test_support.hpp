// What the tests of generated solvers share: the planner's norm bounds for the JIT they are
// compared with, and images as Halide buffers.
#pragma once

#include <cstdlib>

#include <HalideBuffer.h>
#include <proxgen/proxgen.hpp>

namespace proxgen::aot_test {

using Buffer = Halide::Runtime::Buffer<float>;

/// Generated solvers take the planner's norm bounds; pg::solve would tighten loose ones by an
/// estimate on the data (docs/algorithms.md): the comparisons are of the same steps. Set at
/// static initialisation, before any solve of the test program reads it.
[[maybe_unused]] inline const bool planner_bounds = [] { return setenv("PROXGEN_TIGHT_NORMS", "0", 1) == 0; }();

/// An image as a dense Halide buffer of its extents (x fastest, as Image).
inline Buffer to_buffer(const Image& img) {
    Buffer b(img.sizes());
    for (std::size_t i = 0; i < img.size(); ++i) b.data()[i] = img.data()[i];
    return b;
}

/// -img as a dense buffer (the offsets of a generated Data are the values after the rewrite rules:
/// `- b` is offset -b).
inline Buffer negated(const Image& img) {
    Buffer b = to_buffer(img);
    b.for_each_value([](float& v) { v = -v; });
    return b;
}

}  // namespace proxgen::aot_test
