// The reference problems of ProxImaL's reference data set (its generator gen_inputs.py),
// regenerated in C++ without Python.
//
// A port of the generator's documented algorithm: counter-based splitmix64 noise, the procedural
// clean scene, the normalized Gaussian blur kernel and ProxImaL's circular-convolution convention.
// All math is float64 with the script's operation order; only the results are rounded to float32.
// make_denoise(512) reproduces the data set's clean_512.npy and denoise_b_512.npy bit for bit.
//
// Array convention: the script's array[i, j] (i = axis 0 = row, j = axis 1 = column) is Field(i, j)
// here and Image(x = j, y = i) once stored; the pixel index of the noise stream is p = i*W + j.
//
// Compile this file with -ffp-contract=off: a fused multiply-add rounds once where NumPy rounds
// twice. (Built with -march=native -ffp-contract=fast the 512² float32 outputs still matched, since
// float64 differences of an ulp rarely cross a float32 rounding boundary; the flag keeps it that way.)
#pragma once

#include <cstdint>
#include <vector>

#include <proxgen/image.hpp>

namespace proxgen::reference {

// Problem parameters, as in gen_inputs.py.
inline constexpr std::uint64_t SEED_DENOISE = 1001;
inline constexpr std::uint64_t SEED_DECONV = 2002;
inline constexpr std::uint64_t SEED_POISSON = 3003;
inline constexpr double SIGMA_DENOISE = 0.05;
inline constexpr double SIGMA_DECONV = 0.01;
inline constexpr double POISSON_PEAK = 1000.0;
inline constexpr int KERNEL_SIZE = 9;
inline constexpr double KERNEL_SIGMA = 2.0;

/// A float64 array[i, j] in C order (row-major): i = row (Halide y), j = column (Halide x).
struct Field {
    int rows = 0;
    int cols = 0;
    std::vector<double> data;

    Field() = default;
    Field(int rows_, int cols_) : rows(rows_), cols(cols_), data(std::size_t(rows_) * std::size_t(cols_), 0.0) {}
    double& operator()(int i, int j) { return data[std::size_t(i) * std::size_t(cols) + std::size_t(j)]; }
    double operator()(int i, int j) const { return data[std::size_t(i) * std::size_t(cols) + std::size_t(j)]; }

    /// Rounded to float32 in Halide's layout: Image(x = j, y = i), cols × rows.
    Image to_image() const;
};

/// z = seed + (n+1)·0x9E3779B97F4A7C15 (mod 2^64), then the splitmix64 finalizer.
std::uint64_t splitmix64(std::uint64_t seed, std::uint64_t n);
/// ((splitmix64(seed, n) >> 11) + 0.5) · 2^-53, in (0, 1).
double uniform01(std::uint64_t seed, std::uint64_t n);
/// Box–Muller: sqrt(-2 ln u1) · cos(2π u2), u1 = uniform01(seed, 2p), u2 = uniform01(seed, 2p+1).
double gauss(std::uint64_t seed, std::uint64_t p);
/// The standard-normal field g[i, j] = gauss(seed, i*cols + j).
Field gaussian_field(std::uint64_t seed, int rows, int cols);
/// The square W × W field.
Field gaussian_field(std::uint64_t seed, int W);

/// The procedural W × W scene (gradient + ripple, 4 rectangles, 4 disks), clipped to [0.02, 0.98].
Field clean_image(int W);
/// exp(-(a² + b²) / (2σ²)) on a size × size grid centred at size/2, normalized to sum 1 (the
/// normalizing sum is NumPy's pairwise summation, replicated).
Field gaussian_kernel(int size = KERNEL_SIZE, double sigma = KERNEL_SIGMA);
/// ProxImaL's circular convolution, by direct summation in float64:
///   (k ⊛ x)[i, j] = Σ_{a,b} k[a, b] · x[(i − a + kh/2) mod H, (j − b + kw/2) mod W].
Field circ_conv(const Field& k, const Field& x);

struct DenoiseProblem {
    Image clean;  ///< clean_image(W)
    Image b;      ///< clean + SIGMA_DENOISE · gaussian_field(SEED_DENOISE)
};

struct DeconvProblem {
    Image clean;   ///< clean_image(W)
    Image kernel;  ///< gaussian_kernel(9, 2), 9 × 9
    Image b;       ///< kernel ⊛ clean + SIGMA_DECONV · gaussian_field(SEED_DECONV)
};

struct PoissonProblem {
    Image clean;   ///< POISSON_PEAK · clean_image(W), in photon units
    Image kernel;  ///< gaussian_kernel(9, 2), 9 × 9
    Image b;       ///< max(0, round_half_even(λ + sqrt(λ) · g)), λ = kernel ⊛ clean, g seeded SEED_POISSON
};

DenoiseProblem make_denoise(int W);
DeconvProblem make_deconv(int W);
PoissonProblem make_poisson(int W);

}  // namespace proxgen::reference
