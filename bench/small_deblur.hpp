// The TV deblurring problem the batch and serial-solve benchmarks time, written once: a 5×5 box
// blur (circular), λ = 0.01, its blurred image `b` an input each solve replaces with a noise image
// of its own.
#pragma once

#include <malloc.h>

#include <sstream>
#include <string>
#include <vector>

#include <proxgen/proxgen.hpp>

namespace proxgen::bench {

/// An n×n image of uniform noise in [0, 1), the same for the same seed.
inline Image noise_image(int n, unsigned seed) {
    Image img({n, n});
    unsigned s = seed * 2654435761u + 1;
    for (std::size_t i = 0; i < img.size(); ++i) {
        s = s * 1664525u + 1013904223u;
        img.data()[i] = float(s >> 8) / float(1u << 24);
    }
    return img;
}

/// ‖k ⊛ x − b‖² + 0.01 TV(x) on an n×n x, b the noise image of seed 0.
inline rt::Problem small_deblur(int n) {
    Image k({5, 5});
    for (std::size_t i = 0; i < k.size(); ++i) k.data()[i] = 1.0f / 25;
    const rt::Expr x = rt::variable("x", {n, n});
    return rt::sum_squares(rt::conv(k, x) - rt::input("b", noise_image(n, 0))) + 0.01 * rt::group_norm1(rt::grad(x));
}

/// "a,b,c" → {"a", "b", "c"}.
inline std::vector<std::string> comma_list(const std::string& s) {
    std::vector<std::string> parts;
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
    return parts;
}

/// Fresh pages are slow on this VM: benchmarks keep freed memory in the heap for reuse.
inline void reuse_the_heap() {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace proxgen::bench
