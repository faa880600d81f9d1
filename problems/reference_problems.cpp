// A port of gen_inputs.py, the generator of ProxImaL's reference data set. Each expression keeps NumPy's evaluation order (left
// to right, one rounding per operation). The float64 values agree with the script's to an ulp or
// two where transcendental functions enter (NumPy's SIMD exp/log/sin/cos are not the C library's)
// and to ~1e-15 after circ_conv, which sums directly where the script multiplies FFTs; the float32
// results, which is all the problems return, match bit for bit (checked at 512² and 100²).
#include "reference_problems.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace proxgen::reference {

Image Field::to_image() const {
    Image img({cols, rows});
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) img(j, i) = static_cast<float>((*this)(i, j));
    return img;
}

std::uint64_t splitmix64(std::uint64_t seed, std::uint64_t n) {
    std::uint64_t z = seed + (n + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double uniform01(std::uint64_t seed, std::uint64_t n) {
    // (z >> 11) < 2^53 converts exactly; "+ 0.5" rounds half to even above 2^52, as in NumPy.
    return (static_cast<double>(splitmix64(seed, n) >> 11) + 0.5) * 0x1p-53;
}

double gauss(std::uint64_t seed, std::uint64_t p) {
    const double u1 = uniform01(seed, 2 * p);
    const double u2 = uniform01(seed, 2 * p + 1);
    const double two_pi = 2.0 * std::numbers::pi;  // NumPy: (2.0 * np.pi) * u2
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
}

Field gaussian_field(std::uint64_t seed, int rows, int cols) {
    Field g(rows, cols);
    for (std::size_t p = 0; p < g.data.size(); ++p) g.data[p] = gauss(seed, p);
    return g;
}

Field gaussian_field(std::uint64_t seed, int W) { return gaussian_field(seed, W, W); }

Field clean_image(int W) {
    struct Rect {
        double u0, u1, v0, v1, delta;
    };
    struct Disk {
        double cu, cv, r, delta;
    };
    constexpr std::array<Rect, 4> rects{{
        {0.10, 0.35, 0.08, 0.40, +0.35},
        {0.55, 0.90, 0.15, 0.30, -0.15},
        {0.20, 0.28, 0.55, 0.95, +0.25},
        {0.62, 0.80, 0.50, 0.85, +0.20},
    }};
    constexpr std::array<Disk, 4> disks{{
        {0.45, 0.45, 0.12, +0.30},
        {0.78, 0.22, 0.07, -0.12},
        {0.30, 0.75, 0.09, -0.10},
        {0.85, 0.70, 0.05, +0.35},
    }};
    const double two_pi = 2.0 * std::numbers::pi;

    Field img(W, W);
    for (int i = 0; i < W; ++i) {
        const double u = (static_cast<double>(i) + 0.5) / W;  // varies along axis 0 (rows)
        for (int j = 0; j < W; ++j) {
            const double v = (static_cast<double>(j) + 0.5) / W;  // varies along axis 1 (cols)
            double s = 0.20 + 0.30 * u;
            s = s + 0.15 * v;
            const double phase = 1.5 * u + 0.7 * v;
            s = s + 0.06 * std::sin(two_pi * phase);
            // img += d * mask adds d or +0.0 (d * False); adding +0.0 leaves s unchanged.
            for (const Rect& q : rects)
                if (u >= q.u0 && u < q.u1 && v >= q.v0 && v < q.v1) s = s + q.delta;
            for (const Disk& d : disks) {
                const double du = u - d.cu, dv = v - d.cv;
                const double r2 = du * du + dv * dv;  // x**2 is x*x in NumPy
                if (r2 < d.r * d.r) s = s + d.delta;
            }
            img(i, j) = std::clamp(s, 0.02, 0.98);
        }
    }
    return img;
}

namespace {

// NumPy's pairwise_sum for a contiguous run of n < 128 doubles (the full reduction of a small
// C-contiguous array): 8 strided partial sums, combined as a tree, then the tail added in order.
double numpy_small_sum(const std::vector<double>& a) {
    const std::size_t n = a.size();
    if (n >= 128) throw std::logic_error("numpy_small_sum: only the unblocked case is replicated");
    if (n < 8) {
        double res = 0.0;  // NumPy starts this branch from -0.0; equal for any non-empty sum
        for (double x : a) res += x;
        return res;
    }
    std::array<double, 8> r{};
    for (std::size_t k = 0; k < 8; ++k) r[k] = a[k];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
        for (std::size_t k = 0; k < 8; ++k) r[k] += a[i + k];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
}

}  // namespace

Field gaussian_kernel(int size, double sigma) {
    Field k(size, size);
    const double denom = 2 * sigma * sigma;
    for (int a = 0; a < size; ++a) {
        const double da = static_cast<double>(a - size / 2);
        for (int b = 0; b < size; ++b) {
            const double db = static_cast<double>(b - size / 2);
            k(a, b) = std::exp(-(da * da + db * db) / denom);
        }
    }
    const double total = numpy_small_sum(k.data);
    for (double& x : k.data) x = x / total;
    return k;
}

// The script computes Re(ifft2(fft2(x) · otf(k))): the same sum, with float64 FFT rounding of
// order 1e-16 · max|x| per pixel. Direct summation in float64 differs from it by a few float64
// ulps, which changes a float32 result only where it lies within that distance of a float32
// rounding boundary (a one-ulp difference at a handful of pixels, if any).
Field circ_conv(const Field& k, const Field& x) {
    const int H = x.rows, W = x.cols, kh = k.rows, kw = k.cols;
    const int ch = kh / 2, cw = kw / 2;
    Field y(H, W);
    auto wrap = [](int v, int n) {
        v %= n;
        return v < 0 ? v + n : v;
    };
    for (int i = 0; i < H; ++i) {
        for (int j = 0; j < W; ++j) {
            double s = 0.0;
            for (int a = 0; a < kh; ++a) {
                const int ii = wrap(i - a + ch, H);
                for (int b = 0; b < kw; ++b) s += k(a, b) * x(ii, wrap(j - b + cw, W));
            }
            y(i, j) = s;
        }
    }
    return y;
}

DenoiseProblem make_denoise(int W) {
    const Field x = clean_image(W);
    const Field g = gaussian_field(SEED_DENOISE, W);
    Field b(W, W);
    for (std::size_t p = 0; p < b.data.size(); ++p) b.data[p] = x.data[p] + SIGMA_DENOISE * g.data[p];
    return {x.to_image(), b.to_image()};
}

DeconvProblem make_deconv(int W) {
    const Field x = clean_image(W);
    const Field k = gaussian_kernel(KERNEL_SIZE, KERNEL_SIGMA);
    const Field kx = circ_conv(k, x);
    const Field g = gaussian_field(SEED_DECONV, W);
    Field b(W, W);
    for (std::size_t p = 0; p < b.data.size(); ++p) b.data[p] = kx.data[p] + SIGMA_DECONV * g.data[p];
    return {x.to_image(), k.to_image(), b.to_image()};
}

PoissonProblem make_poisson(int W) {
    Field x = clean_image(W);
    for (double& v : x.data) v = POISSON_PEAK * v;
    const Field k = gaussian_kernel(KERNEL_SIZE, KERNEL_SIGMA);
    const Field lam = circ_conv(k, x);
    const Field g = gaussian_field(SEED_POISSON, W);
    Field b(W, W);
    for (std::size_t p = 0; p < b.data.size(); ++p) {
        const double l = lam.data[p];
        const double r = std::nearbyint(l + std::sqrt(l) * g.data[p]);  // np.round: half to even
        b.data[p] = (0.0 >= r) ? 0.0 : r;                               // np.maximum(0.0, r)
    }
    return {x.to_image(), k.to_image(), b.to_image()};
}

}  // namespace proxgen::reference
