// What the tests of generated solvers share: images as Halide buffers. (Generated solvers estimate
// ‖K‖ as pg::solve does, so the JIT they are compared with runs with its default, tight norms.)
#pragma once

#include <cstdlib>

#include <HalideBuffer.h>
#include <proxgen/proxgen.hpp>

namespace proxgen::aot_test {

using Buffer = Halide::Runtime::Buffer<float>;

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
