// Image I/O: PNG, JPEG and PFM round trips and variants, error messages that name the file, the
// SVG convergence plot and Image::copy. (.npy/.npz: test_io_npy.cpp; TIFF: test_io_tiff.cpp; truncation,
// corruption sweeps and fuzz regressions: test_io_robustness.cpp.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <jpeglib.h>
#include <png.h>

#include "io_test_support.hpp"
#include "proxgen/io/plot.hpp"

using namespace io_test;

namespace {

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


// libjpeg's own encoder, for the variants our writer never produces: progressive, CMYK.
std::string jpeg_bytes(const Image& img, bool progressive, bool cmyk) {
    jpeg_compress_struct cinfo{};
    jpeg_error_mgr err{};
    cinfo.err = jpeg_std_error(&err);  // test inputs are valid: the default (exit) handler is fine
    jpeg_create_compress(&cinfo);
    unsigned char* out = nullptr;
    unsigned long size = 0;
    jpeg_mem_dest(&cinfo, &out, &size);
    const int comps = cmyk ? 4 : img.channels();
    cinfo.image_width = JDIMENSION(img.width());
    cinfo.image_height = JDIMENSION(img.height());
    cinfo.input_components = comps;
    cinfo.in_color_space = cmyk ? JCS_CMYK : comps == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, 95, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    std::vector<unsigned char> row(std::size_t(img.width()) * comps);
    for (int y = 0; y < img.height(); ++y) {
        for (int x = 0; x < img.width(); ++x)
            for (int c = 0; c < comps; ++c)
                row[std::size_t(x) * comps + c] =
                    c < img.channels() ? (unsigned char)std::lround(255 * img(x, y, c)) : 0;
        JSAMPROW r = row.data();
        jpeg_write_scanlines(&cinfo, &r, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    std::string bytes(reinterpret_cast<char*>(out), size);
    std::free(out);
    return bytes;
}

// libpng's own encoder for an Adam7-interlaced 8-bit image (gray or RGB).
void png_append(png_structp png, png_bytep data, png_size_t n) {
    static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<char*>(data), n);
}
std::string interlaced_png_bytes(const Image& img) {
    std::string out;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    png_set_write_fn(png, &out, png_append, nullptr);
    const int c = img.channels();
    png_set_IHDR(png, info, png_uint_32(img.width()), png_uint_32(img.height()), 8,
                 c == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_ADAM7, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_set_interlace_handling(png);
    std::vector<unsigned char> data(std::size_t(img.width()) * img.height() * c);
    std::vector<png_bytep> rows(std::size_t(img.height()));
    for (int y = 0; y < img.height(); ++y) {
        rows[std::size_t(y)] = data.data() + std::size_t(y) * img.width() * c;
        for (int x = 0; x < img.width(); ++x)
            for (int ch = 0; ch < c; ++ch) rows[std::size_t(y)][x * c + ch] = (unsigned char)std::lround(255 * img(x, y, ch));
    }
    png_write_image(png, rows.data());
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return out;
}

}  // namespace

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

TEST_CASE("pfm big-endian files (positive scale), gray and RGB", "[io][pfm]") {
    auto be = [](std::vector<float> v) {
        std::string out;
        for (float f : v) {
            std::uint32_t u;
            std::memcpy(&u, &f, 4);
            out += {char(u >> 24), char(u >> 16), char(u >> 8), char(u)};
        }
        return out;
    };
    const std::string gray = temp_path("be_gray.pfm");  // 2x2, bottom row first
    write_bytes(gray, "Pf\n2 2\n1.0\n" + be({1.5f, -2.0f, 3.25f, 1e-20f}));
    const Image g = proxgen::load_image(gray);
    REQUIRE(g.sizes() == std::vector<int>{2, 2});
    CHECK(g(0, 1) == 1.5f);
    CHECK(g(1, 1) == -2.0f);
    CHECK(g(0, 0) == 3.25f);
    CHECK(g(1, 0) == 1e-20f);

    const std::string rgb = temp_path("be_rgb.pfm");  // 2x1, pixels interleaved RGB
    write_bytes(rgb, "PF\n2 1\n4.0\n" + be({0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}));
    const Image c = proxgen::load_image(rgb);
    REQUIRE(c.sizes() == std::vector<int>{2, 1, 3});
    CHECK(c(0, 0, 2) == 0.3f);
    CHECK(c(1, 0, 0) == 0.4f);
    CHECK(c(1, 0, 2) == 0.6f);
}

TEST_CASE("pfm header errors are explained", "[io][pfm][error]") {
    const std::string zero_scale = temp_path("zero_scale.pfm");
    write_bytes(zero_scale, "Pf\n1 1\n0.0\n" + std::string(4, '\0'));
    require_error_naming(zero_scale, [&] { proxgen::load_image(zero_scale); }, "scale");
    const std::string bad_size = temp_path("bad_size.pfm");
    write_bytes(bad_size, "Pf\n-3 1\n-1.0\n" + std::string(4, '\0'));
    require_error_naming(bad_size, [&] { proxgen::load_image(bad_size); }, "size");
    const std::string short_data = temp_path("short.pfm");
    write_bytes(short_data, "PF\n4 4\n-1.0\n" + std::string(40, '\0'));
    require_error_naming(short_data, [&] { proxgen::load_image(short_data); }, "truncated");
    const std::string huge = temp_path("huge.pfm");  // claims 2^60 floats: refused before allocating
    write_bytes(huge, "PF\n1073741824 1073741824\n-1.0\n" + std::string(16, '\0'));
    require_error_naming(huge, [&] { proxgen::load_image(huge); });
}

TEST_CASE("png: palette with transparency, 16-bit gray+alpha and RGBA, 2-bit gray: alpha dropped", "[io][png]") {
    // 2x1 palette image, colour 1 fully transparent (tRNS): the colour is kept, alpha dropped.
    const std::string plte = std::string("\x10\x20\x30\xff\x80\x00", 6);
    const std::string trns = png_chunk("tRNS", std::string("\xff\x00", 2));
    std::string bytes = png_bytes(2, 1, 8, 3, {std::string("\x00\x01", 2)}, plte);
    bytes.insert(bytes.find("IDAT") - 4, trns);  // tRNS goes after PLTE, before IDAT
    const Image pal = proxgen::decode_image(as_bytes(bytes), "palette_trns.png");
    REQUIRE(pal.sizes() == std::vector<int>{2, 1, 3});
    CHECK(pal(0, 0, 0) == Approx(0x10 / 255.0));
    CHECK(pal(1, 0, 0) == 1.0f);
    CHECK(pal(1, 0, 1) == Approx(0x80 / 255.0));

    // 16-bit gray+alpha: 1x1, gray 0x4000, alpha 0x0000.
    const Image ga = proxgen::decode_image(as_bytes(png_bytes(1, 1, 16, 4, {std::string("\x40\x00\x00\x00", 4)})),
                                           "ga16.png");
    REQUIRE(ga.sizes() == std::vector<int>{1, 1});
    CHECK(ga(0, 0) == Approx(16384.0 / 65535.0));

    // 16-bit RGBA: 1x1.
    const Image rgba = proxgen::decode_image(
        as_bytes(png_bytes(1, 1, 16, 6, {std::string("\xff\xff\x80\x00\x00\x01\x12\x34", 8)})), "rgba16.png");
    REQUIRE(rgba.sizes() == std::vector<int>{1, 1, 3});
    CHECK(rgba(0, 0, 0) == 1.0f);
    CHECK(rgba(0, 0, 1) == Approx(32768.0 / 65535.0));
    CHECK(rgba(0, 0, 2) == Approx(1.0 / 65535.0));

    // 2-bit gray: 4x1, samples 0, 1, 2, 3 → 0, 1/3, 2/3, 1.
    const Image g2 = proxgen::decode_image(as_bytes(png_bytes(4, 1, 2, 0, {std::string("\x1b", 1)})), "gray2.png");
    REQUIRE(g2.sizes() == std::vector<int>{4, 1});
    for (int x = 0; x < 4; ++x) CHECK(g2(x, 0) == Approx(x / 3.0));
}

TEST_CASE("png: an Adam7-interlaced file written by libpng reads like the plain one", "[io][png]") {
    for (int c : {1, 3}) {
        const Image img = pattern(13, 9, c);
        const Image back = proxgen::decode_image(as_bytes(interlaced_png_bytes(img)), "adam7.png");
        REQUIRE(back.sizes() == img.sizes());
        CHECK(max_abs_diff(img, back) <= 0.5f / 255.0f + 1e-6f);
    }
}

TEST_CASE("png: 16-bit saving round-trips within 1/65535, bit depths other formats refuse", "[io][png]") {
    for (int c : {1, 3}) {
        const Image img = pattern(11, 7, c);
        const std::string path = temp_path("rt16_" + std::to_string(c) + ".png");
        proxgen::save_image(path, img, {.bits = 16});
        CHECK(static_cast<unsigned char>(read_bytes(path)[24]) == 16);  // IHDR bit depth
        const Image back = proxgen::load_image(path);
        REQUIRE(back.sizes() == img.sizes());
        CHECK(max_abs_diff(img, back) <= 0.5f / 65535.0f + 1e-7f);
        CHECK(max_abs_diff(img, back) > 0.0f);  // it did quantize (so the bound above means something)
    }
    const std::string png12 = temp_path("twelve.png");
    require_error_naming(png12, [&] { proxgen::save_image(png12, Image(2, 2), {.bits = 12}); }, "8 or 16");
    const std::string jpg16 = temp_path("sixteen.jpg");
    require_error_naming(jpg16, [&] { proxgen::save_image(jpg16, Image(2, 2), {.bits = 16}); });
    const std::string npy8 = temp_path("eight.npy");
    require_error_naming(npy8, [&] { proxgen::save_image(npy8, Image(2, 2), {.bits = 8}); });
}

TEST_CASE("png: a chunk claiming more bytes than the file holds is refused before libpng allocates it",
          "[io][png][error]") {
    // fuzz_png's input: 167 bytes whose iTXt chunk claims 1.2 GB.
    const std::string path = source_path("tests/io/fuzz_regressions/png/itxt_claims_1gb");
    const std::string bytes = read_bytes(path);
    REQUIRE(bytes.size() == 167);
    require_error_naming("claims.png", [&] { proxgen::decode_image(as_bytes(bytes), "claims.png"); },
                         "chunk 'iTXt' at byte 81 claims 1212696648 bytes");
    // A valid file is untouched by the check, and a cut one is named as such.
    const std::string good = temp_path("chunks.png");
    proxgen::save_image(good, pattern(5, 4, 3));
    const std::string whole = read_bytes(good);
    CHECK(decodes(whole, "chunks.png"));
    require_error_naming("cut.png", [&] { proxgen::decode_image(as_bytes(whole.substr(0, 50)), "cut.png"); },
                         "more than the file holds");
}

TEST_CASE("jpeg: progressive files read, CMYK is refused by name", "[io][jpeg]") {
    for (int c : {1, 3}) {
        const Image img = pattern(40, 24, c);
        const Image back = proxgen::decode_image(as_bytes(jpeg_bytes(img, true, false)), "progressive.jpg");
        REQUIRE(back.sizes() == img.sizes());
        CHECK(max_abs_diff(img, back) < 0.06f);
    }
    const std::string cmyk = temp_path("cmyk.jpg");
    write_bytes(cmyk, jpeg_bytes(pattern(16, 16, 3), false, true));
    require_error_naming(cmyk, [&] { proxgen::load_image(cmyk); }, "CMYK");
}

TEST_CASE("jpeg: a file cut short is an error, not grey pixels", "[io][jpeg][error]") {
    const std::string full = jpeg_bytes(pattern(64, 64, 3), false, false);
    for (std::size_t keep : {full.size() / 2, full.size() - 2}) {
        const std::string cut = temp_path("cut_" + std::to_string(keep) + ".jpg");
        write_bytes(cut, full.substr(0, keep));
        require_error_naming(cut, [&] { proxgen::load_image(cut); });
    }
}

TEST_CASE("decode_image reads bytes in memory exactly as load_image reads the file", "[io]") {
    const std::string path = temp_path("mem.png");
    proxgen::save_image(path, pattern(9, 5, 3));
    CHECK(same_bits(proxgen::decode_image(as_bytes(read_bytes(path)), "mem.png"), proxgen::load_image(path)));
    require_error_naming("blob.gif", [&] { proxgen::decode_image(as_bytes(std::string("GIF89a")), "blob.gif"); });
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

TEST_CASE("Image::copy is deep, keeps the shape and origin, and reads strided views row by row", "[io][image]") {
    Image a({5, 4, 3});
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 5; ++x) a(x, y, c) = float(100 * c + 10 * y + x);
    const Image b = a.copy();
    REQUIRE(b.sizes() == a.sizes());
    REQUIRE(b.data() != a.data());
    a(2, 1, 1) = -1;
    CHECK(b(2, 1, 1) == 112);

    // a crop: rows not contiguous with each other, a channel stride larger than width × height
    Image crop(a.buffer().cropped(0, 1, 3).cropped(1, 1, 2));
    const Image c = crop.copy();
    REQUIRE(c.sizes() == std::vector<int>{3, 2, 3});
    CHECK(c.buffer().dim(0).min() == 1);
    CHECK(c.buffer().dim(1).min() == 1);
    for (int ch = 0; ch < 3; ++ch)
        for (int y = 1; y < 3; ++y)
            for (int x = 1; x < 4; ++x) CHECK(c.buffer()(x, y, ch) == a.buffer()(x, y, ch));
    CHECK(c.buffer().dim(1).stride() == 3);  // dense
}

TEST_CASE("a new Image is zero where the memory it reuses held values, small and large", "[io][image]") {
    // A new Image is zero whatever its memory held before (malloc hands freed blocks out again):
    // solvers read fresh state images before writing them.
    for (const int w : {7, 64, 1024}) {
        for (int round = 0; round < 3; ++round) {
            Image dirty(w, w);
            std::fill_n(dirty.data(), dirty.size(), float(round + 1));
        }
        std::vector<Image> fresh;
        for (int i = 0; i < 4; ++i) fresh.emplace_back(w, w);
        for (const Image& f : fresh) {
            float largest = 0;
            for (std::size_t i = 0; i < f.size(); ++i) largest = std::max(largest, std::abs(f.data()[i]));
            CHECK(largest == 0.0f);
        }
    }
}

TEST_CASE("the known image file extensions, in any case, an npz member included", "[io]") {
    for (const char* f : {"a.png", "b.JPG", "c.jpeg", "d.npy", "e.npz", "e.npz:b", "f.pfm", "g.TIF", "h.tiff"})
        CHECK(proxgen::is_image_file(f));
    for (const char* f : {"a.txt", "b", "c.png.bak", "d.npz.txt:x", ""}) CHECK_FALSE(proxgen::is_image_file(f));
    const std::string list = proxgen::image_file_extensions();
    for (const char* e : {".npy", ".npz", ".png", ".jpg", ".pfm", ".tif"}) CHECK(list.find(e) != std::string::npos);
}
