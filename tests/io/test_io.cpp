// Image I/O: round trips per format, NumPy layout, hand-written .npy variants, error messages
// that name the file, the shared reference input, and the SVG convergence plot.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "proxgen/error.hpp"
#include "proxgen/image.hpp"
#include "proxgen/io/image_io.hpp"
#include "proxgen/io/plot.hpp"

namespace fs = std::filesystem;
using proxgen::Image;

namespace {

// A fresh directory per test process, removed when the process exits.
struct TempDir {
    fs::path dir = fs::temp_directory_path() / ("proxgen_test_io_" + std::to_string(std::random_device{}()));
    TempDir() { fs::create_directories(dir); }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

std::string temp_path(const std::string& name) {
    static const TempDir temp;
    return (temp.dir / name).string();
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// A .npy file as NumPy writes it: magic, version, header length, dict padded to 64 bytes, data.
std::string npy_bytes(const std::string& descr, const std::string& shape, const std::string& data,
                      int version = 1, bool fortran = false) {
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
    const std::size_t preamble = version == 1 ? 10 : 12;
    while ((preamble + dict.size() + 1) % 64 != 0) dict += ' ';
    dict += '\n';
    std::string out = std::string("\x93NUMPY", 6) + char(version) + '\0';
    const std::size_t n = dict.size();
    out += char(n & 0xff);
    out += char((n >> 8) & 0xff);
    if (version != 1) out += std::string(2, '\0');
    return out + dict + data;
}

template <class T>
std::string le_bytes(const std::vector<T>& values) {  // the test host is little-endian (x86/ARM)
    return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// A minimal PNG encoder (stored, uncompressed deflate blocks) so the tests can make the PNG
// variants our writer never produces: 16-bit, palette, gray+alpha, RGBA, 1-bit gray.
std::uint32_t crc32(const std::string& bytes) {
    std::uint32_t c = 0xffffffffu;
    for (unsigned char b : bytes) {
        c ^= b;
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

std::string be32(std::uint32_t v) {
    return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

std::string png_chunk(const std::string& type, const std::string& data) {
    return be32(std::uint32_t(data.size())) + type + data + be32(crc32(type + data));
}

// `rows` holds the raw scanlines without filter bytes; `plte` is an optional palette.
std::string png_bytes(int w, int h, int depth, int color_type, const std::vector<std::string>& rows,
                      const std::string& plte = "") {
    std::string raw;
    for (const auto& r : rows) raw += '\0' + r;  // filter type 0 (None)
    std::string z = "\x78\x01";                  // zlib header, then one stored block (raw < 64 KiB)
    z += '\x01';
    z += char(raw.size() & 0xff), z += char(raw.size() >> 8);
    z += char(~raw.size() & 0xff), z += char((~raw.size() >> 8) & 0xff);
    z += raw;
    std::uint32_t a = 1, b = 0;
    for (unsigned char c : raw) a = (a + c) % 65521, b = (b + a) % 65521;
    z += be32(b << 16 | a);
    const std::string ihdr = be32(std::uint32_t(w)) + be32(std::uint32_t(h)) + char(depth) + char(color_type) +
                             std::string(3, '\0');
    return std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) +
           (plte.empty() ? "" : png_chunk("PLTE", plte)) + png_chunk("IDAT", z) + png_chunk("IEND", "");
}

// A non-symmetric test pattern in [0,1]: smooth, so JPEG reproduces it closely.
Image pattern(int w, int h, int c) {
    Image img(w, h, c);
    for (int ch = 0; ch < c; ++ch)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                img(x, y, ch) = 0.5f + 0.4f * std::sin(0.11f * x + 0.05f * y * y / h + 1.3f * ch);
    return img;
}

float max_abs_diff(const Image& a, const Image& b) {
    float m = 0;
    for (int c = 0; c < a.channels(); ++c)
        for (int y = 0; y < a.height(); ++y)
            for (int x = 0; x < a.width(); ++x) m = std::max(m, std::abs(a(x, y, c) - b(x, y, c)));
    return m;
}

bool same_bits(const Image& a, const Image& b) {
    if (a.sizes() != b.sizes()) return false;
    for (int c = 0; c < a.channels(); ++c)
        for (int y = 0; y < a.height(); ++y)
            for (int x = 0; x < a.width(); ++x) {
                const float u = a(x, y, c), v = b(x, y, c);
                if (std::memcmp(&u, &v, sizeof u) != 0) return false;
            }
    return true;
}

// Runs f, which must throw proxgen::Error whose message names `path`.
template <class F>
void require_error_naming(const std::string& path, F&& f) {
    bool threw = false;
    try {
        f();
    } catch (const proxgen::Error& e) {
        threw = true;
        INFO("message: " << e.what());
        CHECK_THAT(std::string(e.what()), Catch::Contains(path));
    }
    CHECK(threw);
}

}  // namespace

TEST_CASE("npy float32 round trip is bit-exact, 2-D and 3-D", "[io][npy]") {
    for (int channels : {1, 3}) {
        Image img = pattern(7, 5, channels);
        img(0, 0, 0) = -3.5f;
        img(1, 0, 0) = 1e-30f;
        img(2, 0, 0) = std::numeric_limits<float>::infinity();
        const std::string path = temp_path("rt" + std::to_string(channels) + ".npy");
        proxgen::save_image(path, img);
        const std::string bytes = read_bytes(path);
        const std::size_t header_len = std::uint8_t(bytes[8]) | std::uint8_t(bytes[9]) << 8;
        CHECK((10 + header_len) % 64 == 0);
        CHECK(bytes[10 + header_len - 1] == '\n');
        const Image back = proxgen::load_image(path);
        CHECK(back.dimensions() == (channels == 1 ? 2 : 3));
        CHECK(same_bits(img, back));
    }
}

TEST_CASE("pfm round trip is bit-exact, gray and RGB", "[io][pfm]") {
    for (int channels : {1, 3}) {
        Image img = pattern(6, 4, channels);
        img(5, 3, 0) = -2.0f;
        const std::string path = temp_path("rt" + std::to_string(channels) + ".PFM");
        proxgen::save_image(path, img);
        CHECK(read_bytes(path).substr(0, 2) == (channels == 3 ? "PF" : "Pf"));
        CHECK(same_bits(img, proxgen::load_image(path)));
    }
}

TEST_CASE("pfm rows are stored bottom-to-top", "[io][pfm]") {
    const std::string path = temp_path("rows.pfm");
    const std::vector<float> values = {1, 2, 3, 4};  // file rows: bottom (1 2), then top (3 4)
    write_bytes(path, "Pf\n2 2\n-1.0\n" + le_bytes(values));
    const Image img = proxgen::load_image(path);
    CHECK(img(0, 1) == 1.0f);
    CHECK(img(1, 1) == 2.0f);
    CHECK(img(0, 0) == 3.0f);
    CHECK(img(1, 0) == 4.0f);
}

TEST_CASE("png round trip is within 1/255 (gray and RGB), saving clamps and maps NaN to 0", "[io][png]") {
    for (int channels : {1, 3}) {
        const Image img = pattern(9, 6, channels);
        const std::string path = temp_path("rt" + std::to_string(channels) + ".png");
        proxgen::save_image(path, img);
        const Image back = proxgen::load_image(path);
        REQUIRE(back.sizes() == img.sizes());
        CHECK(max_abs_diff(img, back) <= 0.5f / 255.0f + 1e-6f);
    }
    Image odd(3, 1);
    odd(0, 0) = -1.0f;
    odd(1, 0) = 7.0f;
    odd(2, 0) = std::numeric_limits<float>::quiet_NaN();
    const std::string path = temp_path("clamp.png");
    proxgen::save_image(path, odd);
    const Image back = proxgen::load_image(path);
    CHECK(back(0, 0) == 0.0f);
    CHECK(back(1, 0) == 1.0f);
    CHECK(back(2, 0) == 0.0f);
}

TEST_CASE("png variants: 16-bit, palette, gray+alpha, RGBA, 1-bit gray", "[io][png]") {
    const std::string g16 = temp_path("gray16.png");  // 2x1, 16-bit gray: 65535, 13107
    write_bytes(g16, png_bytes(2, 1, 16, 0, {std::string("\xff\xff\x33\x33", 4)}));
    Image a = proxgen::load_image(g16);
    REQUIRE(a.sizes() == std::vector<int>{2, 1});
    CHECK(a(0, 0) == 1.0f);
    CHECK(a(1, 0) == Approx(0.2f));

    const std::string rgb16 = temp_path("rgb16.png");  // 1x1, 16-bit RGB
    write_bytes(rgb16, png_bytes(1, 1, 16, 2, {std::string("\x00\x00\x80\x00\xff\xff", 6)}));
    Image b = proxgen::load_image(rgb16);
    REQUIRE(b.sizes() == std::vector<int>{1, 1, 3});
    CHECK(b(0, 0, 0) == 0.0f);
    CHECK(b(0, 0, 1) == Approx(32768.0f / 65535.0f));
    CHECK(b(0, 0, 2) == 1.0f);

    const std::string pal = temp_path("palette.png");  // 2x2, 8-bit indices into 2 colours
    write_bytes(pal, png_bytes(2, 2, 8, 3, {std::string("\x00\x01", 2), std::string("\x01\x00", 2)},
                               std::string("\xff\x00\x00\x00\x33\xff", 6)));
    Image c = proxgen::load_image(pal);
    REQUIRE(c.sizes() == std::vector<int>{2, 2, 3});
    CHECK(c(0, 0, 0) == 1.0f);
    CHECK(c(1, 0, 0) == 0.0f);
    CHECK(c(1, 0, 1) == Approx(0.2f));
    CHECK(c(1, 0, 2) == 1.0f);
    CHECK(c(0, 1, 2) == 1.0f);

    const std::string ga = temp_path("gray_alpha.png");  // 2x1 gray+alpha: alpha is dropped
    write_bytes(ga, png_bytes(2, 1, 8, 4, {std::string("\x33\x00\xff\x80", 4)}));
    Image d = proxgen::load_image(ga);
    REQUIRE(d.sizes() == std::vector<int>{2, 1});
    CHECK(d(0, 0) == Approx(0.2f));
    CHECK(d(1, 0) == 1.0f);

    const std::string rgba = temp_path("rgba.png");  // 1x1 RGBA
    write_bytes(rgba, png_bytes(1, 1, 8, 6, {std::string("\x33\x66\xff\x00", 4)}));
    Image e = proxgen::load_image(rgba);
    REQUIRE(e.sizes() == std::vector<int>{1, 1, 3});
    CHECK(e(0, 0, 1) == Approx(0.4f));
    CHECK(e(0, 0, 2) == 1.0f);

    const std::string bits = temp_path("gray1.png");  // 8x1, 1-bit gray: 10110000
    write_bytes(bits, png_bytes(8, 1, 1, 0, {std::string("\xb0", 1)}));
    Image f = proxgen::load_image(bits);
    REQUIRE(f.sizes() == std::vector<int>{8, 1});
    const float expect[8] = {1, 0, 1, 1, 0, 0, 0, 0};
    for (int x = 0; x < 8; ++x) CHECK(f(x, 0) == expect[x]);
}

TEST_CASE("jpg round trip is close", "[io][jpeg]") {
    for (int channels : {1, 3}) {
        const Image img = pattern(32, 24, channels);
        const std::string path = temp_path("rt" + std::to_string(channels) + ".JPEG");
        proxgen::save_image(path, img);
        const Image back = proxgen::load_image(path);
        REQUIRE(back.sizes() == img.sizes());
        CHECK(max_abs_diff(img, back) < 0.06f);
    }
}

TEST_CASE("npy uint8, uint16 and float64 files are read and scaled", "[io][npy]") {
    const std::string u8 = temp_path("u8.npy");
    write_bytes(u8, npy_bytes("|u1", "(2, 3)", le_bytes(std::vector<std::uint8_t>{0, 51, 255, 102, 1, 204})));
    Image a = proxgen::load_image(u8);
    REQUIRE(a.width() == 3);
    REQUIRE(a.height() == 2);
    CHECK(a(1, 0) == Approx(0.2f));
    CHECK(a(2, 0) == 1.0f);
    CHECK(a(0, 1) == Approx(0.4f));
    CHECK(a(2, 1) == Approx(0.8f));

    const std::string u16 = temp_path("u16.npy");
    write_bytes(u16, npy_bytes("<u2", "(1, 2)", le_bytes(std::vector<std::uint16_t>{65535, 13107}), 2));
    Image b = proxgen::load_image(u16);
    CHECK(b(0, 0) == 1.0f);
    CHECK(b(1, 0) == Approx(0.2f));

    // float64 (H=2, W=2, C=2): array[y, x, c] = 100 y + 10 x + c.
    std::vector<double> v;
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 2; ++x)
            for (int c = 0; c < 2; ++c) v.push_back(100.0 * y + 10.0 * x + c + 0.25);
    const std::string f8 = temp_path("f8.npy");
    write_bytes(f8, npy_bytes("<f8", "(2, 2, 2)", le_bytes(v)));
    Image d = proxgen::load_image(f8);
    REQUIRE(d.sizes() == std::vector<int>{2, 2, 2});
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 2; ++x)
            for (int c = 0; c < 2; ++c) CHECK(d(x, y, c) == float(100 * y + 10 * x + c + 0.25));
}

TEST_CASE("npy layout: Image pixel (x=3, y=1) is NumPy's array[1, 3]", "[io][npy]") {
    // Shape (H=2, W=4), array[r, c] = 10 r + c; nothing about it is symmetric.
    std::vector<float> v;
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 4; ++c) v.push_back(float(10 * r + c));
    const std::string path = temp_path("layout.npy");
    write_bytes(path, npy_bytes("<f4", "(2, 4)", le_bytes(v)));
    const Image img = proxgen::load_image(path);
    REQUIRE(img.width() == 4);
    REQUIRE(img.height() == 2);
    CHECK(img(3, 1) == 13.0f);

    // And the writer puts pixel (3, 1) where NumPy's array[1, 3] lives: C-order offset 1*4 + 3.
    Image out(4, 2);
    out(3, 1) = 42.0f;
    const std::string saved = temp_path("layout_out.npy");
    proxgen::save_image(saved, out);
    const std::string bytes = read_bytes(saved);
    const std::size_t header_len = std::uint8_t(bytes[8]) | std::uint8_t(bytes[9]) << 8;
    CHECK(bytes.find("'shape': (2, 4)") != std::string::npos);
    float at = 0;
    std::memcpy(&at, bytes.data() + 10 + header_len + 4 * (1 * 4 + 3), 4);
    CHECK(at == 42.0f);
}

TEST_CASE("npy format errors are explained", "[io][npy][error]") {
    const std::string fortran = temp_path("fortran.npy");
    write_bytes(fortran, npy_bytes("<f4", "(2, 2)", std::string(16, '\0'), 1, true));
    CHECK_THROWS_WITH(proxgen::load_image(fortran), Catch::Contains("Fortran") && Catch::Contains(fortran));

    const std::string big = temp_path("big_endian.npy");
    write_bytes(big, npy_bytes(">f4", "(2, 2)", std::string(16, '\0')));
    CHECK_THROWS_WITH(proxgen::load_image(big), Catch::Contains(">f4") && Catch::Contains(big));

    const std::string rank1 = temp_path("rank1.npy");
    write_bytes(rank1, npy_bytes("<f4", "(4,)", std::string(16, '\0')));
    CHECK_THROWS_AS(proxgen::load_image(rank1), proxgen::Error);

    const std::string empty = temp_path("empty.npy");
    write_bytes(empty, npy_bytes("<f4", "(0, 4)", ""));
    CHECK_THROWS_WITH(proxgen::load_image(empty), Catch::Contains("empty") && Catch::Contains(empty));
}

TEST_CASE("load and save errors name the file", "[io][error]") {
    const std::string missing = temp_path("does_not_exist.npy");
    require_error_naming(missing, [&] { proxgen::load_image(missing); });

    const std::string unknown = temp_path("image.bmp");
    write_bytes(unknown, "BM");
    require_error_naming(unknown, [&] { proxgen::load_image(unknown); });
    CHECK_THROWS_WITH(proxgen::load_image(unknown), Catch::Contains(".npy") && Catch::Contains(".png"));
    require_error_naming(unknown, [&] { proxgen::save_image(unknown, Image(2, 2)); });

    const std::string truncated = temp_path("truncated.npy");
    write_bytes(truncated, npy_bytes("<f4", "(8, 8)", std::string(100, '\0')));
    require_error_naming(truncated, [&] { proxgen::load_image(truncated); });
    const std::string cut_header = temp_path("cut_header.npy");
    write_bytes(cut_header, npy_bytes("<f4", "(8, 8)", "").substr(0, 30));
    require_error_naming(cut_header, [&] { proxgen::load_image(cut_header); });

    std::mt19937 rng(7);
    std::string noise(4096, '\0');
    for (char& c : noise) c = char(rng());
    const std::string random_png = temp_path("random.png");
    write_bytes(random_png, noise);
    require_error_naming(random_png, [&] { proxgen::load_image(random_png); });
    // A valid signature followed by garbage reaches libpng's own error path (setjmp/longjmp).
    const std::string corrupt_png = temp_path("corrupt.png");
    write_bytes(corrupt_png, std::string("\x89PNG\r\n\x1a\n", 8) + noise);
    require_error_naming(corrupt_png, [&] { proxgen::load_image(corrupt_png); });
    // A real PNG cut short.
    const std::string good_png = temp_path("good.png");
    proxgen::save_image(good_png, pattern(64, 64, 3));
    const std::string cut_png = temp_path("cut.png");
    write_bytes(cut_png, read_bytes(good_png).substr(0, 200));
    require_error_naming(cut_png, [&] { proxgen::load_image(cut_png); });

    const std::string random_jpg = temp_path("random.jpg");
    write_bytes(random_jpg, noise);
    require_error_naming(random_jpg, [&] { proxgen::load_image(random_jpg); });
    const std::string random_pfm = temp_path("random.pfm");
    write_bytes(random_pfm, noise);
    require_error_naming(random_pfm, [&] { proxgen::load_image(random_pfm); });

    const std::string two_channel = temp_path("two.png");
    require_error_naming(two_channel, [&] { proxgen::save_image(two_channel, Image(4, 4, 2)); });
    const std::string four_channel = temp_path("four.jpg");
    require_error_naming(four_channel, [&] { proxgen::save_image(four_channel, Image(4, 4, 4)); });
    const std::string empty_save = temp_path("empty_save.npy");
    require_error_naming(empty_save, [&] { proxgen::save_image(empty_save, Image()); });
    const std::string no_dir = temp_path("no_such_dir/out.png");
    require_error_naming(no_dir, [&] { proxgen::save_image(no_dir, Image(2, 2)); });
}

TEST_CASE("a file written by NumPy reads in Halide layout", "[io][npy][reference]") {
    // numpy.save of float32 array[i, j] = 10 i + j + 0.5, shape (4, 6) (tests/data/README.md)
    const std::string path = std::string(PROXGEN_TEST_DATA_DIR) + "/numpy_c_order_4x6.npy";
    const Image b = proxgen::load_image(path);
    REQUIRE(b.width() == 6);
    REQUIRE(b.height() == 4);
    CHECK(b.channels() == 1);
    // The first values in C order run along row 0, i.e. along x.
    const std::string bytes = read_bytes(path);
    REQUIRE(bytes.substr(0, 6) == "\x93NUMPY");
    REQUIRE(bytes[6] == 1);
    const std::size_t data = 10 + (std::uint8_t(bytes[8]) | std::uint8_t(bytes[9]) << 8);
    REQUIRE(bytes.substr(10, data - 10).find("<f4") != std::string::npos);
    float first[4];
    std::memcpy(first, bytes.data() + data, sizeof first);
    for (int x = 0; x < 4; ++x) CHECK(b(x, 0) == first[x]);
    float second_row;
    std::memcpy(&second_row, bytes.data() + data + 4 * 6, 4);
    CHECK(b(0, 1) == second_row);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 6; ++x) CHECK(b(x, y) == 10.0f * y + x + 0.5f);
}

TEST_CASE("convergence plot is an SVG naming every series", "[io][plot]") {
    std::vector<proxgen::PlotSeries> series(3);
    series[0].name = "ADMM";
    series[1].name = "Pock-Chambolle <pc>";
    series[2].name = "linearized ADMM";
    for (int i = 0; i < 50; ++i) {
        series[0].x.push_back(i), series[0].y.push_back(std::pow(0.8, i));
        series[1].x.push_back(i), series[1].y.push_back(i == 10 ? 0.0 : 1.0 / (1 + i));  // 0 is skipped
    }
    series[2].y = {1.0, std::nan(""), 0.5, 0.25};  // x defaults to 0, 1, 2, …
    const std::string path = temp_path("convergence.svg");
    proxgen::write_convergence_svg(path, "TV denoising & residuals", series);
    REQUIRE(fs::exists(path));
    const std::string svg = read_bytes(path);
    CHECK((svg.rfind("<svg", 0) == 0 || svg.rfind("<?xml", 0) == 0));
    CHECK(svg.find("</svg>") != std::string::npos);
    CHECK(svg.find("ADMM") != std::string::npos);
    CHECK(svg.find("Pock-Chambolle &lt;pc&gt;") != std::string::npos);
    CHECK(svg.find("linearized ADMM") != std::string::npos);
    CHECK(svg.find("nan") == std::string::npos);
    CHECK(svg.find("inf") == std::string::npos);

    const std::string linear = temp_path("linear.svg");
    proxgen::write_convergence_svg(linear, "objective", {series[0]}, false);
    CHECK(read_bytes(linear).find("ADMM") != std::string::npos);

    proxgen::PlotSeries bad{"bad", {1, 2}, {1}};
    const std::string bad_path = temp_path("bad.svg");
    require_error_naming(bad_path, [&] { proxgen::write_convergence_svg(bad_path, "t", {bad}); });
}
