// Helpers shared by the tests: seeded random images and float64 inner products.
#pragma once

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include <proxgen/lower/evaluate.hpp>
#include <proxgen/proxgen.hpp>

namespace proxgen::test {

inline Image random_image(const std::vector<int>& shape, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
    Image img(shape);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (std::size_t i = 0; i < img.size(); ++i) img.data()[i] = dist(gen);
    return img;
}

inline double dot(const Image& a, const Image& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += double(a.data()[i]) * b.data()[i];
    return s;
}

inline double norm(const Image& a) { return std::sqrt(dot(a, a)); }

/// ‖a − b‖ / ‖b‖ in float64.
inline double relative_difference(const Image& a, const Image& b) {
    double d2 = 0, n2 = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        d2 += std::pow(double(a.data()[i]) - b.data()[i], 2);
        n2 += std::pow(double(b.data()[i]), 2);
    }
    if (n2 == 0) return d2 == 0 ? 0.0 : std::numeric_limits<double>::infinity();  // b = 0: equal or not
    return std::sqrt(d2 / n2);
}

#ifdef PROXGEN_TEST_DATA_DIR
/// tests/data in the source tree: small committed reference data (tests/data/README.md).
inline std::string data_dir() { return PROXGEN_TEST_DATA_DIR; }

/// A tests/data image of values in [0, 1] stored as uint16 q = round(65535 v) (a .npy of '<u2').
/// Returns float32(q / 65535) computed in float64: exactly the values the constants quoted beside
/// such a file were computed from (tests/data/README.md).
inline Image load_unit_u16(const std::string& name) {
    const std::string path = data_dir() + "/" + name;
    Image img = load_image(path);  // documented: uint16 .npy values are read as q / 65535
    for (std::size_t i = 0; i < img.size(); ++i) {
        const double scaled = double(img.data()[i]) * 65535.0, q = std::nearbyint(scaled);
        if (!(std::fabs(scaled - q) < 1e-2) || q < 0 || q > 65535)
            throw std::runtime_error(path + ": value " + std::to_string(img.data()[i]) +
                                     " is not q / 65535 for an integer q: was the file read as uint16 in [0, 1]?");
        img.data()[i] = static_cast<float>(q / 65535.0);
    }
    return img;
}
#endif

/// An n×n box blur kernel whose samples sum to `sum`.
inline Image box_kernel(int n, float sum = 1.0f) {
    Image k({n, n});
    for (std::size_t i = 0; i < k.size(); ++i) k.data()[i] = sum / float(n * n);
    return k;
}

/// A 32² square of 1 crossed by a bar of 0.5 (levels × `level`), blurred by a 5×5 box summing to
/// 1 / `level` (circular), plus uniform noise in ±0.08 (seed 5): the same data b for every level,
/// with x at `level` times its scale. The badly scaled l1 deconvolution of the stopping and
/// infeasibility tests.
struct ScaledBlur {
    Image k, b;
};
inline ScaledBlur scaled_square_blur(float level) {
    const int w = 32, h = 32;
    ScaledBlur d{box_kernel(5, 1.0f / level), Image({w, h})};
    Image clean({w, h});
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i)
            clean(i, j) = level * ((i >= 8 && i < 24 && j >= 8 && j < 24 ? 1.0f : 0.0f) +
                                   (j >= 12 && j < 20 && i >= 4 && i < 28 ? 0.5f : 0.0f));
    d.b = lower::apply_linear(typed::to_ir(conv(d.k, variable(w, h))), clean);
    const Image noise = random_image({w, h}, 5, -0.08f, 0.08f);
    for (std::size_t i = 0; i < d.b.size(); ++i) d.b.data()[i] += noise.data()[i];
    return d;
}

/// Options that run exactly `iters` iterations of `a` (no tolerance stop).
inline Options fixed_iterations(Algorithm a, int iters) {
    Options opt;
    opt.algorithm = a;
    opt.max_iters = iters;
    opt.eps_abs = opt.eps_rel = 0;
    return opt;
}

}  // namespace proxgen::test
