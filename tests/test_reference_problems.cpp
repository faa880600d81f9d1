// The C++ port of shared/reference/gen_inputs.py (reference_problems.hpp) regenerates the
// reference problems: the denoising inputs bit for bit against the shipped .npy files, the
// deblurring and Poisson inputs against checksums of the script's own output.
//
// CMake lines for tests/CMakeLists.txt (the generator is a small library so other tests can use it):
//
//   # The reference problems of shared/reference/gen_inputs.py, regenerated without Python.
//   add_library(proxgen_reference_problems STATIC reference_problems.cpp)
//   target_include_directories(proxgen_reference_problems PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
//   target_link_libraries(proxgen_reference_problems PUBLIC proxgen)
//   # NumPy rounds every multiply and add; a fused multiply-add would not.
//   target_compile_options(proxgen_reference_problems PRIVATE
//     $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-ffp-contract=off>)
//   add_executable(test_reference_problems test_reference_problems.cpp $<TARGET_OBJECTS:proxgen_catch_main>)
//   target_link_libraries(test_reference_problems PRIVATE proxgen_reference_problems Catch2::Catch2)
//   target_compile_definitions(test_reference_problems PRIVATE PROXGEN_SHARED_DIR="${PROJECT_SOURCE_DIR}/../shared")
//   catch_discover_tests(test_reference_problems)
//
// Where the expected numbers come from: gen_inputs.py run under NumPy 1.24.2 (Debian 12's
// python3-numpy), whose make_denoise(512) equals clean_512.npy and denoise_b_512.npy bit for bit.
// The script prints means accumulated in float32 (e.g. "deconv 512 (9, 9) 1.0 0.47498462"); the
// values below are float64 sums of the same float32 arrays (save_inputs.py's manifest "stats").
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

// Only the image I/O part of <proxgen/proxgen.hpp>: this test needs nothing of the DSL.
#include <proxgen/io/image_io.hpp>

#include "reference_problems.hpp"

namespace pg = proxgen;
namespace ref = proxgen::reference;

namespace {

std::string reference_file(const std::string& name) { return std::string(PROXGEN_SHARED_DIR) + "/reference/" + name; }

/// save_inputs.py's stats(): float64 sum, 2-norm, min, max and the first four values in C order
/// (row 0, columns 0..3 = Image(0..3, 0)).
struct Stats {
    double sum = 0, l2 = 0, min = 0, max = 0;
    std::array<double, 4> first4{};
    double mean = 0, stddev = 0;
};

Stats stats(const pg::Image& a) {
    Stats s;
    s.min = s.max = a.data()[0];
    double sq = 0;
    for (std::size_t p = 0; p < a.size(); ++p) {
        const double v = a.data()[p];
        s.sum += v;
        sq += v * v;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
    }
    s.l2 = std::sqrt(sq);
    for (int q = 0; q < 4; ++q) s.first4[q] = a.data()[q];
    const double n = static_cast<double>(a.size());
    s.mean = s.sum / n;
    double var = 0;
    for (std::size_t p = 0; p < a.size(); ++p) var += (a.data()[p] - s.mean) * (a.data()[p] - s.mean);
    s.stddev = std::sqrt(var / n);
    return s;
}

/// Expected stats as written by NumPy. Sums only differ by summation order (relative 1e-12 is
/// generous for 2.6e5 terms); min, max and the first values are float32 values, compared exactly.
void check_stats(const pg::Image& a, double sum, double l2, double min, double max, std::array<double, 4> first4) {
    const Stats s = stats(a);
    CHECK(s.sum == Approx(sum).epsilon(1e-12));
    CHECK(s.l2 == Approx(l2).epsilon(1e-12));
    CHECK(s.min == min);
    CHECK(s.max == max);
    for (int q = 0; q < 4; ++q) CHECK(s.first4[q] == first4[q]);
}

struct Difference {
    long count = 0;       ///< pixels whose float32 values differ
    double max_abs = 0;   ///< largest |a − b|
    long max_ulps = 0;    ///< largest distance in float32 ulps
};

Difference difference(const pg::Image& a, const pg::Image& b) {
    Difference d;
    for (int y = 0; y < a.height(); ++y) {
        for (int x = 0; x < a.width(); ++x) {
            const float p = a(x, y), q = b(x, y);
            if (p == q) continue;
            ++d.count;
            d.max_abs = std::max(d.max_abs, std::fabs(double(p) - double(q)));
            // Same sign here (all values are positive), so the bit patterns are ordered.
            d.max_ulps = std::max(d.max_ulps, std::labs(long(std::bit_cast<std::int32_t>(p)) -
                                                         long(std::bit_cast<std::int32_t>(q))));
        }
    }
    return d;
}

}  // namespace

