// .pfm reader and writer (http://www.pauldebevec.com/Research/HDR/PFM/).
//   "PF\n" or "Pf\n", "<width> <height>\n", "<scale>\n", then float32 rows, the bottom row first.
// The header is whitespace-separated text; exactly one whitespace byte follows the scale.
#include "proxgen/io/pfm.hpp"

#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "file_bytes.hpp"
#include "proxgen/error.hpp"

namespace proxgen::io {
namespace {

bool is_space(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Reads the next whitespace-delimited header token; `pos` ends on the delimiter after it.
std::string next_token(Bytes bytes, std::size_t& pos, const std::string& path) {
    while (pos < bytes.size() && is_space(bytes[pos])) ++pos;
    const std::size_t start = pos;
    while (pos < bytes.size() && !is_space(bytes[pos]) && pos - start < 64) ++pos;
    if (pos == start || pos >= bytes.size()) fail("'{}': truncated or malformed .pfm header", path);
    return std::string(bytes.begin() + std::ptrdiff_t(start), bytes.begin() + std::ptrdiff_t(pos));
}

long parse_size(const std::string& token, const std::string& path) {
    char* end = nullptr;
    const long v = std::strtol(token.c_str(), &end, 10);
    if (*end != '\0' || v < 0 || v > (1L << 30)) fail("'{}': bad .pfm image size '{}'", path, token);
    return v;
}

}  // namespace

Image read_pfm(Bytes bytes, const std::string& path, const ReadLimits& limits) {
    std::size_t pos = 0;
    const std::string kind = next_token(bytes, pos, path);
    if (kind != "PF" && kind != "Pf") fail("'{}' is not a .pfm file (it must start with 'PF' or 'Pf')", path);
    const int channels = kind == "PF" ? 3 : 1;
    const long width = parse_size(next_token(bytes, pos, path), path);
    const long height = parse_size(next_token(bytes, pos, path), path);
    const std::string scale_token = next_token(bytes, pos, path);
    char* end = nullptr;
    const double scale = std::strtod(scale_token.c_str(), &end);
    if (*end != '\0' || scale == 0.0) fail("'{}': bad .pfm scale '{}'", path, scale_token);
    ++pos;  // the single whitespace byte ending the header
    if (width == 0 || height == 0) fail("'{}': empty image ({}x{} .pfm)", path, width, height);

    check_sample_count(std::uint64_t(width), std::uint64_t(height), std::uint64_t(channels), limits, path);
    const std::size_t count = std::size_t(width) * std::size_t(height) * channels;
    if (bytes.size() - pos < count * 4)
        fail("'{}': truncated .pfm file: {}x{}x{} floats need {} bytes, found {}", path, width, height,
             channels, count * 4, bytes.size() - pos);
    const bool little = scale < 0;
    Image image(int(width), int(height), channels);
    const unsigned char* in = bytes.data() + pos;
    for (long row = 0; row < height; ++row) {
        const int y = int(height - 1 - row);  // bottom-to-top in the file
        for (long x = 0; x < width; ++x)
            for (int c = 0; c < channels; ++c) {
                const unsigned char* p = in + 4 * ((row * width + x) * channels + c);
                const std::uint32_t bits =
                    little ? std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
                                 std::uint32_t(p[3]) << 24
                           : std::uint32_t(p[3]) | std::uint32_t(p[2]) << 8 | std::uint32_t(p[1]) << 16 |
                                 std::uint32_t(p[0]) << 24;
                image(int(x), y, c) = std::bit_cast<float>(bits);
            }
    }
    return image;
}

Image read_pfm(const std::string& path) {
    const std::vector<unsigned char> bytes = read_all(path);
    return read_pfm(Bytes(bytes), path);
}

void write_pfm(const std::string& path, const Image& image) {
    const int channels = image.channels();
    if (image.dimensions() > 3 || (channels != 1 && channels != 3))
        fail("cannot save '{}': .pfm holds 1 or 3 channels, got an image of shape {}", path,
             image.shape_string());
    const int w = image.width(), h = image.height();
    const std::string header = fmt::format("{}\n{} {}\n-1.0\n", channels == 3 ? "PF" : "Pf", w, h);
    std::vector<unsigned char> bytes(header.begin(), header.end());
    bytes.reserve(bytes.size() + std::size_t(w) * h * channels * 4);
    append_interleaved_f32(bytes, image, true);
    write_all(path, bytes);
}

}  // namespace proxgen::io
