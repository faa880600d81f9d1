// TIFF through libtiff (4.5: per-handle error handlers, so concurrent reads keep their messages
// apart and nothing is printed). libtiff decodes strips and tiles into the host's byte order; this
// file maps stored samples to Image channels (the rules are in proxgen/io/tiff.hpp).
#include "proxgen/io/tiff.hpp"

#include <algorithm>
#include <bit>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <tiffio.h>

#include "file_bytes.hpp"
#include "proxgen/error.hpp"
#include "proxgen/check/rules.hpp"
#include "samples.hpp"

namespace proxgen::io {
namespace {

// ------------------------------------------------------------------ libtiff plumbing

// The first error libtiff reports is the cause; later ones are consequences.
struct Messages {
    std::string error;
};

int on_error(TIFF*, void* user, const char* module, const char* format, va_list args) {
    auto* m = static_cast<Messages*>(user);
    char text[512];
    std::vsnprintf(text, sizeof text, format, args);
    try {
        if (m->error.empty()) m->error = (module && *module ? std::string(module) + ": " : std::string()) + text;
    } catch (...) {  // an exception must not cross libtiff's C frames
    }
    return 1;  // handled: libtiff's global handler (stderr) is not called
}
int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

struct OpenOptions {
    TIFFOpenOptions* p = TIFFOpenOptionsAlloc();
    OpenOptions(Messages& messages, tmsize_t max_alloc) {
        if (!p) throw std::bad_alloc();
        TIFFOpenOptionsSetErrorHandlerExtR(p, on_error, &messages);
        TIFFOpenOptionsSetWarningHandlerExtR(p, on_warning, nullptr);
        if (max_alloc > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(p, max_alloc);
    }
    ~OpenOptions() { TIFFOpenOptionsFree(p); }
    OpenOptions(const OpenOptions&) = delete;
    OpenOptions& operator=(const OpenOptions&) = delete;
};

using TiffPtr = std::unique_ptr<TIFF, void (*)(TIFF*)>;

// An in-memory file for TIFFClientOpen: reads, seeks and a read-only mapping.
struct MemoryFile {
    Bytes bytes;
    std::uint64_t pos = 0;
};
tmsize_t mem_read(thandle_t h, void* buf, tmsize_t n) {
    auto* f = static_cast<MemoryFile*>(h);
    if (n <= 0 || f->pos >= f->bytes.size()) return 0;
    const std::uint64_t k = std::min<std::uint64_t>(std::uint64_t(n), f->bytes.size() - f->pos);
    std::memcpy(buf, f->bytes.data() + f->pos, std::size_t(k));
    f->pos += k;
    return tmsize_t(k);
}
tmsize_t mem_write(thandle_t, void*, tmsize_t) { return -1; }
toff_t mem_seek(thandle_t h, toff_t offset, int whence) {
    auto* f = static_cast<MemoryFile*>(h);
    const std::uint64_t base = whence == SEEK_CUR ? f->pos : whence == SEEK_END ? f->bytes.size() : 0;
    const std::uint64_t target = base + offset;  // offset may be a wrapped negative number
    if (target > (std::uint64_t(1) << 62)) return toff_t(-1);
    f->pos = target;
    return target;
}
int mem_close(thandle_t) { return 0; }
toff_t mem_size(thandle_t h) { return static_cast<MemoryFile*>(h)->bytes.size(); }
int mem_map(thandle_t h, void** base, toff_t* size) {
    auto* f = static_cast<MemoryFile*>(h);
    *base = const_cast<unsigned char*>(f->bytes.data());
    *size = f->bytes.size();
    return 1;
}
void mem_unmap(thandle_t, void*, toff_t) {}

// ------------------------------------------------------------------ reading

// How one page stores its samples and where each goes in the Image.
struct PageFormat {
    std::uint32_t width = 0, height = 0;
    std::uint16_t spp = 1, bps = 1, photometric = PHOTOMETRIC_MINISBLACK, planar = PLANARCONFIG_CONTIG;
    SampleType type;              // for bps >= 8
    bool palette = false, invert = false, tiled = false;
    std::vector<int> channel_of;  // per stored sample: the Image channel, or -1 (dropped)
    int channels = 1;
    const std::uint16_t *red = nullptr, *green = nullptr, *blue = nullptr;  // palette colormap

