// The generated FFT passes and their driver (proxgen/aot/fft.hpp) against FFTW (single precision,
// FFTW_ESTIMATE): forward and inverse real FFT, DCT-II and DCT-III, with and without a gain table,
// and the round trips, on smooth sizes, odd widths and prime lengths (Bluestein); then the
// driver's status codes. Links the generated library and the Halide runtime only.
#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <cmath>
#include <cstdio>
#include <random>

#include <catch2/catch.hpp>

#include "pgfft.h"

namespace fft = proxgen::aot::fft;
using proxgen::aot::Status;
using Buffer = Halide::Runtime::Buffer<float>;
using Spectrum = std::vector<std::complex<float>>;

// the call's status, with the driver's sentence when it is not ok
#define REQUIRE_OK(call)                      \
    do {                                      \
        const Status status_ = (call);        \
        INFO(plan.last_error());              \
        REQUIRE(status_ == Status::ok);       \
    } while (false)

namespace {

Buffer random_image(int w, int h, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    Buffer b(w, h);
    b.for_each_value([&](float& v) { v = u(g); });
    return b;
}

/// max |a − b| / max |b| over the pairs the caller visits.
struct RelativeError {
    double diff = 0, scale = 0;
    void add(double a, double b) {
        diff = std::max(diff, std::abs(a - b));
        scale = std::max(scale, std::abs(b));
    }
    double value() const { return scale > 0 ? diff / scale : diff; }
};

/// FFTW's r2c of a W×H image: (W/2+1) × H complex, kx fastest.
Spectrum fftw_r2c(const Buffer& img) {
    const int W = img.width(), H = img.height();
    std::vector<float> in(img.data(), img.data() + std::size_t(W) * H);
    Spectrum out(std::size_t(W / 2 + 1) * H);
    fftwf_plan p = fftwf_plan_dft_r2c_2d(H, W, in.data(), reinterpret_cast<fftwf_complex*>(out.data()), FFTW_ESTIMATE);
    fftwf_execute(p);
    fftwf_destroy_plan(p);
    return out;
}

std::vector<float> fftw_c2r(Spectrum spectrum, int W, int H) {
    std::vector<float> out(std::size_t(W) * H);
    fftwf_plan p = fftwf_plan_dft_c2r_2d(H, W, reinterpret_cast<fftwf_complex*>(spectrum.data()), out.data(),
                                         FFTW_ESTIMATE);
    fftwf_execute(p);  // destroys its (copied) input
    fftwf_destroy_plan(p);
    return out;
}

std::vector<float> fftw_r2r(const float* data, int W, int H, fftwf_r2r_kind kind) {
    std::vector<float> in(data, data + std::size_t(W) * H), out(in.size());
    fftwf_plan p = fftwf_plan_r2r_2d(H, W, in.data(), out.data(), kind, kind, FFTW_ESTIMATE);
    fftwf_execute(p);
    fftwf_destroy_plan(p);
    return out;
}

/// Our transposed coefficients (H, W) → FFTW's order (kx fastest).
std::vector<float> untranspose(const Buffer& c) {
    const int H = c.dim(0).extent(), W = c.dim(1).extent();
    std::vector<float> out(std::size_t(W) * H);
    for (int kx = 0; kx < W; ++kx)
        for (int ky = 0; ky < H; ++ky) out[std::size_t(ky) * W + kx] = c(ky, kx);
    return out;
}

struct Errors {
    double forward, inverse, round_trip, inverse_gain, dct, idct, dct_round_trip, idct_gain;
};

Errors compare_with_fftw(int W, int H) {
    fft::Plan plan;
    REQUIRE_OK(plan.init(pgfft_kernels(), W, H));
    const int hx = W / 2 + 1;
    const Buffer img = random_image(W, H, unsigned(W * 131 + H));
    Errors e{};

    // r2c, and c2r of FFTW's own spectrum
    Buffer spec(2, H, hx), back(W, H);
    REQUIRE_OK(plan.forward(img, spec));
    const auto ref = fftw_r2c(img);
    RelativeError f;
    for (int ky = 0; ky < H; ++ky)
        for (int kx = 0; kx < hx; ++kx) {
            const auto& r = ref[std::size_t(ky) * hx + kx];
            f.add(spec(0, ky, kx), r.real());
            f.add(spec(1, ky, kx), r.imag());
        }
    e.forward = f.value();
    Buffer theirs(2, H, hx);
    for (int ky = 0; ky < H; ++ky)
        for (int kx = 0; kx < hx; ++kx) {
            theirs(0, ky, kx) = ref[std::size_t(ky) * hx + kx].real();
            theirs(1, ky, kx) = ref[std::size_t(ky) * hx + kx].imag();
        }
    REQUIRE_OK(plan.inverse(theirs, back));
    const auto ref_back = fftw_c2r(ref, W, H);
    RelativeError inv, trip;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) inv.add(back(x, y), ref_back[std::size_t(y) * W + x]);
    e.inverse = inv.value();
    REQUIRE_OK(plan.inverse(spec, back, 1.0f / (float(W) * float(H))));
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) trip.add(back(x, y), img(x, y));
    e.round_trip = trip.value();

    // c2r of the spectrum times a gain table (a transfer function's reciprocal, say): symmetric
    // under ky → −ky (as a real operator's |K̂|² is), else the product is no real image's spectrum
    const Buffer noise = random_image(H, hx, 7u, 0.5f, 2.0f);
    Buffer gain(H, hx);
    for (int ky = 0; ky < H; ++ky)
        for (int kx = 0; kx < hx; ++kx) gain(ky, kx) = 0.5f * (noise(ky, kx) + noise((H - ky) % H, kx));
    auto scaled = ref;
    for (int ky = 0; ky < H; ++ky)
        for (int kx = 0; kx < hx; ++kx) scaled[std::size_t(ky) * hx + kx] *= gain(ky, kx);
    const auto ref_gain = fftw_c2r(scaled, W, H);
    REQUIRE_OK(plan.inverse(theirs, back, 0.5f, &gain));
    RelativeError g;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) g.add(back(x, y), 0.5f * ref_gain[std::size_t(y) * W + x]);
    e.inverse_gain = g.value();

    // DCT-II, DCT-III, round trip, gain
    Buffer coef(H, W), x(W, H);
    REQUIRE_OK(plan.dct(img, coef));
    const auto ref_dct = fftw_r2r(img.data(), W, H, FFTW_REDFT10);
    const auto ours_dct = untranspose(coef);
    RelativeError d, di, dt, dg;
    for (std::size_t i = 0; i < ref_dct.size(); ++i) d.add(ours_dct[i], ref_dct[i]);
    e.dct = d.value();
    Buffer their_coef(H, W);
    for (int kx = 0; kx < W; ++kx)
        for (int ky = 0; ky < H; ++ky) their_coef(ky, kx) = ref_dct[std::size_t(ky) * W + kx];
    REQUIRE_OK(plan.idct(their_coef, x));
    const auto ref_idct = fftw_r2r(ref_dct.data(), W, H, FFTW_REDFT01);
    for (int yy = 0; yy < H; ++yy)
        for (int xx = 0; xx < W; ++xx) di.add(x(xx, yy), ref_idct[std::size_t(yy) * W + xx]);
    e.idct = di.value();
    REQUIRE_OK(plan.idct(coef, x, 1.0f / (4.0f * float(W) * float(H))));
    for (int yy = 0; yy < H; ++yy)
        for (int xx = 0; xx < W; ++xx) dt.add(x(xx, yy), img(xx, yy));
    e.dct_round_trip = dt.value();
    const Buffer dgain = random_image(H, W, 9u, 0.5f, 2.0f);
    auto gained = ref_dct;
    for (int kx = 0; kx < W; ++kx)
        for (int ky = 0; ky < H; ++ky) gained[std::size_t(ky) * W + kx] *= dgain(ky, kx);
    const auto ref_idct_gain = fftw_r2r(gained.data(), W, H, FFTW_REDFT01);
    REQUIRE_OK(plan.idct(their_coef, x, 1.0f, &dgain));
    for (int yy = 0; yy < H; ++yy)
        for (int xx = 0; xx < W; ++xx) dg.add(x(xx, yy), ref_idct_gain[std::size_t(yy) * W + xx]);
    e.idct_gain = dg.value();
    return e;
}

}  // namespace

