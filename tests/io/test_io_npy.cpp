// .npy and .npz: files written by NumPy itself (tests/io/data, made by make_npy.py: every dtype,
// both byte orders, C and Fortran order, savez and savez_compressed), hand-made edge cases,
// round trips, and header errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "io_test_support.hpp"

using namespace io_test;

namespace {

// make_npy.py's pattern p[y, x, c] = 10 y + x + 100 c, stored per dtype and read back by the
// documented rule: floats keep p + 0.25, signed integers keep p - 60, uint8/uint16 scale to
// [0, 1], uint32/uint64 keep p, bool is (x + y) even.
float expected(const std::string& dtype, int x, int y, int c) {
    const int p = 10 * y + x + 100 * c;
    if (dtype[0] == 'f') return float(p) + 0.25f;
    if (dtype[0] == 'i') return float(p - 60);
    if (dtype == "u1") return float(p) / 255.0f;
    if (dtype == "u2") return float(p) / 65535.0f;
    if (dtype[0] == 'u') return float(p);
    return (x + y) % 2 == 0 ? 1.0f : 0.0f;  // b1
}

void check_pattern(const Image& img, const std::string& dtype, int channels) {
    REQUIRE(img.width() == 4);
    REQUIRE(img.height() == 3);
    REQUIRE(img.channels() == channels);
    REQUIRE(img.dimensions() == (channels == 1 ? 2 : 3));
    for (int c = 0; c < channels; ++c)
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 4; ++x) {
                INFO(dtype << " at x=" << x << " y=" << y << " c=" << c);
                CHECK(img(x, y, c) == expected(dtype, x, y, c));
            }
}

std::string data_file(const std::string& name) { return source_path("tests/io/data/" + name); }

}  // namespace

TEST_CASE("npy: every dtype NumPy writes, little-endian C order", "[io][npy]") {
    for (std::string t : {"f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"}) {
        check_pattern(proxgen::load_image(data_file("c_le_" + t + "_3d.npy")), t, 2);
    }
    check_pattern(proxgen::load_image(data_file("c_b1_3d.npy")), "b1", 2);
}

TEST_CASE("npy: big-endian arrays in Fortran order, as NumPy writes them", "[io][npy]") {
    for (std::string t : {"f2", "f4", "f8", "i2", "i4", "i8", "u2", "u4", "u8"}) {
        const std::string path = data_file("f_be_" + t + "_3d.npy");
        REQUIRE_THAT(read_bytes(path), Catch::Contains("'fortran_order': True") && Catch::Contains("'>"));
        check_pattern(proxgen::load_image(path), t, 2);
    }
    check_pattern(proxgen::load_image(data_file("f_b1_3d.npy")), "b1", 2);
}

TEST_CASE("npy: a Fortran-order float64 (H, W) image from NumPy (ProxImaL's layout) keeps its orientation",
          "[io][npy]") {
    // Not square (H=3, W=4): a transposed read would have the wrong shape or the wrong values.
    const Image img = proxgen::load_image(data_file("f_le_f8_2d.npy"));
    check_pattern(img, "f8", 1);
    CHECK(img(3, 0) == 3.25f);   // array[0, 3]
    CHECK(img(0, 2) == 20.25f);  // array[2, 0]
    check_pattern(proxgen::load_image(data_file("f_u1_2d.npy")), "u1", 1);
}