TEST_CASE("splitmix64, uniform01 and gauss follow the documented stream", "[reference]") {
    // The published SplitMix64 outputs for seed 0 (state += golden gamma, then the finalizer).
    CHECK(ref::splitmix64(0, 0) == 0xE220A8397B1DCDAFull);
    CHECK(ref::splitmix64(0, 1) == 0x6E789E6AA1B965F4ull);
    CHECK(ref::splitmix64(0, 2) == 0x06C45D188009454Full);
    // Counter-based: stream n of seed s starts where stream n−1 of seed s + γ would.
    CHECK(ref::splitmix64(1001 + 0x9E3779B97F4A7C15ull, 4) == ref::splitmix64(1001, 5));

    for (std::uint64_t n = 0; n < 1000; ++n) {
        const double u = ref::uniform01(7, n);
        REQUIRE(u > 0.0);
        REQUIRE(u < 1.0);
    }
    CHECK(ref::uniform01(0, 0) == (double(0xE220A8397B1DCDAFull >> 11) + 0.5) * 0x1p-53);

    // gen_inputs.gaussian_field(1001, (1, 4)) under NumPy 1.24. NumPy's SIMD log/cos and the C
    // library's may differ by an ulp in float64, hence the margin (float32 results are unaffected:
    // see the next test).
    const std::array<double, 4> g0{0.191849142074025, -1.7099744398587207, -0.43633509873264636, -1.832314485332812};
    const ref::Field g = ref::gaussian_field(ref::SEED_DENOISE, 1, 4);
    for (int j = 0; j < 4; ++j) CHECK(g(0, j) == Approx(g0[j]).margin(1e-15).epsilon(0));
    // p = i*W + j: row 1 of a W-wide field continues the stream at p = W.
    const ref::Field g2 = ref::gaussian_field(ref::SEED_DENOISE, 3, 5);
    CHECK(g2(1, 2) == ref::gauss(ref::SEED_DENOISE, 7));
    CHECK(g2(2, 0) == ref::gauss(ref::SEED_DENOISE, 10));
}

TEST_CASE("make_denoise(512) reproduces clean_512.npy and denoise_b_512.npy", "[reference]") {
    const ref::DenoiseProblem d = ref::make_denoise(512);
    const pg::Image clean = pg::load_image(reference_file("clean_512.npy"));
    const pg::Image b = pg::load_image(reference_file("denoise_b_512.npy"));
    REQUIRE(d.clean.sizes() == clean.sizes());
    REQUIRE(d.b.sizes() == b.sizes());
    REQUIRE(clean.sizes() == std::vector<int>{512, 512});

    // Bit-for-bit. The float64 intermediates may differ from NumPy's by an ulp or two (its SIMD
    // log/cos/sin are not the C library's), so a float32 result can only change where the float64
    // value lies within ~1e-16 of a float32 rounding boundary (spacing ~3e-8 near 0.5): about
    // 1e-8 per pixel, i.e. none expected among 2.6e5 pixels, and none occur. Should a different
    // C library ever produce some, they are one-ulp differences (the second check), not a porting
    // error; a porting error moves many pixels by far more.
    const Difference dc = difference(d.clean, clean);
    const Difference db = difference(d.b, b);
    INFO("clean: " << dc.count << " differing pixels, max |diff| " << dc.max_abs << ", max " << dc.max_ulps << " ulp");
    INFO("b: " << db.count << " differing pixels, max |diff| " << db.max_abs << ", max " << db.max_ulps << " ulp");
    CHECK(dc.max_ulps <= 1);
    CHECK(db.max_ulps <= 1);
    CHECK(dc.count == 0);
    CHECK(db.count == 0);

    // Layout: array[i, j] is Image(x = j, y = i); the scene's gradient 0.30·u runs down the rows
    // (y) and 0.15·v along the columns (x), so the top-left corner is darker than either side.
    CHECK(d.clean(0, 0) < d.clean(0, 511));  // u grows with the row
    CHECK(d.clean(0, 0) < d.clean(511, 0));  // v grows with the column
    // The script's printout: "denoise 512 0.475001 0.47500414 0.15472752" (float32 accumulation).
    const Stats sc = stats(d.clean), sb = stats(d.b);
    CHECK(sc.mean == Approx(0.4750009973422493).epsilon(1e-12));
    CHECK(sb.mean == Approx(0.47500409770717056).epsilon(1e-12));
    CHECK(sb.stddev == Approx(0.15472751926270664).epsilon(1e-10));
}

