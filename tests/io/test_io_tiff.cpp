// TIFF: files written by libtiff itself in every layout the reader claims (sample types and
// sizes, byte orders, strips and tiles, planar, compressions, alpha, palettes, MinIsWhite,
// multi-page volumes, BigTIFF, JPEG-compressed YCbCr), the refusals, and save_image round trips.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <tiffio.h>

#include "io_test_support.hpp"

using namespace io_test;

namespace {

struct Page {
    std::uint32_t w = 6, h = 5;
    std::uint16_t spp = 1, bps = 8, format = SAMPLEFORMAT_UINT, photometric = PHOTOMETRIC_MINISBLACK;
    std::uint16_t planar = PLANARCONFIG_CONTIG, compression = COMPRESSION_NONE, predictor = 0;
    std::uint32_t rows_per_strip = 2, tile = 0;  // tile > 0: square tiles of that size (a multiple of 16)
    std::vector<std::uint16_t> extra;            // ExtraSamples types
    std::uint32_t subfile = 0;
    std::vector<std::uint16_t> colormap;         // palette: red, green, blue tables of 2^bps entries
    bool jpeg_rgb = false;                       // YCbCr JPEG written from RGB rows
};

// The stored value of sample s of pixel (x, y) on page `page`, before conversion to the type.
using Raw = std::function<double(int page, int x, int y, int s)>;

double default_raw(const Page& p, int page, int x, int y, int s) {
    const int base = x + 7 * y + 3 * s + 13 * page;
    if (p.bps < 8) return base % (1 << p.bps);
    if (p.format == SAMPLEFORMAT_INT) return base - 100;
    if (p.format == SAMPLEFORMAT_IEEEFP) return base - 100 + 0.25;
    return base;
}

// What the reader must return for a raw value (the rule of docs/io.md).
float converted(const Page& p, double raw) {
    if (p.format == SAMPLEFORMAT_UINT && p.bps <= 16) return float(raw) / float((1u << p.bps) - 1);  // as the reader
    return float(raw);
}

std::uint16_t to_half(float f) {  // exact for the small values used here (normal halves)
    if (f == 0.0f) return 0;
    const std::uint32_t b = std::bit_cast<std::uint32_t>(f);
    const std::uint32_t sign = b >> 31, exp = (b >> 23) & 0xff, mant = b & 0x7fffff;
    return std::uint16_t(sign << 15 | (exp - 127 + 15) << 10 | mant >> 13);
}

void put_sample(unsigned char* row, std::size_t index, const Page& p, double v) {
    if (p.bps < 8) {
        const std::size_t bit = index * p.bps;
        row[bit >> 3] |= static_cast<unsigned char>(unsigned(v) << (8 - p.bps - int(bit & 7)));
        return;
    }
    unsigned char* at = row + index * (p.bps / 8);
    auto put = [&](auto value) { std::memcpy(at, &value, sizeof value); };
    if (p.format == SAMPLEFORMAT_IEEEFP) {
        if (p.bps == 16) put(to_half(float(v)));
        else if (p.bps == 32) put(float(v));
        else if (p.bps == 64) put(v);
        else put(std::uint8_t(v));  // the refused 8-bit "float"
    } else if (p.format == SAMPLEFORMAT_INT) {
        if (p.bps == 8) put(std::int8_t(v));
        else if (p.bps == 16) put(std::int16_t(v));
        else if (p.bps == 32) put(std::int32_t(v));
        else put(std::int64_t(v));
    } else {
        if (p.bps == 8) put(std::uint8_t(v));
        else if (p.bps == 16) put(std::uint16_t(v));
        else if (p.bps == 32) put(std::uint32_t(v));
        else put(std::uint64_t(v));
    }
}

// Writes the pages with libtiff (mode "w", "wb" big-endian, "w8" BigTIFF) and returns the bytes.
std::string tiff_bytes(const std::vector<Page>& pages, const Raw& raw = {}, const char* mode = "w") {
    static int counter = 0;
    const std::string path = temp_path("made_" + std::to_string(counter++) + ".tif");
    std::unique_ptr<TIFF, void (*)(TIFF*)> tif(TIFFOpen(path.c_str(), mode), &TIFFClose);
    REQUIRE(tif);
    TIFF* t = tif.get();
    for (std::size_t index = 0; index < pages.size(); ++index) {
        const Page& p = pages[index];
        const int page = int(index);
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, p.w);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, p.h);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, p.spp);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, p.bps);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, p.format);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, p.photometric);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, p.planar);
        TIFFSetField(t, TIFFTAG_COMPRESSION, p.compression);
        if (p.predictor) TIFFSetField(t, TIFFTAG_PREDICTOR, p.predictor);
        if (p.subfile) TIFFSetField(t, TIFFTAG_SUBFILETYPE, p.subfile);
        if (!p.extra.empty()) TIFFSetField(t, TIFFTAG_EXTRASAMPLES, std::uint16_t(p.extra.size()), p.extra.data());
        if (!p.colormap.empty()) {
            const std::size_t n = p.colormap.size() / 3;
            TIFFSetField(t, TIFFTAG_COLORMAP, p.colormap.data(), p.colormap.data() + n, p.colormap.data() + 2 * n);
        }
        if (p.jpeg_rgb) {
            TIFFSetField(t, TIFFTAG_JPEGQUALITY, 95);
            TIFFSetField(t, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        }
        if (p.tile) {
            TIFFSetField(t, TIFFTAG_TILEWIDTH, p.tile);
            TIFFSetField(t, TIFFTAG_TILELENGTH, p.tile);
        } else {
            TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, p.rows_per_strip);
        }
        const bool separate = p.planar == PLANARCONFIG_SEPARATE;
        const int planes = separate ? p.spp : 1, per_pixel = separate ? 1 : p.spp;
        const std::uint32_t span = p.tile ? p.tile : p.w;  // pixels per buffer row
        const std::size_t row_bytes = (std::size_t(span) * per_pixel * p.bps + 7) / 8;
        for (int plane = 0; plane < planes; ++plane) {
            auto value = [&](std::uint32_t x, std::uint32_t y, int s) {
                return raw ? raw(page, int(x), int(y), s) : default_raw(p, page, int(x), int(y), s);
            };
            if (p.tile) {
                for (std::uint32_t ty = 0; ty < p.h; ty += p.tile)
                    for (std::uint32_t tx = 0; tx < p.w; tx += p.tile) {
                        std::vector<unsigned char> buf(row_bytes * p.tile, 0);
                        for (std::uint32_t j = 0; j < p.tile && ty + j < p.h; ++j)
                            for (std::uint32_t i = 0; i < p.tile && tx + i < p.w; ++i)
                                for (int k = 0; k < per_pixel; ++k)
                                    put_sample(buf.data() + j * row_bytes, std::size_t(i) * per_pixel + k, p,
                                               value(tx + i, ty + j, separate ? plane : k));
                        REQUIRE(TIFFWriteEncodedTile(t, TIFFComputeTile(t, tx, ty, 0, std::uint16_t(plane)), buf.data(),
                                                     tmsize_t(buf.size())) >= 0);
                    }
            } else {
                for (std::uint32_t y0 = 0; y0 < p.h; y0 += p.rows_per_strip) {
                    const std::uint32_t rows = std::min(p.rows_per_strip, p.h - y0);
                    std::vector<unsigned char> buf(row_bytes * rows, 0);
                    for (std::uint32_t j = 0; j < rows; ++j)
                        for (std::uint32_t x = 0; x < p.w; ++x)
                            for (int k = 0; k < per_pixel; ++k)
                                put_sample(buf.data() + j * row_bytes, std::size_t(x) * per_pixel + k, p,
                                           value(x, y0 + j, separate ? plane : k));
                    REQUIRE(TIFFWriteEncodedStrip(t, TIFFComputeStrip(t, y0, std::uint16_t(plane)), buf.data(),
                                                  tmsize_t(buf.size())) >= 0);
                }
            }
        }
        REQUIRE(TIFFWriteDirectory(t));
    }
    tif.reset();
    return read_bytes(path);
}