    bool same_layout(const PageFormat& o) const {
        return width == o.width && height == o.height && channels == o.channels;
    }
};

std::string photometric_name(int p) {
    switch (p) {
        case PHOTOMETRIC_SEPARATED: return "separated (CMYK)";
        case PHOTOMETRIC_YCBCR: return "YCbCr";
        case PHOTOMETRIC_CIELAB: return "CIELab";
        case PHOTOMETRIC_ICCLAB: return "ICCLab";
        case PHOTOMETRIC_ITULAB: return "ITULab";
        case PHOTOMETRIC_MASK: return "transparency mask";
        case PHOTOMETRIC_LOGL: return "LogL";
        case PHOTOMETRIC_LOGLUV: return "LogLuv";
        case PHOTOMETRIC_CFA: return "CFA (raw Bayer)";
        default: return "code " + std::to_string(p);
    }
}

PageFormat read_format(TIFF* tif, const std::string& where) {
    PageFormat f;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &f.width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &f.height))
        fail("{}: the TIFF page has no image size", where);
    if (f.width == 0 || f.height == 0) fail("{}: empty TIFF page ({}x{})", where, f.width, f.height);
    std::uint16_t sample_format = SAMPLEFORMAT_UINT, compression = COMPRESSION_NONE;
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &f.spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &f.bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &sample_format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &f.planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &f.photometric))
        f.photometric = f.spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;  // as libtiff guesses
    f.tiled = TIFFIsTiled(tif) != 0;
    if (f.spp == 0) fail("{}: the TIFF page has 0 samples per pixel", where);

    if (f.photometric == PHOTOMETRIC_YCBCR) {
        if (compression != COMPRESSION_JPEG)
            fail("{}: uncompressed or non-JPEG YCbCr TIFF is not supported (save it as RGB)", where);
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);  // libtiff converts to RGB
        f.photometric = PHOTOMETRIC_RGB;
    }

    const bool unsigned_int = sample_format == SAMPLEFORMAT_UINT || sample_format == SAMPLEFORMAT_VOID;
    if (f.bps < 8) {
        if (!unsigned_int || (f.bps != 1 && f.bps != 2 && f.bps != 4))
            fail("{}: {}-bit TIFF samples of sample format {} are not supported", where, f.bps, sample_format);
    } else {
        if (f.bps % 8 != 0) fail("{}: {}-bit TIFF samples are not supported (1, 2, 4, 8, 16, 32, 64)", where, f.bps);
        f.type.bytes = f.bps / 8;
        f.type.big_endian = std::endian::native == std::endian::big;  // libtiff hands out host order
        if (unsigned_int) f.type.kind = SampleKind::unsigned_integer;
        else if (sample_format == SAMPLEFORMAT_INT) f.type.kind = SampleKind::signed_integer;
        else if (sample_format == SAMPLEFORMAT_IEEEFP) f.type.kind = SampleKind::floating;
        else fail("{}: TIFF sample format {} (complex numbers) is not supported", where, sample_format);
        if (!is_supported(f.type))
            fail("{}: {}-bit {} TIFF samples are not supported", where, f.bps,
                 f.type.kind == SampleKind::floating ? "floating-point" : "integer");
    }
    // Unsigned samples of 16 bits or fewer are scaled to [0, 1]; only those can be inverted.
    const bool scaled = unsigned_int && f.bps <= 16;

    std::uint16_t extra_count = 0;
    std::uint16_t* extra_types = nullptr;
    TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types);
    auto is_alpha = [&](int extra_index) {
        return extra_index < extra_count && extra_types &&
               (extra_types[extra_index] == EXTRASAMPLE_ASSOCALPHA || extra_types[extra_index] == EXTRASAMPLE_UNASSALPHA);
    };
    f.channel_of.assign(f.spp, -1);
    switch (f.photometric) {
        case PHOTOMETRIC_MINISWHITE:
            if (!scaled) fail("{}: MinIsWhite TIFF with {}-bit non-unsigned samples is not supported", where, f.bps);
            f.invert = true;
            [[fallthrough]];
        case PHOTOMETRIC_MINISBLACK: {
            int next = 0;
            for (int s = 0; s < f.spp; ++s)
                if (s == 0 || !is_alpha(s - 1)) f.channel_of[std::size_t(s)] = next++;
            f.channels = next;
            break;
        }
        case PHOTOMETRIC_RGB:
            if (f.spp < 3) fail("{}: an RGB TIFF page needs 3 samples per pixel, it has {}", where, f.spp);
            for (int s = 0; s < 3; ++s) f.channel_of[std::size_t(s)] = s;
            f.channels = 3;
            break;
        case PHOTOMETRIC_PALETTE:
            if (!unsigned_int || f.bps > 16) fail("{}: a palette TIFF needs 1..16-bit unsigned indices", where);
            if (!TIFFGetField(tif, TIFFTAG_COLORMAP, &f.red, &f.green, &f.blue))
                fail("{}: the palette TIFF page has no colormap", where);
            f.palette = true;
            f.channel_of[0] = 0;
            f.channels = 3;
            break;
        default:
            fail("{}: TIFF photometric interpretation {} is not supported (gray, RGB, palette or JPEG YCbCr)",
                 where, photometric_name(f.photometric));
    }
    return f;
}

