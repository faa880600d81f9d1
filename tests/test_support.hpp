// Helpers shared by the tests: seeded random images and float64 inner products.
#pragma once

#include <cmath>
#include <random>
#include <string>

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

#ifdef PROXGEN_SHARED_DIR
inline std::string shared_dir() { return PROXGEN_SHARED_DIR; }
#endif

/// Options that run exactly `iters` iterations of `a` (no tolerance stop).
inline Options fixed_iterations(Algorithm a, int iters) {
    Options opt;
    opt.algorithm = a;
    opt.max_iters = iters;
    opt.eps_abs = opt.eps_rel = 0;
    return opt;
}

}  // namespace proxgen::test