Image decode(const std::string& bytes, const std::string& name = "test.tif") {
    return proxgen::decode_image(as_bytes(bytes), name);
}

// Every kept sample of a one-page image equals the converted default pattern.
void check_page(const Image& img, const Page& p, const std::vector<int>& samples, int page = 0) {
    REQUIRE(img.width() == int(p.w));
    REQUIRE(img.height() == int(p.h));
    for (std::size_t c = 0; c < samples.size(); ++c)
        for (int y = 0; y < int(p.h); ++y)
            for (int x = 0; x < int(p.w); ++x) {
                INFO("x=" << x << " y=" << y << " channel " << c << " (sample " << samples[c] << ")");
                CHECK(img(x, y, int(c)) == converted(p, default_raw(p, page, x, y, samples[c])));
            }
}

std::string tiff_error(const std::string& bytes) {
    try {
        decode(bytes, "bad.tif");
    } catch (const proxgen::Error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("tiff: every sample type, gray, in strips, little- and big-endian", "[io][tiff]") {
    struct Type {
        std::uint16_t bps, format;
    };
    const std::vector<Type> types = {{1, SAMPLEFORMAT_UINT},  {2, SAMPLEFORMAT_UINT},   {4, SAMPLEFORMAT_UINT},
                                     {8, SAMPLEFORMAT_UINT},  {16, SAMPLEFORMAT_UINT},  {32, SAMPLEFORMAT_UINT},
                                     {64, SAMPLEFORMAT_UINT}, {8, SAMPLEFORMAT_INT},    {16, SAMPLEFORMAT_INT},
                                     {32, SAMPLEFORMAT_INT},  {64, SAMPLEFORMAT_INT},   {16, SAMPLEFORMAT_IEEEFP},
                                     {32, SAMPLEFORMAT_IEEEFP}, {64, SAMPLEFORMAT_IEEEFP}};
    for (const char* mode : {"wl", "wb"})
        for (const Type& t : types) {
            Page p;
            p.w = 11;  // odd width: packed 1/2/4-bit rows end mid-byte
            p.bps = t.bps;
            p.format = t.format;
            p.rows_per_strip = 2;  // three strips, the last one short
            INFO(mode << ": " << t.bps << "-bit, sample format " << t.format);
            const Image img = decode(tiff_bytes({p}, {}, mode));
            CHECK(img.dimensions() == 2);
            check_page(img, p, {0});
        }
}

TEST_CASE("tiff: RGB layouts: contiguous and planar, strips and tiles, compressions", "[io][tiff]") {
    struct Layout {
        const char* label;
        std::uint16_t planar, compression, predictor;
        std::uint32_t tile;
    };
    const std::vector<Layout> layouts = {
        {"contig strips", PLANARCONFIG_CONTIG, COMPRESSION_NONE, 0, 0},
        {"planar strips", PLANARCONFIG_SEPARATE, COMPRESSION_NONE, 0, 0},
        {"contig tiles", PLANARCONFIG_CONTIG, COMPRESSION_NONE, 0, 16},
        {"planar tiles LZW", PLANARCONFIG_SEPARATE, COMPRESSION_LZW, 0, 16},
        {"contig strips LZW + predictor", PLANARCONFIG_CONTIG, COMPRESSION_LZW, PREDICTOR_HORIZONTAL, 0},
        {"contig tiles deflate", PLANARCONFIG_CONTIG, COMPRESSION_ADOBE_DEFLATE, 0, 32},
        {"planar strips PackBits", PLANARCONFIG_SEPARATE, COMPRESSION_PACKBITS, 0, 0},
    };
    for (const Layout& l : layouts) {
        Page p;
        p.w = 40;  // tiles of 16: partial tiles on the right and bottom
        p.h = 19;
        p.spp = 3;
        p.bps = 16;
        p.photometric = PHOTOMETRIC_RGB;
        p.planar = l.planar;
        p.compression = l.compression;
        p.predictor = l.predictor;
        p.tile = l.tile;
        p.rows_per_strip = 4;
        INFO(l.label);
        const Image img = decode(tiff_bytes({p}));
        REQUIRE(img.channels() == 3);
        check_page(img, p, {0, 1, 2});
    }
}

TEST_CASE("tiff: float32 tiles with the floating-point predictor and float64 strips keep their values", "[io][tiff]") {
    Page f32;
    f32.w = 33;
    f32.h = 17;
    f32.bps = 32;
    f32.format = SAMPLEFORMAT_IEEEFP;
    f32.tile = 16;
    f32.compression = COMPRESSION_ADOBE_DEFLATE;
    f32.predictor = PREDICTOR_FLOATINGPOINT;
    check_page(decode(tiff_bytes({f32})), f32, {0});
    Page f64 = f32;
    f64.bps = 64;
    f64.tile = 0;
    f64.predictor = 0;
    f64.rows_per_strip = 5;
    check_page(decode(tiff_bytes({f64}, {}, "wb")), f64, {0});
}

TEST_CASE("tiff: alpha is dropped, unspecified extra gray samples are channels", "[io][tiff]") {
    Page rgba;
    rgba.spp = 4;
    rgba.photometric = PHOTOMETRIC_RGB;
    rgba.extra = {EXTRASAMPLE_UNASSALPHA};
    const Image a = decode(tiff_bytes({rgba}));
    REQUIRE(a.sizes() == std::vector<int>{6, 5, 3});
    check_page(a, rgba, {0, 1, 2});

    Page gray_alpha;
    gray_alpha.spp = 2;
    gray_alpha.bps = 16;
    gray_alpha.planar = PLANARCONFIG_SEPARATE;
    gray_alpha.extra = {EXTRASAMPLE_ASSOCALPHA};
    const Image g = decode(tiff_bytes({gray_alpha}));
    REQUIRE(g.sizes() == std::vector<int>{6, 5});
    check_page(g, gray_alpha, {0});

    Page multi;  // gray + unspecified, alpha, unspecified: channels are samples 0, 1, 3
    multi.spp = 4;
    multi.extra = {EXTRASAMPLE_UNSPECIFIED, EXTRASAMPLE_UNASSALPHA, EXTRASAMPLE_UNSPECIFIED};
    const Image m = decode(tiff_bytes({multi}));
    REQUIRE(m.sizes() == std::vector<int>{6, 5, 3});
    check_page(m, multi, {0, 1, 3});
}

TEST_CASE("tiff: palettes expand to RGB through the colormap, MinIsWhite is inverted", "[io][tiff]") {
    for (std::uint16_t bps : {4, 8}) {
        Page pal;
        pal.bps = bps;
        pal.photometric = PHOTOMETRIC_PALETTE;
        const std::size_t n = std::size_t(1) << bps;
        pal.colormap.resize(3 * n);
        for (std::size_t i = 0; i < n; ++i) {
            pal.colormap[i] = std::uint16_t(i * 257);
            pal.colormap[n + i] = std::uint16_t(65535 - i * 100);
            pal.colormap[2 * n + i] = std::uint16_t((i * 7919) % 65536);
        }
        const Image img = decode(tiff_bytes({pal}));
        REQUIRE(img.sizes() == std::vector<int>{6, 5, 3});
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 6; ++x) {
                const auto index = std::size_t(default_raw(pal, 0, x, y, 0));
                for (int c = 0; c < 3; ++c) CHECK(img(x, y, c) == float(pal.colormap[c * n + index]) / 65535.0f);
            }
    }
    for (std::uint16_t bps : {1, 8}) {
        Page white;
        white.bps = bps;
        white.photometric = PHOTOMETRIC_MINISWHITE;
        const Image img = decode(tiff_bytes({white}));
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 6; ++x) CHECK(img(x, y) == 1.0f - converted(white, default_raw(white, 0, x, y, 0)));
    }
}

