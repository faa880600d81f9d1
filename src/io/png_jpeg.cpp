// PNG and JPEG through libpng and libjpeg.
//
// Both libraries report errors through a callback that must not return. The default handlers
// exit the process, and throwing a C++ exception through their C frames is undefined, so the
// handlers longjmp back to a setjmp in a small decode_*/encode_* function. To keep that jump
// well-defined, those functions create no objects with destructors; all owned state (library
// structs, FILE*, pixel vectors) lives in the caller's frame, which the jump never crosses.
#include "proxgen/io/png_jpeg.hpp"

#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

#include <jpeglib.h>
#include <png.h>

#include "proxgen/error.hpp"

namespace proxgen::io {
namespace {

std::FILE* open_or_fail(const std::string& path, const char* mode) {
    std::FILE* f = std::fopen(path.c_str(), mode);
    if (!f)
        fail("cannot open '{}' for {}: {}", path, mode[0] == 'r' ? "reading" : "writing", std::strerror(errno));
    return f;
}

// Interleaved 8-bit samples (row-major, channel fastest), as both libraries want them.
struct Pixels {
    unsigned width = 0, height = 0;
    int channels = 0, bit_depth = 8;
    std::vector<unsigned char> data;
    std::vector<unsigned char*> rows;
    void allocate(std::size_t row_bytes) {
        data.resize(row_bytes * height);
        rows.resize(height);
        for (unsigned y = 0; y < height; ++y) rows[y] = data.data() + y * row_bytes;
    }
};

// Clamp to [0,1], round to 8 bits, NaN → 0.
Pixels quantize(const Image& image, const std::string& path, const char* format) {
    if (image.dimensions() > 3 || (image.channels() != 1 && image.channels() != 3))
        fail("cannot save '{}': {} supports 1 (gray) or 3 (RGB) channels, got an image of shape {}", path,
             format, image.shape_string());
    Pixels px;
    px.width = unsigned(image.width());
    px.height = unsigned(image.height());
    px.channels = image.channels();
    px.allocate(std::size_t(px.width) * px.channels);
    std::size_t i = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            for (int c = 0; c < px.channels; ++c) {
                const float v = image(x, y, c);
                const float clamped = std::isnan(v) ? 0.0f : std::fmin(std::fmax(v, 0.0f), 1.0f);
                px.data[i++] = static_cast<unsigned char>(std::lround(clamped * 255.0f));
            }
    return px;
}

// ---------------------------------------------------------------------------------- PNG

struct PngState {
    png_structp png = nullptr;
    png_infop info = nullptr;
    bool writing = false;
    std::FILE* file = nullptr;
    char message[256] = "unknown libpng error";
    ~PngState() {
        if (writing) png_destroy_write_struct(&png, &info);
        else png_destroy_read_struct(&png, &info, nullptr);
        if (file) std::fclose(file);
    }
};

void png_on_error(png_structp png, png_const_charp msg) {
    auto* state = static_cast<PngState*>(png_get_error_ptr(png));
    std::snprintf(state->message, sizeof state->message, "%s", msg);
    png_longjmp(png, 1);
}
void png_on_warning(png_structp, png_const_charp) {}  // benign (e.g. an unknown chunk)

// Returns false after a libpng error; the message is in state.message.
bool decode_png(PngState& s, Pixels& px) {
    if (setjmp(png_jmpbuf(s.png))) return false;
    png_init_io(s.png, s.file);
    png_set_sig_bytes(s.png, 8);
    png_read_info(s.png, s.info);
    const int color = png_get_color_type(s.png, s.info);
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(s.png);
    if (color == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(s.png, s.info) < 8) png_set_expand_gray_1_2_4_to_8(s.png);
    if (color & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(s.png);
    png_set_interlace_handling(s.png);
    png_read_update_info(s.png, s.info);
    px.width = png_get_image_width(s.png, s.info);
    px.height = png_get_image_height(s.png, s.info);
    px.channels = png_get_channels(s.png, s.info);
    px.bit_depth = png_get_bit_depth(s.png, s.info);
    px.allocate(png_get_rowbytes(s.png, s.info));
    png_read_image(s.png, px.rows.data());
    png_read_end(s.png, nullptr);
    return true;
}

bool encode_png(PngState& s, Pixels& px) {
    if (setjmp(png_jmpbuf(s.png))) return false;
    png_init_io(s.png, s.file);
    png_set_IHDR(s.png, s.info, px.width, px.height, 8, px.channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(s.png, s.info);
    png_write_image(s.png, px.rows.data());
    png_write_end(s.png, nullptr);
    return true;
}

// ---------------------------------------------------------------------------------- JPEG

struct JpegError {
    jpeg_error_mgr base;  // first member: libjpeg hands us a jpeg_error_mgr*
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

void jpeg_on_error(j_common_ptr cinfo) {
    auto* err = reinterpret_cast<JpegError*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, err->message);
    std::longjmp(err->jump, 1);
}
void jpeg_on_message(j_common_ptr) {}  // silence warnings libjpeg would print to stderr

template <class Struct, void (*destroy)(Struct*)>
struct JpegState {
    Struct cinfo{};
    JpegError err{};
    bool created = false;
    std::FILE* file = nullptr;
    JpegState() {
        cinfo.err = jpeg_std_error(&err.base);
        err.base.error_exit = jpeg_on_error;
        err.base.output_message = jpeg_on_message;
    }
    ~JpegState() {
        if (created) destroy(&cinfo);
        if (file) std::fclose(file);
    }
};
void destroy_decompress(jpeg_decompress_struct* c) { jpeg_destroy_decompress(c); }
void destroy_compress(jpeg_compress_struct* c) { jpeg_destroy_compress(c); }
using JpegReader = JpegState<jpeg_decompress_struct, destroy_decompress>;
using JpegWriter = JpegState<jpeg_compress_struct, destroy_compress>;

bool decode_jpeg(JpegReader& s, Pixels& px) {
    if (setjmp(s.err.jump)) return false;
    jpeg_create_decompress(&s.cinfo);
    s.created = true;
    jpeg_stdio_src(&s.cinfo, s.file);
    jpeg_read_header(&s.cinfo, TRUE);
    s.cinfo.out_color_space = s.cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&s.cinfo);
    px.width = s.cinfo.output_width;
    px.height = s.cinfo.output_height;
    px.channels = s.cinfo.output_components;
    px.allocate(std::size_t(px.width) * px.channels);
    while (s.cinfo.output_scanline < s.cinfo.output_height)
        jpeg_read_scanlines(&s.cinfo, &px.rows[s.cinfo.output_scanline], s.cinfo.output_height - s.cinfo.output_scanline);
    jpeg_finish_decompress(&s.cinfo);
    return true;
}

bool encode_jpeg(JpegWriter& s, Pixels& px) {
    if (setjmp(s.err.jump)) return false;
    jpeg_create_compress(&s.cinfo);
    s.created = true;
    jpeg_stdio_dest(&s.cinfo, s.file);
    s.cinfo.image_width = px.width;
    s.cinfo.image_height = px.height;
    s.cinfo.input_components = px.channels;
    s.cinfo.in_color_space = px.channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&s.cinfo);
    jpeg_set_quality(&s.cinfo, 95, TRUE);
    jpeg_start_compress(&s.cinfo, TRUE);
    while (s.cinfo.next_scanline < s.cinfo.image_height)
        jpeg_write_scanlines(&s.cinfo, &px.rows[s.cinfo.next_scanline], s.cinfo.image_height - s.cinfo.next_scanline);
    jpeg_finish_compress(&s.cinfo);
    return true;
}

// Interleaved 8/16-bit samples (16-bit big-endian, as PNG stores them) → Image in [0,1].
Image to_image(const Pixels& px, const std::string& path) {
    if (px.width == 0 || px.height == 0) fail("'{}': empty image ({}x{})", path, px.width, px.height);
    if (px.channels != 1 && px.channels != 3)
        fail("'{}': unsupported channel count {} after decoding", path, px.channels);
    Image image(int(px.width), int(px.height), px.channels);
    const bool wide = px.bit_depth == 16;
    const float scale = wide ? 1.0f / 65535.0f : 1.0f / 255.0f;
    for (unsigned y = 0; y < px.height; ++y) {
        const unsigned char* row = px.rows[y];
        for (unsigned x = 0; x < px.width; ++x)
            for (int c = 0; c < px.channels; ++c) {
                const std::size_t i = std::size_t(x) * px.channels + c;
                const unsigned v = wide ? (unsigned(row[2 * i]) << 8 | row[2 * i + 1]) : row[i];
                image(int(x), int(y), c) = float(v) * scale;
            }
    }
    return image;
}

}  // namespace

Image read_png(const std::string& path) {
    PngState s;
    s.file = open_or_fail(path, "rb");
    png_byte signature[8];
    if (std::fread(signature, 1, 8, s.file) != 8 || png_sig_cmp(signature, 0, 8) != 0)
        fail("'{}' is not a PNG file (bad signature)", path);
    s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, png_on_error, png_on_warning);
    if (s.png) s.info = png_create_info_struct(s.png);
    if (!s.png || !s.info) fail("'{}': libpng could not allocate its state", path);
    Pixels px;
    if (!decode_png(s, px)) fail("'{}': corrupt or unsupported PNG file: {}", path, s.message);
    return to_image(px, path);
}

