// Helpers shared by the image I/O tests: a temporary directory, raw file bytes, test patterns,
// comparisons, hand-made .npy bytes, and the check that an error names the file.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "proxgen/error.hpp"
#include "proxgen/image.hpp"
#include "proxgen/io/image_io.hpp"

namespace io_test {

namespace fs = std::filesystem;
using proxgen::Image;

// A fresh directory per test process, removed when the process exits.
struct TempDir {
    fs::path dir = fs::temp_directory_path() / ("proxgen_test_io_" + std::to_string(std::random_device{}()));
    TempDir() { fs::create_directories(dir); }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

inline std::string temp_path(const std::string& name) {
    static const TempDir temp;
    return (temp.dir / name).string();
}

// Committed test files (tests/io/data, fuzz/corpus, tests/io/fuzz_regressions).
inline std::string source_path(const std::string& relative) { return std::string(PROXGEN_SOURCE_DIR) + "/" + relative; }

inline void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

inline std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::span<const unsigned char> as_bytes(const std::string& s) {
    return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

// A .npy file as NumPy writes it: magic, version, header length, dict padded to 64 bytes, data.
inline std::string npy_bytes(const std::string& descr, const std::string& shape, const std::string& data,
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

// A non-symmetric test pattern in [0,1]: smooth, so JPEG reproduces it closely.
inline Image pattern(int w, int h, int c) {
    Image img(w, h, c);
    for (int ch = 0; ch < c; ++ch)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                img(x, y, ch) = 0.5f + 0.4f * std::sin(0.11f * x + 0.05f * y * y / h + 1.3f * ch);
    return img;
}

inline float max_abs_diff(const Image& a, const Image& b) {
    float m = 0;
    for (int c = 0; c < a.channels(); ++c)
        for (int y = 0; y < a.height(); ++y)
            for (int x = 0; x < a.width(); ++x) m = std::max(m, std::abs(a(x, y, c) - b(x, y, c)));
    return m;
}

inline bool same_bits(const Image& a, const Image& b) {
    if (a.sizes() != b.sizes()) return false;
    for (int c = 0; c < a.channels(); ++c)
        for (int y = 0; y < a.height(); ++y)
            for (int x = 0; x < a.width(); ++x) {
                const float u = a(x, y, c), v = b(x, y, c);
                if (std::memcmp(&u, &v, sizeof u) != 0) return false;
            }
    return true;
}

// Runs f, which must throw proxgen::Error whose message names `path` (and, if given, `also`).
template <class F>
void require_error_naming(const std::string& path, F&& f, const std::string& also = "") {
    bool threw = false;
    try {
        f();
    } catch (const proxgen::Error& e) {
        threw = true;
        INFO("message: " << e.what());
        CHECK_THAT(std::string(e.what()), Catch::Contains(path));
        if (!also.empty()) CHECK_THAT(std::string(e.what()), Catch::Contains(also));
    }
    CHECK(threw);
}

// Decodes `bytes` as `name`; true if it decoded, false on proxgen::Error (whose message must name
// `name`). Any other exception escapes and fails the test; a crash fails the run.
inline bool decodes(const std::string& bytes, const std::string& name) {
    try {
        const Image img = proxgen::decode_image(as_bytes(bytes), name);
        CHECK(!img.empty());
        return true;
    } catch (const proxgen::Error& e) {
        if (std::string(e.what()).find(name) == std::string::npos) FAIL_CHECK("error without the name: " << e.what());
        return false;
    }
}

}  // namespace io_test