TEST_CASE("tiff: several gray pages read as a volume, reduced-resolution pages are skipped", "[io][tiff]") {
    Page full;
    full.w = 7;
    full.h = 4;
    full.bps = 16;
    Page thumb = full;
    thumb.w = 3;
    thumb.h = 2;
    thumb.subfile = FILETYPE_REDUCEDIMAGE;
    // Pages: full (0), thumbnail (1), full (2), full (3); the raw pattern uses the page index.
    const Image vol = decode(tiff_bytes({full, thumb, full, full}));
    REQUIRE(vol.sizes() == std::vector<int>{7, 4, 3});
    const int file_page[3] = {0, 2, 3};
    for (int p = 0; p < 3; ++p)
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 7; ++x) CHECK(vol(x, y, p) == converted(full, default_raw(full, file_page[p], x, y, 0)));

    // Pages may differ in sample type, not in size or channel count.
    Page as_float = full;
    as_float.bps = 32;
    as_float.format = SAMPLEFORMAT_IEEEFP;
    const Image mixed = decode(tiff_bytes({full, as_float}));
    CHECK(mixed(1, 1, 1) == converted(as_float, default_raw(as_float, 1, 1, 1, 0)));
}

TEST_CASE("tiff: what is refused is named", "[io][tiff][error]") {
    Page rgb;
    rgb.spp = 3;
    rgb.photometric = PHOTOMETRIC_RGB;
    CHECK_THAT(tiff_error(tiff_bytes({rgb, rgb})), Catch::Contains("bad.tif") && Catch::Contains("page 2") &&
                                                       Catch::Contains("colour"));
    Page gray, smaller;
    smaller.w = 3;
    CHECK_THAT(tiff_error(tiff_bytes({gray, smaller})), Catch::Contains("page 2") && Catch::Contains("3x5x1"));
    Page cmyk;
    cmyk.spp = 4;
    cmyk.photometric = PHOTOMETRIC_SEPARATED;
    CHECK_THAT(tiff_error(tiff_bytes({cmyk})), Catch::Contains("CMYK"));
    Page complex;
    complex.bps = 64;
    complex.format = SAMPLEFORMAT_COMPLEXIEEEFP;
    CHECK_THAT(tiff_error(tiff_bytes({complex}, [](int, int, int, int) { return 0.0; })), Catch::Contains("complex"));
    Page float8;
    float8.format = SAMPLEFORMAT_IEEEFP;
    CHECK_THAT(tiff_error(tiff_bytes({float8}, [](int, int, int, int) { return 0.0; })),
               Catch::Contains("8-bit floating-point"));
    CHECK_THAT(tiff_error("GIF89a and more bytes"), Catch::Contains("not a TIFF"));
}