TEST_CASE("fft: the generated passes match FFTW within 1e-5 relative", "[fft]") {
    // smooth, odd widths, prime lengths along either axis (Bluestein), degenerate axes
    const auto [W, H] = GENERATE(std::pair{8, 8}, std::pair{64, 48}, std::pair{127, 96}, std::pair{512, 512},
                                 std::pair{1000, 750}, std::pair{254, 22}, std::pair{22, 254}, std::pair{11, 13},
                                 std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 7}, std::pair{7, 1}, std::pair{3, 5},
                                 std::pair{14, 49});
    const Errors e = compare_with_fftw(W, H);
    std::printf("fft %4dx%-4d max relative error: forward %.1e inverse %.1e round trip %.1e inverse+gain %.1e | "
                "dct %.1e idct %.1e round trip %.1e idct+gain %.1e\n",
                W, H, e.forward, e.inverse, e.round_trip, e.inverse_gain, e.dct, e.idct, e.dct_round_trip, e.idct_gain);
    CAPTURE(W, H);
    for (double v : {e.forward, e.inverse, e.round_trip, e.inverse_gain, e.dct, e.idct, e.dct_round_trip, e.idct_gain})
        CHECK(v < 1e-5);
}

TEST_CASE("fft: bad input returns a status and a sentence", "[fft]") {
    fft::Plan plan;
    Buffer img(8, 8), spec(2, 8, 5);
    CHECK(plan.forward(img, spec) == Status::not_initialized);
    CHECK(std::string(plan.last_error()).find("before a successful init") != std::string::npos);
    CHECK(plan.init(pgfft_kernels(), 0, 8) == Status::invalid_argument);
    fft::Kernels old = pgfft_kernels();
    old.version = 0;
    CHECK(plan.init(old, 8, 8) == Status::bad_library);
    fft::Kernels gpu = pgfft_kernels();
    gpu.gpu = true;
    CHECK(plan.init(gpu, 8, 8) == Status::bad_library);
    CHECK(std::string(plan.last_error()).find("GPU") != std::string::npos);
    fft::Kernels missing = pgfft_kernels();
    missing.r2c_post = nullptr;
    CHECK(plan.init(missing, 8, 8) == Status::bad_library);
    CHECK(std::string(plan.last_error()).find("r2c_post") != std::string::npos);
    REQUIRE_OK(plan.init(pgfft_kernels(), 8, 8));
    Buffer wrong(8, 7);
    CHECK(plan.forward(wrong, spec) == Status::shape_mismatch);
    CHECK(std::string(plan.last_error()).find("image") != std::string::npos);
    Buffer transposed_spec(2, 5, 8);
    CHECK(plan.forward(img, transposed_spec) == Status::shape_mismatch);
    Buffer empty;
    CHECK(plan.inverse(empty, img) == Status::invalid_argument);
    CHECK(plan.inverse(spec, img, NAN) == Status::non_finite_input);
    Buffer both(2 * 8 * 5);  // an image and a spectrum sharing memory
    Buffer image_part(both.data(), 8, 8), spectrum_part(both.data() + 16, 2, 8, 5);
    CHECK(plan.forward(image_part, spectrum_part) == Status::invalid_argument);
    CHECK(std::string(plan.last_error()).find("overlap") != std::string::npos);
    CHECK(plan.forward(img, spec) == Status::ok);
}
