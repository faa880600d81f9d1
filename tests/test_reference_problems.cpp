// The C++ port of gen_inputs.py, the generator of ProxImaL's reference data set
// (reference_problems.hpp), regenerates the reference problems: the denoising inputs bit for bit
// against SHA-256 checksums of the .npy files the script wrote, the deblurring and Poisson inputs
// against checksums of the script's own output.
// Nothing here reads files: the repository stands alone.
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
#include <string>
#include <vector>

#include <proxgen/image.hpp>

#include "reference_problems.hpp"

namespace pg = proxgen;
namespace ref = proxgen::reference;

namespace {

/// SHA-256 (FIPS 180-4) as lowercase hex: pins a 1 MiB reference array bit for bit in 64 characters.
std::string sha256_hex(const std::vector<unsigned char>& message) {
    // First 32 bits of the fractional parts of the cube roots of the first 64 primes.
    static constexpr std::uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    // Padding: a 1 bit, zeros up to 56 mod 64 bytes, then the length in bits (big-endian).
    std::vector<unsigned char> m = message;
    m.push_back(0x80);
    while (m.size() % 64 != 56) m.push_back(0);
    const std::uint64_t bits = std::uint64_t(message.size()) * 8;
    for (int shift = 56; shift >= 0; shift -= 8) m.push_back(static_cast<unsigned char>(bits >> shift));
    for (std::size_t block = 0; block < m.size(); block += 64) {
        std::uint32_t w[64];
        for (int t = 0; t < 16; ++t) {
            const unsigned char* b = &m[block + 4 * std::size_t(t)];
            w[t] = std::uint32_t(b[0]) << 24 | std::uint32_t(b[1]) << 16 | std::uint32_t(b[2]) << 8 | b[3];
        }
        for (int t = 16; t < 64; ++t) {
            const std::uint32_t s0 = std::rotr(w[t - 15], 7) ^ std::rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
            const std::uint32_t s1 = std::rotr(w[t - 2], 17) ^ std::rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        std::uint32_t v[8];
        std::copy(h, h + 8, v);
        for (int t = 0; t < 64; ++t) {
            const std::uint32_t e = v[4], a = v[0];
            const std::uint32_t t1 = v[7] + (std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25)) +
                                     ((e & v[5]) ^ (~e & v[6])) + k[t] + w[t];
            const std::uint32_t t2 = (std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22)) +
                                     ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));
            std::copy_backward(v, v + 7, v + 8);  // h = g, g = f, …, b = a
            v[4] += t1;
            v[0] = t1 + t2;
        }
        for (int i = 0; i < 8; ++i) h[i] += v[i];
    }
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (std::uint32_t word : h)
        for (int shift = 28; shift >= 0; shift -= 4) out += hex[(word >> shift) & 0xf];
    return out;
}

/// SHA-256 of an image's float32 values as NumPy stores a C-order '<f4' array: little-endian,
/// array[i, j] = Image(x = j, y = i) with x fastest — the same as
///   python3 -c "import numpy, hashlib; print(hashlib.sha256(numpy.load(F).astype('<f4').tobytes()).hexdigest())"
std::string sha256_of_float32_data(const pg::Image& a) {
    std::vector<unsigned char> bytes;
    bytes.reserve(a.size() * 4);
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const std::uint32_t u = std::bit_cast<std::uint32_t>(a(x, y));
            for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<unsigned char>(u >> shift));
        }
    return sha256_hex(bytes);
}

// The arrays of ProxImaL's reference data set (files the tests once read from outside the
// repository), checksummed with the command above. For the record, the whole files'
// `sha256sum`: clean_512.npy 31f86bd1b34d4abbfe82ac9332082eb7805933d24b99142dde9c02392e986c48,
// denoise_b_512.npy 2b72d96c40af884713e997f4ad0922118c2fbd4b46cade6aae4d5ab54b431563.
constexpr const char* clean_512_sha256 = "fda68255e92cca8fd106911f5fae3e17d0eb99af6bd44b35c9e869b70c7966bd";
constexpr const char* denoise_b_512_sha256 = "ba412887f63e3821a2ef683cb317e82d17c7c6f85c8c74c9b256c537a551c256";

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

TEST_CASE("sha256_hex matches FIPS 180-4's examples", "[reference]") {
    auto bytes = [](const std::string& text) { return std::vector<unsigned char>(text.begin(), text.end()); };
    CHECK(sha256_hex(bytes("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex(bytes("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // 56 bytes: the padding spills into a second block
    CHECK(sha256_hex(bytes("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("make_denoise(512) reproduces clean_512.npy and denoise_b_512.npy", "[reference]") {
    const ref::DenoiseProblem d = ref::make_denoise(512);
    REQUIRE(d.clean.sizes() == std::vector<int>{512, 512});
    REQUIRE(d.b.sizes() == std::vector<int>{512, 512});

    // Bit for bit: the checksums of the script's float32 arrays. The float64 intermediates may
    // differ from NumPy's by an ulp or two (its SIMD log/cos/sin are not the C library's), so a
    // float32 result can only change where the float64 value lies within ~1e-16 of a float32
    // rounding boundary (spacing ~3e-8 near 0.5): about 1e-8 per pixel, i.e. none expected among
    // 2.6e5 pixels, and none occurred when the port was compared pixel by pixel with the files.
    // Should a different C library ever produce some, the checksums fail while the statistics and
    // samples below (exact float32 values) most likely still pass: one-ulp differences, not a
    // porting error, which would move many pixels by far more.
    CHECK(sha256_of_float32_data(d.clean) == clean_512_sha256);
    CHECK(sha256_of_float32_data(d.b) == denoise_b_512_sha256);
    check_stats(d.clean, 124518.6614472866, 254.46162817473387, 0.2012493759393692, 0.9577416181564331,
                {0.2012493759393692, 0.20205767452716827, 0.20286588370800018, 0.20367394387722015});
    check_stats(d.b, 124519.47418934852, 255.77948803284812, 0.05118687450885773, 1.032468318939209,
                {0.2108418345451355, 0.11655895411968231, 0.18104912340641022, 0.11205822229385376});
    // array[511, 511], [256, 256], [100, 400], [300, 37] of each file
    CHECK(d.clean(511, 511) == 0.7063684463500977f);
    CHECK(d.clean(256, 256) == 0.7613586187362671f);
    CHECK(d.clean(400, 100) == 0.325967401266098f);
    CHECK(d.clean(37, 300) == 0.36207476258277893f);
    CHECK(d.b(511, 511) == 0.7921413779258728f);
    CHECK(d.b(256, 256) == 0.7822815775871277f);
    CHECK(d.b(400, 100) == 0.4243529736995697f);
    CHECK(d.b(37, 300) == 0.3648541271686554f);

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
    CHECK(sha256_of_float32_data(p.clean) == clean_512_sha256);

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