// Decodes stored sample `index` of a decoded row (palette pages: the colormap index).
std::uint32_t packed_bits(const unsigned char* row, std::size_t index, int bps) {
    const std::size_t bit = index * std::size_t(bps);
    return (row[bit >> 3] >> (8 - bps - int(bit & 7))) & ((1u << bps) - 1);
}

class PageDecoder {
public:
    PageDecoder(TIFF* tif, const PageFormat& f, Image& image, int first_channel, const std::string& where)
        : tif_(tif), f_(f), where_(where) {
        out_ = image.data();
        plane_ = std::size_t(f.width) * f.height;
        out_ += plane_ * std::size_t(first_channel);
    }

    // `messages` holds libtiff's reason when a read fails.
    void run(const Messages& messages) {
        const bool separate = f_.planar == PLANARCONFIG_SEPARATE && f_.spp > 1;
        const int planes = separate ? f_.spp : 1, per_pixel = separate ? 1 : f_.spp;
        if (f_.tiled) {
            std::uint32_t tw = 0, th = 0;
            TIFFGetField(tif_, TIFFTAG_TILEWIDTH, &tw);
            TIFFGetField(tif_, TIFFTAG_TILELENGTH, &th);
            const std::uint64_t tile_bytes = TIFFTileSize64(tif_), row_bytes = TIFFTileRowSize64(tif_);
            if (tw == 0 || th == 0 || tile_bytes == 0 || row_bytes * th > tile_bytes)
                fail("{}: bad TIFF tile layout{}", where_, reason(messages));
            std::vector<unsigned char> buf(tile_bytes);
            for (int p = 0; p < planes; ++p)
                for (std::uint32_t ty = 0; ty < f_.height; ty += th)
                    for (std::uint32_t tx = 0; tx < f_.width; tx += tw) {
                        const std::uint32_t tile = TIFFComputeTile(tif_, tx, ty, 0, std::uint16_t(p));
                        const tmsize_t n = TIFFReadEncodedTile(tif_, tile, buf.data(), tmsize_t(tile_bytes));
                        if (n < 0 || std::uint64_t(n) < tile_bytes)
                            fail("{}: cannot decode TIFF tile {}{}", where_, tile, reason(messages));
                        const std::uint32_t rows = std::min(th, f_.height - ty), cols = std::min(tw, f_.width - tx);
                        for (std::uint32_t j = 0; j < rows; ++j)
                            store_row(buf.data() + j * row_bytes, tx, ty + j, cols, p, per_pixel);
                    }
        } else {
            std::uint32_t rows_per_strip = 0;
            TIFFGetFieldDefaulted(tif_, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
            if (rows_per_strip == 0 || rows_per_strip > f_.height) rows_per_strip = f_.height;
            const std::uint64_t strip_bytes = TIFFStripSize64(tif_), row_bytes = TIFFScanlineSize64(tif_);
            if (strip_bytes == 0 || row_bytes == 0) fail("{}: bad TIFF strip layout{}", where_, reason(messages));
            std::vector<unsigned char> buf(strip_bytes);
            for (int p = 0; p < planes; ++p)
                for (std::uint32_t y0 = 0; y0 < f_.height; y0 += rows_per_strip) {
                    const std::uint32_t strip = TIFFComputeStrip(tif_, y0, std::uint16_t(p));
                    const std::uint32_t rows = std::min(rows_per_strip, f_.height - y0);
                    const tmsize_t n = TIFFReadEncodedStrip(tif_, strip, buf.data(), tmsize_t(strip_bytes));
                    if (n < 0 || std::uint64_t(n) < rows * row_bytes)
                        fail("{}: cannot decode TIFF strip {}{}", where_, strip, reason(messages));
                    for (std::uint32_t j = 0; j < rows; ++j)
                        store_row(buf.data() + j * row_bytes, 0, y0 + j, f_.width, p, per_pixel);
                }
        }
    }

private:
    static std::string reason(const Messages& m) { return m.error.empty() ? "" : " (" + m.error + ")"; }

    // One decoded row of `cols` pixels starting at (x0, y); `plane` is the stored sample of a
    // planar page (per_pixel == 1), else every pixel holds per_pixel samples.
    void store_row(const unsigned char* row, std::uint32_t x0, std::uint32_t y, std::uint32_t cols, int plane,
                   int per_pixel) {
        float* at = out_ + std::size_t(y) * f_.width + x0;
        for (std::uint32_t i = 0; i < cols; ++i)
            for (int k = 0; k < per_pixel; ++k) {
                const int sample = per_pixel == 1 ? plane : k;
                const int channel = f_.channel_of[std::size_t(sample)];
                if (channel < 0) continue;
                const std::size_t index = std::size_t(i) * per_pixel + k;
                if (f_.palette) {
                    std::uint16_t wide = 0;
                    if (f_.bps == 16) std::memcpy(&wide, row + 2 * index, 2);  // host order
                    const std::uint32_t c = f_.bps < 8 ? packed_bits(row, index, f_.bps) : f_.bps == 8 ? row[index] : wide;
                    at[i] = float(f_.red[c]) / 65535.0f;
                    at[i + plane_] = float(f_.green[c]) / 65535.0f;
                    at[i + 2 * plane_] = float(f_.blue[c]) / 65535.0f;
                    continue;
                }
                const unsigned char* stored = row + index * std::size_t(f_.type.bytes);
                float v = f_.bps < 8 ? float(packed_bits(row, index, f_.bps)) / float((1u << f_.bps) - 1)
                                     : decode_sample(stored, f_.type);
                // a finite float64 beyond float32's range would silently become infinity
                if (std::isinf(v) && f_.bps >= 8)
                    if (const double big = float32_overflow(stored, f_.type); !std::isnan(big))
                        fail("{}: the {} value {} at (x, y, c) = ({}, {}, {}) is more than float32 (ProxGen's "
                             "arithmetic) can hold (its largest value is {}); rescale the data", where_,
                             sample_type_name(f_.type), rules::number(big), x0 + i, y, channel,
                             rules::float32_max_text);
                if (f_.invert) v = 1.0f - v;
                at[i + std::size_t(channel) * plane_] = v;
            }
    }

    TIFF* tif_;
    const PageFormat& f_;
    const std::string& where_;
    float* out_ = nullptr;
    std::size_t plane_ = 0;
};

std::string page_name(const std::string& name, std::size_t page, std::size_t pages) {
    return pages > 1 ? fmt::format("'{}' (page {})", name, page + 1) : "'" + name + "'";
}

}  // namespace

