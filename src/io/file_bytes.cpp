#include "file_bytes.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "proxgen/error.hpp"

namespace proxgen::io {

using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

std::vector<unsigned char> read_all(const std::string& path) {
    FilePtr f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) fail("cannot open '{}' for reading: {}", path, std::strerror(errno));
    std::vector<unsigned char> bytes;
    unsigned char chunk[1 << 16];
    std::size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f.get())) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
    if (std::ferror(f.get())) fail("error while reading '{}'", path);
    return bytes;
}

void write_all(const std::string& path, const std::vector<unsigned char>& bytes) {
    FilePtr f(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!f) fail("cannot open '{}' for writing: {}", path, std::strerror(errno));
    if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size() || std::fclose(f.release()) != 0)
        fail("error while writing '{}': {}", path, std::strerror(errno));
}

void check_sample_count(std::uint64_t width, std::uint64_t height, std::uint64_t depth, const ReadLimits& limits,
                        const std::string& name) {
    constexpr std::uint64_t max_extent = 0x7fffffff;  // Image extents are int
    // Each factor below 2^31, so width * height fits in 64 bits; w*h*d > L  <=>  w*h > floor(L / d).
    const bool too_large = width > max_extent || height > max_extent || depth > max_extent ||
                           width * height > limits.max_samples / std::max<std::uint64_t>(depth, 1);
    if (too_large)
        fail("'{}': the image would be {}x{}x{} samples, more than the limit of {} samples (a corrupt header, or "
             "an image too large to process)", name, width, height, depth, limits.max_samples);
}

void append_interleaved_f32(std::vector<unsigned char>& bytes, const Image& image, bool bottom_up) {
    const int w = image.width(), h = image.height(), ch = image.channels();
    for (int r = 0; r < h; ++r) {
        const int y = bottom_up ? h - 1 - r : r;
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < ch; ++c) {
                const auto bits = std::bit_cast<std::uint32_t>(image(x, y, c));
                for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<unsigned char>(bits >> (8 * b)));
            }
    }
}

}  // namespace proxgen::io