TEST_CASE("npy: float16 specials and integer extremes convert by the documented rule", "[io][npy]") {
    // float16: 1, -2, +inf, smallest subnormal 2^-24, NaN, -0, 65504 (largest).
    const std::vector<std::uint16_t> halves = {0x3c00, 0xc000, 0x7c00, 0x0001, 0x7e00, 0x8000, 0x7bff};
    const std::string f2 = temp_path("half.npy");
    write_bytes(f2, npy_bytes("<f2", "(1, 7)", le_bytes(halves)));
    const Image h = proxgen::load_image(f2);
    CHECK(h(0, 0) == 1.0f);
    CHECK(h(1, 0) == -2.0f);
    CHECK(h(2, 0) == std::numeric_limits<float>::infinity());
    CHECK(h(3, 0) == std::ldexp(1.0f, -24));
    CHECK(std::isnan(h(4, 0)));
    CHECK((h(5, 0) == 0.0f && std::signbit(h(5, 0))));
    CHECK(h(6, 0) == 65504.0f);

    // Wide integers keep their values, rounded to float32.
    const std::string i8 = temp_path("int64.npy");
    write_bytes(i8, npy_bytes("<i8", "(1, 3)",
                              le_bytes(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), -1,
                                                                 (std::int64_t(1) << 24) + 1})));
    const Image a = proxgen::load_image(i8);
    CHECK(a(0, 0) == -9.223372036854775808e18f);
    CHECK(a(1, 0) == -1.0f);
    CHECK(a(2, 0) == 16777216.0f);  // 2^24 + 1 is not a float32: rounds to 2^24
    const std::string u8 = temp_path("uint64.npy");
    write_bytes(u8, npy_bytes("<u8", "(1, 1)", le_bytes(std::vector<std::uint64_t>{~std::uint64_t(0)})));
    CHECK(proxgen::load_image(u8)(0, 0) == 1.8446744073709551616e19f);
    const std::string i2 = temp_path("int16.npy");  // signed 16-bit keeps its value (not scaled)
    write_bytes(i2, npy_bytes("<i2", "(1, 2)", le_bytes(std::vector<std::int16_t>{-32768, 32767}), 3));
    const Image b = proxgen::load_image(i2);
    CHECK(b(0, 0) == -32768.0f);
    CHECK(b(1, 0) == 32767.0f);
}

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

TEST_CASE("npy layout: Image pixel (x=3, y=1) is NumPy's element at row 1 and column 3, in C and Fortran order", "[io][npy]") {
    // Shape (H=2, W=4), array[r, c] = 10 r + c; nothing about it is symmetric.
    std::vector<float> c_order, f_order;
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 4; ++c) c_order.push_back(float(10 * r + c));
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 2; ++r) f_order.push_back(float(10 * r + c));
    for (bool fortran : {false, true}) {
        const std::string path = temp_path(fortran ? "layout_f.npy" : "layout_c.npy");
        write_bytes(path, npy_bytes("<f4", "(2, 4)", le_bytes(fortran ? f_order : c_order), 1, fortran));
        const Image img = proxgen::load_image(path);
        REQUIRE(img.width() == 4);
        REQUIRE(img.height() == 2);
        CHECK(img(3, 1) == 13.0f);
        CHECK(img(1, 0) == 1.0f);
    }

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

TEST_CASE("npz: named arrays from numpy.savez (stored) and savez_compressed (deflated)", "[io][npz]") {
    const std::string stored = data_file("two_stored.npz");
    check_pattern(proxgen::load_image(stored + ":image"), "f4", 1);
    check_pattern(proxgen::load_image(stored + ":weights"), "u2", 2);
    check_pattern(proxgen::load_image(stored + ":weights.npy"), "u2", 2);
    check_pattern(proxgen::load_image(data_file("one_deflated.npz")), "f8", 2);  // the only array, arr_0
    check_pattern(proxgen::load_image(data_file("one_deflated.npz:arr_0")), "f8", 2);
    const std::string deflated = data_file("two_deflated.npz");
    check_pattern(proxgen::load_image(deflated + ":b"), "f8", 1);  // Fortran order inside
    check_pattern(proxgen::load_image(deflated + ":mask"), "b1", 1);

    // Several arrays and no name: the error lists them; a wrong name too.
    require_error_naming(stored, [&] { proxgen::load_image(stored); }, "'image', 'weights'");
    require_error_naming(stored, [&] { proxgen::load_image(stored + ":nope"); }, "'nope'");
    // An error inside a member names the archive and the array.
    std::string bad = read_bytes(stored);
    bad[bad.find("<f4")] = '#';  // breaks 'image' (stored: the CRC check catches it first)
    const std::string broken = temp_path("broken.npz");
    write_bytes(broken, bad);
    require_error_naming(broken + ":image", [&] { proxgen::load_image(broken + ":image"); }, "CRC");
}