Image read_tiff(Bytes bytes, const std::string& name, const ReadLimits& limits) {
    if (bytes.size() < 8 || !((bytes[0] == 'I' && bytes[1] == 'I') || (bytes[0] == 'M' && bytes[1] == 'M')))
        fail("'{}' is not a TIFF file (bad byte-order mark)", name);
    Messages messages;
    // libtiff's own allocations (strip tables, decode buffers) stay within a few times the image.
    const std::uint64_t max_alloc =
        limits.max_samples > (std::uint64_t(INT64_MAX) >> 4) ? std::uint64_t(INT64_MAX) : limits.max_samples * 8 + (1 << 20);
    OpenOptions options(messages, tmsize_t(max_alloc));
    MemoryFile file{bytes, 0};
    TiffPtr tif(TIFFClientOpenExt(name.c_str(), "r", &file, mem_read, mem_write, mem_seek, mem_close, mem_size,
                                  mem_map, mem_unmap, options.p),
                &TIFFClose);
    if (!tif) fail("'{}': not a readable TIFF file ({})", name, messages.error.empty() ? "unknown error" : messages.error);

    // First pass: every full-resolution page's format, checked against the first.
    std::vector<tdir_t> pages;
    PageFormat first;
    for (;;) {
        std::uint32_t subfile = 0;
        const bool reduced =
            TIFFGetField(tif.get(), TIFFTAG_SUBFILETYPE, &subfile) && (subfile & FILETYPE_REDUCEDIMAGE) != 0;
        if (!reduced) {
            const std::string where = page_name(name, pages.size(), 2);
            PageFormat f = read_format(tif.get(), where);
            if (pages.empty()) first = f;
            else if (!f.same_layout(first) || first.channels != 1)
                fail("{}: a multi-page TIFF reads as a volume (width x height x pages), so every page must have "
                     "one channel and the first page's size: page 1 is {}x{}x{}, this page {}x{}x{} (a multi-page "
                     "colour TIFF is not supported; save one file per page)",
                     where, first.width, first.height, first.channels, f.width, f.height, f.channels);
            pages.push_back(TIFFCurrentDirectory(tif.get()));
            check_sample_count(f.width, f.height, std::uint64_t(f.spp) * pages.size(), limits, name);
        }
        // TIFFReadDirectory answers 0 both at the last page and for a corrupt next one; only the
        // latter reports an error.
        messages.error.clear();
        if (!TIFFReadDirectory(tif.get())) break;
    }
    if (!messages.error.empty()) fail("'{}': corrupt TIFF directory ({})", name, messages.error);
    if (pages.empty()) fail("'{}': the TIFF holds only reduced-resolution pages", name);

    const int channels = pages.size() == 1 ? first.channels : int(pages.size());
    Image image(int(first.width), int(first.height), channels);
    for (std::size_t i = 0; i < pages.size(); ++i) {
        const std::string where = page_name(name, i, pages.size());
        messages.error.clear();
        if (!TIFFSetDirectory(tif.get(), pages[i])) fail("{}: cannot read the TIFF page ({})", where, messages.error);
        const PageFormat f = read_format(tif.get(), where);
        PageDecoder(tif.get(), f, image, int(i), where).run(messages);
    }
    return image;
}