TEST_CASE("tiff: JPEG-compressed YCbCr is read as RGB", "[io][tiff]") {
    const Image src = pattern(32, 16, 3);
    Page p;
    p.w = 32;
    p.h = 16;
    p.spp = 3;
    p.photometric = PHOTOMETRIC_YCBCR;
    p.compression = COMPRESSION_JPEG;
    p.rows_per_strip = 16;
    p.jpeg_rgb = true;
    const Image img = decode(
        tiff_bytes({p}, [&](int, int x, int y, int s) { return std::round(255.0 * src(x, y, s)); }));
    REQUIRE(img.sizes() == src.sizes());
    CHECK(max_abs_diff(img, src) < 0.06f);
}

TEST_CASE("tiff: BigTIFF files are read", "[io][tiff]") {
    Page p;
    p.bps = 32;
    p.format = SAMPLEFORMAT_IEEEFP;
    const std::string bytes = tiff_bytes({p, p}, {}, "w8");
    REQUIRE(bytes[2] == 43);  // BigTIFF's version number
    const Image vol = decode(bytes);
    REQUIRE(vol.sizes() == std::vector<int>{6, 5, 2});
    CHECK(vol(5, 4, 1) == converted(p, default_raw(p, 1, 5, 4, 0)));
}

TEST_CASE("tiff: save_image round trips: float32 exact, 16 and 8 bits within half a step, volumes as pages",
          "[io][tiff]") {
    Image gray = pattern(13, 7, 1);
    gray(0, 0) = -4.5f;  // floats are not clamped
    gray(1, 0) = 1e30f;
    const std::string g = temp_path("gray.tif");
    proxgen::save_image(g, gray);
    CHECK(same_bits(proxgen::load_image(g), gray));

    const Image rgb = pattern(13, 7, 3);
    const std::string c = temp_path("rgb.TIFF");
    proxgen::save_image(c, rgb);
    CHECK(same_bits(proxgen::load_image(c), rgb));

    const Image volume = pattern(9, 6, 5);
    const std::string v = temp_path("volume.tif");
    proxgen::save_image(v, volume);
    {
        std::unique_ptr<TIFF, void (*)(TIFF*)> t(TIFFOpen(v.c_str(), "r"), &TIFFClose);
        REQUIRE(t);
        CHECK(TIFFNumberOfDirectories(t.get()) == 5);
        std::uint16_t format = 0, bps = 0;
        TIFFGetField(t.get(), TIFFTAG_SAMPLEFORMAT, &format);
        TIFFGetField(t.get(), TIFFTAG_BITSPERSAMPLE, &bps);
        CHECK(format == SAMPLEFORMAT_IEEEFP);
        CHECK(bps == 32);
    }
    CHECK(same_bits(proxgen::load_image(v), volume));

    for (int bits : {8, 16}) {
        const std::string path = temp_path("int" + std::to_string(bits) + ".tif");
        proxgen::save_image(path, rgb, {.bits = bits});
        const Image back = proxgen::load_image(path);
        REQUIRE(back.sizes() == rgb.sizes());
        const float step = bits == 8 ? 1.0f / 255 : 1.0f / 65535;
        CHECK(max_abs_diff(back, rgb) <= 0.5f * step + 1e-7f);
        CHECK(max_abs_diff(back, rgb) > 0.0f);
    }
    const std::string four_d = temp_path("four_d.tif");
    require_error_naming(four_d, [&] { proxgen::save_image(four_d, Image({2, 2, 2, 2})); });
    const std::string bits12 = temp_path("bits12.tif");
    require_error_naming(bits12, [&] { proxgen::save_image(bits12, gray, {.bits = 12}); });
}