TEST_CASE("gaussian_kernel(9, 2) sums to 1 and is symmetric and peaks at its centre", "[reference]") {
    const ref::Field k = ref::gaussian_kernel(ref::KERNEL_SIZE, ref::KERNEL_SIGMA);
    REQUIRE(k.rows == 9);
    REQUIRE(k.cols == 9);
    double sum = 0;
    for (double v : k.data) sum += v;
    CHECK(std::fabs(sum - 1.0) <= 1e-15);  // 81 terms normalized by their own sum

    const pg::Image kf = ref::make_deconv(16).kernel;  // the kernel as the problems store it
    REQUIRE(kf.sizes() == std::vector<int>{9, 9});
    double sumf = 0;
    for (int a = 0; a < 9; ++a) {
        for (int b = 0; b < 9; ++b) {
            sumf += kf(b, a);
            CHECK(kf(b, a) == kf(a, b));          // transpose
            CHECK(kf(b, a) == kf(8 - b, a));      // mirror in x
            CHECK(kf(b, a) == kf(b, 8 - a));      // mirror in y
            CHECK(kf(b, a) <= kf(4, 4));          // peak at the centre (kh//2, kw//2)
            CHECK(kf(b, a) == static_cast<float>(k(a, b)));
        }
    }
    // Rounding each of 81 weights to float32 moves the sum by at most 81 · 2^-24 · max weight.
    CHECK(std::fabs(sumf - 1.0) <= 81 * 0x1p-24 * kf(4, 4));
    // save_inputs.py's stats of the float32 kernel.
    check_stats(kf, 0.9999999965075403, 0.14759008988394212, 0.00076344731496647, 0.04168281331658363,
                {0.00076344731496647, 0.0018314149929210544, 0.0034215336199849844, 0.0049783019348979});
}

TEST_CASE("circ_conv follows ProxImaL's conv(k, x) convention", "[reference]") {
    // (k ⊛ x)[i, j] = Σ k[a, b] x[(i − a + kh/2) mod H, (j − b + kw/2) mod W]
    const int H = 7, W = 10;
    ref::Field k(3, 3);
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) k(a, b) = 1 + a * 3 + b;  // asymmetric: 1..9

    SECTION("a delta at (i0, j0) becomes the kernel centred there, wrapping around") {
        ref::Field x(H, W);
        const int i0 = 0, j0 = 9;  // on an edge, so the kernel wraps in both axes
        x(i0, j0) = 1.0;
        const ref::Field y = ref::circ_conv(k, x);
        double total = 0;
        for (double v : y.data) total += v;
        CHECK(total == 45.0);
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
                CHECK(y(((i0 + a - 1) % H + H) % H, ((j0 + b - 1) % W + W) % W) == k(a, b));
    }
    SECTION("a single off-centre tap shifts the image") {
        ref::Field shift(3, 3);
        shift(0, 2) = 1.0;  // a = 0, b = 2: y[i, j] = x[i + 1, j − 1]
        ref::Field x(H, W);
        for (int i = 0; i < H; ++i)
            for (int j = 0; j < W; ++j) x(i, j) = 100 * i + j;
        const ref::Field y = ref::circ_conv(shift, x);
        for (int i = 0; i < H; ++i)
            for (int j = 0; j < W; ++j) CHECK(y(i, j) == x((i + 1) % H, (j - 1 + W) % W));
    }
}

TEST_CASE("make_deconv(512) matches the script's blurred, noisy observation", "[reference]") {
    const ref::DeconvProblem p = ref::make_deconv(512);
    REQUIRE(p.clean.sizes() == std::vector<int>{512, 512});
    REQUIRE(p.b.sizes() == std::vector<int>{512, 512});
    CHECK(difference(p.clean, pg::load_image(reference_file("clean_512.npy"))).count == 0);

    // The script's checksums (FFT convolution there, direct summation here: the float64 values
    // differ by ≤ 1e-15, below half a float32 ulp from every rounding boundary at this size, so
    // the float32 arrays agree exactly — checked pixel by pixel against the script's output
    // when this port was written). Printout: "deconv 512 (9, 9) 1.0 0.47498462".
    check_stats(p.b, 124514.36679582298, 254.01400088959898, 0.19600610435009003, 0.8979376554489136,
                {0.3870721161365509, 0.343271940946579, 0.34449371695518494, 0.31685420870780945});
    const Stats sb = stats(p.b);
    CHECK(sb.mean == Approx(0.4749846145470542).epsilon(1e-12));

    // Derived: blurring keeps the mean (kernel sum 1), so mean(b) = mean(clean) + σ·mean(g).
    const ref::Field g = ref::gaussian_field(ref::SEED_DECONV, 512);
    double gmean = 0;
    for (double v : g.data) gmean += v;
    gmean /= static_cast<double>(g.data.size());
    const double clean_mean = stats(p.clean).mean;
    CHECK(sb.mean == Approx(clean_mean + ref::SIGMA_DECONV * gmean).margin(1e-7));  // float32 storage
    // and the residual against the blurred scene is the noise, σ = 0.01.
    const ref::Field kx = ref::circ_conv(ref::gaussian_kernel(), ref::clean_image(512));
    double r2 = 0, rmax = 0;
    for (int i = 0; i < 512; ++i) {
        for (int j = 0; j < 512; ++j) {
            const double r = p.b(j, i) - kx(i, j) - ref::SIGMA_DECONV * g(i, j);
            rmax = std::max(rmax, std::fabs(r));
            const double n = p.b(j, i) - kx(i, j);
            r2 += n * n;
        }
    }
    CHECK(rmax <= 0x1p-24);  // only the float32 rounding of b (values < 1: half-ulp ≤ 2^-25)
    CHECK(std::sqrt(r2 / (512.0 * 512.0)) == Approx(ref::SIGMA_DECONV).epsilon(0.01));
}