Image read_tiff(const std::string& path) {
    const std::vector<unsigned char> bytes = read_all(path);
    return read_tiff(Bytes(bytes), path);
}

// ------------------------------------------------------------------ writing

void write_tiff(const std::string& path, const Image& image, int bits) {
    if (bits != 8 && bits != 16 && bits != 32)
        fail("cannot save '{}': TIFF samples are written as 32-bit float or 8/16-bit unsigned, not {} bits", path, bits);
    if (image.dimensions() != 2 && image.dimensions() != 3)
        fail("cannot save '{}': a TIFF holds a 2-D or 3-D image, got {}", path, image.shape_string());
    const int w = image.width(), h = image.height(), c = image.channels();
    const bool rgb = c == 3;
    const int pages = rgb ? 1 : c, spp = rgb ? 3 : 1;
    const std::uint64_t total = std::uint64_t(w) * h * c * (bits / 8);
    const bool big = total > (std::uint64_t(7) << 29);  // 3.5 GiB: classic TIFF offsets are 32-bit

    Messages messages;
    OpenOptions options(messages, 0);
    TiffPtr tif(TIFFOpenExt(path.c_str(), big ? "w8" : "w", options.p), &TIFFClose);
    if (!tif) fail("cannot open '{}' for writing: {}", path, messages.error.empty() ? "unknown error" : messages.error);
    std::vector<unsigned char> row(std::size_t(w) * spp * (bits / 8));
    for (int page = 0; page < pages; ++page) {
        TIFF* t = tif.get();
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, std::uint32_t(w));
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, std::uint32_t(h));
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, std::uint16_t(bits));
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, std::uint16_t(spp));
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, bits == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, rgb ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
        if (pages > 1) {
            TIFFSetField(t, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
            TIFFSetField(t, TIFFTAG_PAGENUMBER, std::uint16_t(page), std::uint16_t(pages));
        }
        for (int y = 0; y < h; ++y) {
            unsigned char* out = row.data();
            for (int x = 0; x < w; ++x)
                for (int s = 0; s < spp; ++s) {
                    const float v = image(x, y, rgb ? s : page);
                    if (bits == 32) {
                        std::memcpy(out, &v, 4);
                    } else if (bits == 16) {
                        const auto q = std::uint16_t(quantize_unit(v, 65535));
                        std::memcpy(out, &q, 2);
                    } else {
                        *out = static_cast<unsigned char>(quantize_unit(v, 255));
                    }
                    out += bits / 8;
                }
            if (TIFFWriteScanline(t, row.data(), std::uint32_t(y), 0) < 0)
                fail("cannot save '{}': libtiff error: {}", path, messages.error);
        }
        if (!TIFFWriteDirectory(t)) fail("cannot save '{}': libtiff error: {}", path, messages.error);
    }
    TIFFClose(tif.release());
    if (!messages.error.empty()) fail("error while writing '{}': {}", path, messages.error);
}

}  // namespace proxgen::io