TEST_CASE("npz round trip: save_image of x.npz:NAME writes a deflated archive read back bit-exact", "[io][npz]") {
    Image img = pattern(9, 6, 3);
    img(2, 3, 1) = -7.5f;
    const std::string path = temp_path("rt.npz");
    proxgen::save_image(path + ":b", img);
    const std::string bytes = read_bytes(path);
    CHECK(bytes.substr(0, 4) == "PK\x03\x04");
    CHECK(bytes.find("b.npy") != std::string::npos);
    CHECK(same_bits(proxgen::load_image(path + ":b"), img));
    CHECK(same_bits(proxgen::load_image(path), img));
    CHECK(same_bits(proxgen::decode_image(as_bytes(bytes), "mem.npz:b"), img));
    // Without a name the array is NumPy's default "arr_0".
    const std::string unnamed = temp_path("unnamed.NPZ");
    proxgen::save_image(unnamed, pattern(3, 2, 1));
    CHECK(same_bits(proxgen::load_image(unnamed + ":arr_0"), pattern(3, 2, 1)));
}

TEST_CASE("npy format errors are explained", "[io][npy][error]") {
    struct Case {
        const char* label;
        std::string bytes;
        const char* says;
    };
    const std::string zeros(64, '\0');
    const std::vector<Case> cases = {
        {"complex", npy_bytes("<c8", "(2, 2)", zeros), "<c8"},
        {"one-byte order mark on a wide type", npy_bytes("|f4", "(2, 2)", zeros), "|f4"},
        {"structured", npy_bytes("<f4", "(2, 2)", zeros).replace(20, 5, "[('a'"), "structured"},
        {"rank 1", npy_bytes("<f4", "(4,)", zeros), "(4,)"},
        {"rank 4", npy_bytes("<f4", "(1, 1, 1, 1)", zeros), "(H, W)"},
        {"empty", npy_bytes("<f4", "(0, 4)", ""), "empty"},
        {"negative size", npy_bytes("<f4", "(-2, 2)", zeros), "malformed"},
        {"huge", npy_bytes("<f8", "(100000, 100000, 100000)", zeros), "limit"},
        {"truncated data", npy_bytes("<f8", "(8, 8)", zeros), "truncated"},
        {"cut header", npy_bytes("<f4", "(8, 8)", "").substr(0, 30), "truncated"},
        {"version 9", std::string("\x93NUMPY\x09\x00", 8) + zeros, "version"},
        {"unknown key", npy_bytes("<f4", "(2, 2)", zeros).replace(12, 5, "dexcr"), "dexcr"},
        {"no dict", std::string("\x93NUMPY\x01\x00\x04\x00" "abcd", 14) + zeros, "malformed"},
        {"not npy", "hello world, this is text", "not a .npy"},
    };
    for (const Case& c : cases) {
        const std::string path = temp_path(std::string("bad_") + std::to_string(&c - cases.data()) + ".npy");
        write_bytes(path, c.bytes);
        INFO(c.label);
        require_error_naming(path, [&] { proxgen::load_image(path); }, c.says);
    }
}

TEST_CASE("npy: a float64 value float32 cannot hold is refused, named with its position and value", "[io][npy][error]") {
    // NaN and Inf stored as float64 stay what they are (the solvers refuse them, named); a finite
    // 1e308 would silently become inf in float32
    std::vector<double> v(4 * 3 * 2, 0.25);
    v[(2 * 4 + 1) * 2 + 1] = -1e308;  // array[2, 1, 1]: (x, y, c) = (1, 2, 1)
    const std::string path = temp_path("huge_value.npy");
    write_bytes(path, npy_bytes("<f8", "(3, 4, 2)", le_bytes(v)));
    CHECK_THROWS_WITH(proxgen::load_image(path),
                      "'" + path + "': the float64 value -1e+308 at (x, y, c) = (1, 2, 1) is more than float32 "
                      "(ProxGen's arithmetic) can hold (its largest value is 3.4028235e+38); rescale the data");
    v[(2 * 4 + 1) * 2 + 1] = INFINITY;
    write_bytes(path, npy_bytes("<f8", "(3, 4, 2)", le_bytes(v)));
    CHECK(std::isinf(proxgen::load_image(path)(1, 2, 1)));
    v[(2 * 4 + 1) * 2 + 1] = 3.4e38;  // within float32's range: read
    write_bytes(path, npy_bytes("<f8", "(3, 4, 2)", le_bytes(v)));
    CHECK(proxgen::load_image(path)(1, 2, 1) == 3.4e38f);
}