TEST_CASE("make_poisson(512) gives non-negative integer counts around PEAK · (k ⊛ clean)", "[reference]") {
    const ref::PoissonProblem p = ref::make_poisson(512);
    REQUIRE(p.b.sizes() == std::vector<int>{512, 512});
    REQUIRE(p.kernel.sizes() == std::vector<int>{9, 9});

    // clean in photon units: float32(PEAK · clean64).
    const ref::Field clean64 = ref::clean_image(512);
    for (int i = 0; i < 512; i += 37)
        for (int j = 0; j < 512; j += 41) CHECK(p.clean(j, i) == static_cast<float>(ref::POISSON_PEAK * clean64(i, j)));
    check_stats(p.clean, 124518661.4263916, 254461.62813116005, 201.24937438964844, 957.7415771484375,
                {201.24937438964844, 202.05767822265625, 202.86587524414062, 203.6739501953125});

    bool all_nonneg_integers = true;
    for (std::size_t q = 0; q < p.b.size(); ++q) {
        const float v = p.b.data()[q];
        all_nonneg_integers = all_nonneg_integers && v >= 0.0f && v == std::nearbyint(v);
    }
    CHECK(all_nonneg_integers);
    // The script's checksums; printout "poisson 512 170.0 936.0 474.97665" (float32 mean).
    check_stats(p.b, 124512286.0, 254196.75947973845, 170.0, 936.0, {396.0, 333.0, 358.0, 291.0});
    const Stats sb = stats(p.b);
    CHECK(sb.sum == 124512286.0);  // integer counts: the float64 sum is exact

    // Derived: mean(b) ≈ PEAK · mean(clean), since the blur keeps the mean; the noise √λ·g moves
    // it by about √(mean λ)/W ≈ 0.043 (1 σ), so 4 σ bounds it.
    const double peak_mean = ref::POISSON_PEAK * stats(ref::make_denoise(512).clean).mean;
    CHECK(std::fabs(sb.mean - peak_mean) <= 4 * std::sqrt(peak_mean) / 512);
    // Tighter: given the noise, only rounding is left, uniform in ±0.5 (σ = 0.29 per pixel, 5.6e-4
    // for the mean). Catches floor/ceil in place of round-half-even.
    ref::Field x = clean64;
    for (double& v : x.data) v *= ref::POISSON_PEAK;
    const ref::Field lam = ref::circ_conv(ref::gaussian_kernel(), x);
    const ref::Field g = ref::gaussian_field(ref::SEED_POISSON, 512);
    double noisy = 0, lam_min = lam.data[0];
    for (std::size_t q = 0; q < lam.data.size(); ++q) {
        noisy += lam.data[q] + std::sqrt(lam.data[q]) * g.data[q];
        lam_min = std::min(lam_min, lam.data[q]);
    }
    noisy /= static_cast<double>(lam.data.size());
    CHECK(std::fabs(sb.mean - noisy) <= 4 * 0.2887 / 512);
    CHECK(lam_min >= 20.0);  // the script's premise for the rounded-Gaussian approximation
}

TEST_CASE("W = 100 (not a power of two) matches the script's checksums", "[reference]") {
    const ref::DenoiseProblem d = ref::make_denoise(100);
    check_stats(d.clean, 4747.785539880395, 49.677585937099934, 0.20639359951019287, 0.9550283551216125,
                {0.20639359951019287, 0.2105213850736618, 0.21463607251644135, 0.21873259544372559});
    check_stats(d.b, 4741.371348880231, 49.87945430528007, 0.08503206074237823, 0.9967586994171143,
                {0.21598605811595917, 0.12502266466617584, 0.19281931221485138, 0.1271168738603592});
    const ref::DeconvProblem c = ref::make_deconv(100);
    check_stats(c.b, 4747.829619571567, 49.21191864822548, 0.21928924322128296, 0.8720272779464722,
                {0.3927251994609833, 0.35206007957458496, 0.3559350371360779, 0.33043918013572693});
    const ref::PoissonProblem p = ref::make_poisson(100);
    check_stats(p.b, 4748298.0, 49263.492649222506, 199.0, 902.0, {402.0, 342.0, 370.0, 304.0});
}
