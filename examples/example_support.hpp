// Shared by the application examples: argument parsing, image preparation (crop to a size, a
// colour or volume version of a grayscale image), reproducible noise, PSNR and a result table.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <proxgen/proxgen.hpp>

namespace example {

namespace pg = proxgen;

struct Args {
    std::string input, out;
    int iters = 300, size = 256;
};

/// <image> <outdir> [--iters N] [--size S]
inline Args parse(int argc, char** argv, int default_iters, int default_size) {
    if (argc < 3) pg::fail("usage: {} <image> <outdir> [--iters N] [--size S]", argv[0]);
    Args a{argv[1], argv[2], default_iters, default_size};
    for (int i = 3; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--iters") a.iters = std::stoi(argv[i + 1]);
        else if (flag == "--size") a.size = std::stoi(argv[i + 1]);
        else pg::fail("unknown option {}", flag);
    }
    std::filesystem::create_directories(a.out);
    return a;
}

/// The top-left size × size window, with `channels` channels: the image's own when it has them,
/// else (a grayscale input) channel c is the image shifted by 4c pixels and dimmed by 10% per
/// channel — correlated like real colour channels, never identical.
inline pg::Image prepare(const pg::Image& img, int size, int channels) {
    const int w = std::min(size, img.width() - 8), h = std::min(size, img.height());
    pg::Image out(channels == 1 ? std::vector<int>{w, h} : std::vector<int>{w, h, channels});
    for (int c = 0; c < channels; ++c)
        for (int j = 0; j < h; ++j)
            for (int i = 0; i < w; ++i) {
                double v;
                if (img.channels() >= channels) v = img(i, j, std::min(c, img.channels() - 1));
                else {
                    double g = 0;
                    for (int k = 0; k < img.channels(); ++k) g += img(i + 4 * c, j, k);
                    v = g / img.channels() * (1.0 - 0.1 * c);
                }
                out(i, j, c) = float(std::clamp(v, 0.0, 1.0));
            }
    return out;
}

inline void add_noise(pg::Image& img, float sigma, unsigned seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> n(0.0f, sigma);
    for (std::size_t i = 0; i < img.size(); ++i) img.data()[i] += n(gen);
}

inline double psnr(const pg::Image& a, const pg::Image& ref) {
    double mse = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = std::clamp(double(a.data()[i]), 0.0, 1.0) - ref.data()[i];
        mse += d * d;
    }
    return 10 * std::log10(1.0 / std::max(mse / double(a.size()), 1e-20));
}

inline pg::Image gaussian_kernel(int size, double sigma) {
    pg::Image k({size, size});
    double s = 0;
    for (int j = 0; j < size; ++j)
        for (int i = 0; i < size; ++i)
            s += k(i, j) = float(std::exp(-((i - size / 2) * (i - size / 2) + (j - size / 2) * (j - size / 2)) /
                                          (2 * sigma * sigma)));
    for (std::size_t i = 0; i < k.size(); ++i) k.data()[i] = float(k.data()[i] / s);
    return k;
}

/// Prints and returns nothing: one line per written image with its PSNR against the reference.
inline void report(const std::string& dir, const pg::Image& ref,
                   const std::vector<std::pair<std::string, pg::Image>>& images) {
    fmt::print("{:<28} {:>9}\n", "image", "PSNR[dB]");
    for (const auto& [name, img] : images) {
        pg::save_image(dir + "/" + name, img);
        fmt::print("{:<28} {:>9.2f}\n", name, psnr(img, ref));
    }
    pg::save_image(dir + "/clean.png", ref);
}

inline pg::Options options(pg::Algorithm a, int iters) {
    pg::Options opt;
    opt.algorithm = a;
    opt.max_iters = iters;
    opt.eps_abs = 1e-5;
    opt.eps_rel = 1e-5;
    opt.check_every = 10;
    return opt;
}

}  // namespace example

namespace example {

/// Circular convolution of every channel, kernel centred at floor(size/2): what pg::conv(k, x)
/// computes, written out so that the examples make their own degraded data.
inline pg::Image blur(const pg::Image& x, const pg::Image& k) {
    pg::Image out(x.sizes());
    const int W = x.width(), H = x.height();
    for (int c = 0; c < x.channels(); ++c)
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i) {
                double s = 0;
                for (int b = 0; b < k.height(); ++b)
                    for (int a = 0; a < k.width(); ++a)
                        s += k(a, b) * x(((i - a + k.width() / 2) % W + W) % W, ((j - b + k.height() / 2) % H + H) % H, c);
                out(i, j, c) = float(s);
            }
    return out;
}

}  // namespace example
