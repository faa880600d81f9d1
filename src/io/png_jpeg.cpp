// PNG and JPEG through libpng and libjpeg, decoding from memory and encoding to a file.
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
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

#include "file_bytes.hpp"
#include "proxgen/error.hpp"
#include "samples.hpp"

namespace proxgen::io {
namespace {

// The not-yet-read rest of an in-memory file.
struct MemorySource {
    const unsigned char* data = nullptr;
    std::size_t size = 0, pos = 0;
};

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

// Clamp to [0,1], round to 8 or 16 bits (16-bit samples big-endian, as PNG stores them), NaN → 0.
Pixels quantize(const Image& image, const std::string& path, const char* format, int bits) {
    if (image.dimensions() > 3 || (image.channels() != 1 && image.channels() != 3))
        fail("cannot save '{}': {} supports 1 (gray) or 3 (RGB) channels, got an image of shape {}", path,
             format, image.shape_string());
    Pixels px;
    px.width = unsigned(image.width());
    px.height = unsigned(image.height());
    px.channels = image.channels();
    px.bit_depth = bits;
    px.allocate(std::size_t(px.width) * px.channels * (bits / 8));
    const unsigned top = bits == 16 ? 65535 : 255;
    std::size_t i = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            for (int c = 0; c < px.channels; ++c) {
                const unsigned q = quantize_unit(image(x, y, c), top);
                if (bits == 16) px.data[i++] = static_cast<unsigned char>(q >> 8);
                px.data[i++] = static_cast<unsigned char>(q & 0xff);
            }
    return px;
}

// ---------------------------------------------------------------------------------- PNG

struct PngState {
    png_structp png = nullptr;
    png_infop info = nullptr;
    bool writing = false;
    std::FILE* file = nullptr;       // writing
    MemorySource source;             // reading
    const ReadLimits* limits = nullptr;
    const std::string* name = nullptr;
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

void png_read_memory(png_structp png, png_bytep out, png_size_t n) {
    auto& src = static_cast<PngState*>(png_get_io_ptr(png))->source;
    if (src.size - src.pos < n) png_error(png, "the file ends early (truncated)");
    std::memcpy(out, src.data + src.pos, n);
    src.pos += n;
}

// Returns false after a libpng error; the message is in state.message.
bool decode_png(PngState& s, Pixels& px) {
    if (setjmp(png_jmpbuf(s.png))) return false;
    png_set_read_fn(s.png, &s, png_read_memory);
    s.source.pos = 8;
    png_set_sig_bytes(s.png, 8);
    png_read_info(s.png, s.info);
    const int color = png_get_color_type(s.png, s.info);
    // Checked before anything the size of the image is allocated (this throws no further than
    // our caller: no library frame lies between).
    check_sample_count(png_get_image_width(s.png, s.info), png_get_image_height(s.png, s.info),
                       color & PNG_COLOR_MASK_COLOR ? 3 : 1, *s.limits, *s.name);
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(s.png);
    if (color == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(s.png, s.info) < 8) png_set_expand_gray_1_2_4_to_8(s.png);
    // Alpha is dropped, whether a channel or a tRNS chunk (which the expansions above would
    // otherwise turn into one).
    if ((color & PNG_COLOR_MASK_ALPHA) || png_get_valid(s.png, s.info, PNG_INFO_tRNS)) png_set_strip_alpha(s.png);
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
    png_set_IHDR(s.png, s.info, px.width, px.height, px.bit_depth, px.channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY,
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

// libjpeg answers damaged entropy-coded data with a warning and grey or repeated pixels; those
// warnings are errors here (the image would be silent garbage). Others (an unknown JFIF
// revision, extraneous bytes between markers, a bad ICC marker) leave the pixels intact.
void jpeg_on_emit(j_common_ptr cinfo, int level) {
    if (level != -1) return;  // trace messages
    switch (cinfo->err->msg_code) {
        case JWRN_JPEG_EOF:
        case JWRN_HIT_MARKER:
        case JWRN_HUFF_BAD_CODE:
        case JWRN_ARITH_BAD_CODE:
        case JWRN_MUST_RESYNC:
        case JWRN_NOT_SEQUENTIAL:
        case JWRN_BOGUS_PROGRESSION: jpeg_on_error(cinfo);
        default: return;
    }
}

// A progressive JPEG may hold any number of scans, each a pass over the whole image; a few
// bytes per scan make a file that takes minutes to decode. Real encoders write at most a few
// dozen (libjpeg-turbo's own fuzzers stop at 500).
constexpr int max_jpeg_scans = 1000;
void jpeg_on_progress(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    if (reinterpret_cast<j_decompress_ptr>(cinfo)->input_scan_number > max_jpeg_scans) {
        auto* err = reinterpret_cast<JpegError*>(cinfo->err);
        std::snprintf(err->message, sizeof err->message, "more than %d progressive scans", max_jpeg_scans);
        std::longjmp(err->jump, 1);
    }
}

template <class Struct, void (*destroy)(Struct*)>
struct JpegState {
    Struct cinfo{};
    JpegError err{};
    jpeg_progress_mgr progress{};
    bool created = false;
    std::FILE* file = nullptr;  // writing
    Bytes source;               // reading
    const ReadLimits* limits = nullptr;
    const std::string* name = nullptr;
    JpegState() {
        cinfo.err = jpeg_std_error(&err.base);
        err.base.error_exit = jpeg_on_error;
        err.base.output_message = jpeg_on_message;
        err.base.emit_message = jpeg_on_emit;
        progress.progress_monitor = jpeg_on_progress;
        cinfo.progress = &progress;
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
    jpeg_mem_src(&s.cinfo, s.source.data(), static_cast<unsigned long>(s.source.size()));
    jpeg_read_header(&s.cinfo, TRUE);
    const J_COLOR_SPACE space = s.cinfo.jpeg_color_space;
    if (space == JCS_CMYK || space == JCS_YCCK || s.cinfo.num_components == 4) {
        std::snprintf(s.err.message, sizeof s.err.message,
                      "CMYK JPEG images are not supported; convert the file to RGB or grayscale");
        return false;
    }
    // Checked before the decoder allocates anything the size of the image (this throws no further
    // than our caller: no library frame lies between).
    check_sample_count(s.cinfo.image_width, s.cinfo.image_height, s.cinfo.num_components == 1 ? 1 : 3, *s.limits,
                       *s.name);
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

// libpng allocates (and clears) the size an ancillary chunk claims before reading it: 2 GiB for
// a 100-byte file (found by fuzz/fuzz_png). A chunk cannot hold more bytes than follow it, so
// the chunk list is walked first, up to IEND.
void check_png_chunk_lengths(Bytes bytes, const std::string& name) {
    for (std::size_t pos = 8; bytes.size() - pos >= 8;) {
        const std::uint64_t length = std::uint64_t(bytes[pos]) << 24 | std::uint64_t(bytes[pos + 1]) << 16 |
                                     std::uint64_t(bytes[pos + 2]) << 8 | bytes[pos + 3];
        const std::string type(reinterpret_cast<const char*>(bytes.data()) + pos + 4, 4);
        if (length + 12 > bytes.size() - pos)
            fail("'{}': corrupt or truncated PNG file: chunk '{}' at byte {} claims {} bytes, more than the file holds",
                 name, type, pos, length);
        if (type == "IEND") return;
        pos += std::size_t(length) + 12;
    }
}

}  // namespace

Image read_png(Bytes bytes, const std::string& name, const ReadLimits& limits) {
    if (bytes.size() < 8 || png_sig_cmp(bytes.data(), 0, 8) != 0) fail("'{}' is not a PNG file (bad signature)", name);
    check_png_chunk_lengths(bytes, name);
    PngState s;
    s.source = {bytes.data(), bytes.size(), 0};
    s.limits = &limits;
    s.name = &name;
    s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, png_on_error, png_on_warning);
    if (s.png) s.info = png_create_info_struct(s.png);
    if (!s.png || !s.info) fail("'{}': libpng could not allocate its state", name);
    Pixels px;
    if (!decode_png(s, px)) fail("'{}': corrupt or unsupported PNG file: {}", name, s.message);
    return to_image(px, name);
}

Image read_png(const std::string& path) {
    const std::vector<unsigned char> bytes = read_all(path);
    return read_png(Bytes(bytes), path);
}

void write_png(const std::string& path, const Image& image, int bits) {
    if (bits != 8 && bits != 16) fail("cannot save '{}': PNG samples are 8 or 16 bits, not {}", path, bits);
    Pixels px = quantize(image, path, "PNG", bits);
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

Image read_jpeg(Bytes bytes, const std::string& name, const ReadLimits& limits) {
    JpegReader s;
    s.source = bytes;
    s.limits = &limits;
    s.name = &name;
    Pixels px;
    if (!decode_jpeg(s, px)) fail("'{}': corrupt or unsupported JPEG file: {}", name, s.err.message);
    return to_image(px, name);
}

Image read_jpeg(const std::string& path) {
    const std::vector<unsigned char> bytes = read_all(path);
    return read_jpeg(Bytes(bytes), path);
}

void write_jpeg(const std::string& path, const Image& image) {
    Pixels px = quantize(image, path, "JPEG", 8);
    JpegWriter s;
    s.file = open_or_fail(path, "wb");
    if (!encode_jpeg(s, px)) fail("cannot save '{}': libjpeg error: {}", path, s.err.message);
    const bool write_error = std::ferror(s.file) != 0;
    const int closed = std::fclose(s.file);
    s.file = nullptr;
    if (write_error || closed != 0) fail("error while writing '{}': {}", path, std::strerror(errno));
}

}  // namespace proxgen::io
