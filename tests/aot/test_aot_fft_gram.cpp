// The spectral x-update of the JIT (spectral::GramSolver: FFTW, src/solve/spectral.cpp) against the
// same solve through the generated FFT passes (proxgen/aot/fft.hpp): forward transform, gain
// 1/(eigenvalue · normalisation) fused into the inverse, inverse transform. The deconvolution
// x-update (KᵀK + ρI) x = rhs in the DFT basis, with the kernel's transfer function computed by
// the generated forward FFT itself, and (I + ρ∇ᵀ∇) x = rhs with Neumann grad in the DCT basis.
#include <cmath>
#include <numbers>

#include <catch2/catch.hpp>

#include <proxgen/typed/to_ir.hpp>
#include <proxgen/proxgen.hpp>

#include "../src/solve/spectral.hpp"
#include "pgfft.h"

namespace pg = proxgen;
namespace sp = proxgen::spectral;
namespace fft = proxgen::aot::fft;
using Buffer = Halide::Runtime::Buffer<float>;

namespace {

pg::Image random_image(int w, int h, unsigned seed, float lo, float hi) {
    pg::Image img(w, h);
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    for (std::size_t i = 0; i < img.size(); ++i) img.data()[i] = u(g);
    return img;
}

/// A view of an Image's samples as a runtime buffer (dense, x fastest).
Buffer view(pg::Image& img) { return Buffer(img.data(), img.width(), img.height()); }

/// max |a − b| / max |b|
double relative_error(const pg::Image& a, const pg::Image& b) {
    double d = 0, m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        d = std::max(d, double(std::abs(a.data()[i] - b.data()[i])));
        m = std::max(m, double(std::abs(b.data()[i])));
    }
    return d / m;
}

}  // namespace

TEST_CASE("fft: the deconvolution x-update through the generated passes matches the JIT's FFTW one", "[fft]") {
    const auto [W, H] = GENERATE(std::pair{512, 512}, std::pair{127, 96}, std::pair{64, 48});
    const float rho = 0.05f;
    pg::Image k = random_image(9, 9, 5u, 0.0f, 1.0f);
    float sum = 0;
    for (std::size_t i = 0; i < k.size(); ++i) sum += k.data()[i];
    for (std::size_t i = 0; i < k.size(); ++i) k.data()[i] /= sum;
    pg::Image rhs = random_image(W, H, 11u, -1.0f, 1.0f);

    auto x = pg::variable(W, H);
    sp::GramSolver jit(sp::Basis::fft, {W, H});
    jit.add_term(pg::typed::to_ir(pg::conv(k, x)), 1.0);
    jit.add_identity(rho);
    pg::Image expected;
    jit.solve(rhs, expected);

    fft::Plan plan;
    REQUIRE(plan.init(pgfft_kernels(), W, H) == proxgen::aot::Status::ok);
    // the kernel's transfer function: the kernel with its centre (floor(size/2)) at the origin,
    // wrapped around, through the same forward transform
    Buffer placed(W, H), kspec(2, H, W / 2 + 1), spec(2, H, W / 2 + 1), gain(H, W / 2 + 1), out(W, H);
    placed.fill(0.0f);
    for (int b = 0; b < 9; ++b)
        for (int a = 0; a < 9; ++a) placed(((a - 4) % W + W) % W, ((b - 4) % H + H) % H) += k(a, b);
    REQUIRE(plan.forward(placed, kspec) == proxgen::aot::Status::ok);
    for (int kx = 0; kx < W / 2 + 1; ++kx)
        for (int ky = 0; ky < H; ++ky) {
            const double t = double(kspec(0, ky, kx)) * kspec(0, ky, kx) + double(kspec(1, ky, kx)) * kspec(1, ky, kx);
            gain(ky, kx) = float(1.0 / ((t + rho) * double(W) * H));
        }
    const Buffer b = view(rhs);
    REQUIRE(plan.forward(b, spec) == proxgen::aot::Status::ok);
    REQUIRE(plan.inverse(spec, out, 1.0f, &gain) == proxgen::aot::Status::ok);
    pg::Image ours(W, H);
    std::copy(out.data(), out.data() + std::size_t(W) * H, ours.data());
    const double e = relative_error(ours, expected);
    std::printf("fft deconvolution x-update %dx%d: max relative difference from the JIT's %.1e\n", W, H, e);
    CAPTURE(W, H);
    CHECK(e < 1e-5);
}

TEST_CASE("fft: the Neumann (DCT) x-update through the generated passes matches the JIT's FFTW one", "[fft]") {
    const auto [W, H] = GENERATE(std::pair{512, 512}, std::pair{127, 96});
    const double rho = 2.0;
    pg::Image rhs = random_image(W, H, 13u, -1.0f, 1.0f);
    auto x = pg::variable(W, H);
    sp::GramSolver jit(sp::Basis::dct, {W, H});
    jit.add_term(pg::typed::to_ir(pg::grad(x)), rho);
    jit.add_identity(1.0);
    pg::Image expected;
    jit.solve(rhs, expected);

    fft::Plan plan;
    REQUIRE(plan.init(pgfft_kernels(), W, H) == proxgen::aot::Status::ok);
    // ∇ᵀ∇ (Neumann) has the DCT-II eigenvalues 4 sin²(πk/2N) per axis; idct(dct(x)) = 4WH x
    Buffer coef(H, W), gain(H, W), out(W, H);
    auto s2 = [](int k, int n) { return std::pow(std::sin(std::numbers::pi * k / (2.0 * n)), 2); };
    for (int kx = 0; kx < W; ++kx)
        for (int ky = 0; ky < H; ++ky)
            gain(ky, kx) = float(1.0 / ((1.0 + rho * 4.0 * (s2(kx, W) + s2(ky, H))) * 4.0 * W * H));
    const Buffer b = view(rhs);
    REQUIRE(plan.dct(b, coef) == proxgen::aot::Status::ok);
    REQUIRE(plan.idct(coef, out, 1.0f, &gain) == proxgen::aot::Status::ok);
    pg::Image ours(W, H);
    std::copy(out.data(), out.data() + std::size_t(W) * H, ours.data());
    const double e = relative_error(ours, expected);
    std::printf("dct Neumann x-update %dx%d: max relative difference from the JIT's %.1e\n", W, H, e);
    CAPTURE(W, H);
    CHECK(e < 1e-5);
}