void write_png(const std::string& path, const Image& image) {
    Pixels px = quantize(image, path, "PNG");
    PngState s;
    s.writing = true;
    s.file = open_or_fail(path, "wb");
    s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s, png_on_error, png_on_warning);
    if (s.png) s.info = png_create_info_struct(s.png);
    if (!s.png || !s.info) fail("cannot save '{}': libpng could not allocate its state", path);
    if (!encode_png(s, px)) fail("cannot save '{}': libpng error: {}", path, s.message);
    const int closed = std::fclose(s.file);
    s.file = nullptr;
    if (closed != 0) fail("error while writing '{}': {}", path, std::strerror(errno));
}

Image read_jpeg(const std::string& path) {
    JpegReader s;
    s.file = open_or_fail(path, "rb");
    Pixels px;
    if (!decode_jpeg(s, px)) fail("'{}': corrupt or unsupported JPEG file: {}", path, s.err.message);
    return to_image(px, path);
}

void write_jpeg(const std::string& path, const Image& image) {
    Pixels px = quantize(image, path, "JPEG");
    JpegWriter s;
    s.file = open_or_fail(path, "wb");
    if (!encode_jpeg(s, px)) fail("cannot save '{}': libjpeg error: {}", path, s.err.message);
    const bool write_error = std::ferror(s.file) != 0;
    const int closed = std::fclose(s.file);
    s.file = nullptr;
    if (write_error || closed != 0) fail("error while writing '{}': {}", path, std::strerror(errno));
}

}  // namespace proxgen::io
