// .npy reader and writer. Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
//   magic "\x93NUMPY", major, minor, header length (uint16 LE in v1, uint32 LE in v2/v3),
//   then a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (H, W), }
//   padded with spaces and a '\n' so that the pixel data starts at a multiple of 64 bytes.
// Bytes are decoded explicitly as little-endian, so the code does not depend on the host's order.
#include "proxgen/io/npy.hpp"

#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "file_bytes.hpp"
#include "proxgen/error.hpp"

namespace proxgen::io {
namespace {

std::uint64_t load_le(const unsigned char* p, int nbytes) {
    std::uint64_t v = 0;
    for (int i = nbytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

// Locates the value of a dict key (quoted with ' or ") and returns the text after its ':'.
std::string_view value_of(std::string_view header, std::string_view key, const std::string& path) {
    for (char q : {'\'', '"'}) {
        std::string quoted(1, q);
        quoted.append(key).push_back(q);
        auto at = header.find(quoted);
        if (at == std::string_view::npos) continue;
        auto colon = header.find(':', at + quoted.size());
        if (colon == std::string_view::npos) break;
        auto rest = header.substr(colon + 1);
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        return rest;
    }
    fail("'{}': the .npy header has no '{}' entry: {}", path, key, header);
}

struct NpyHeader {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::int64_t> shape;
};

NpyHeader parse_header(std::string_view header, const std::string& path) {
    NpyHeader h;
    auto descr = value_of(header, "descr", path);
    if (descr.empty() || (descr[0] != '\'' && descr[0] != '"')) fail("'{}': malformed .npy 'descr'", path);
    auto close = descr.find(descr[0], 1);
    if (close == std::string_view::npos) fail("'{}': malformed .npy 'descr'", path);
    h.descr = std::string(descr.substr(1, close - 1));

    auto order = value_of(header, "fortran_order", path);
    if (order.starts_with("True")) h.fortran_order = true;
    else if (!order.starts_with("False")) fail("'{}': malformed .npy 'fortran_order'", path);

    auto shape = value_of(header, "shape", path);
    if (shape.empty() || shape[0] != '(') fail("'{}': malformed .npy 'shape'", path);
    auto end = shape.find(')');
    if (end == std::string_view::npos) fail("'{}': malformed .npy 'shape'", path);
    std::string_view dims = shape.substr(1, end - 1);
    while (!dims.empty()) {
        while (!dims.empty() && (dims.front() == ' ' || dims.front() == ',')) dims.remove_prefix(1);
        if (dims.empty()) break;
        std::int64_t v = 0;
        auto [ptr, ec] = std::from_chars(dims.data(), dims.data() + dims.size(), v);
        if (ec != std::errc() || v < 0) fail("'{}': malformed .npy 'shape' ({})", path, shape.substr(0, end + 1));
        h.shape.push_back(v);
        dims.remove_prefix(ptr - dims.data());
        if (!dims.empty() && dims.front() == 'L') dims.remove_prefix(1);  // Python 2 long literals
    }
    return h;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

Image read_npy(const std::string& path) {
    const std::vector<unsigned char> bytes = read_all(path);
    static constexpr unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (bytes.size() < 10 || std::memcmp(bytes.data(), magic, sizeof magic) != 0)
        fail("'{}' is not a .npy file (bad magic string)", path);
    const int major = bytes[6];
    if (major < 1 || major > 3) fail("'{}': unsupported .npy format version {}.{}", path, major, int(bytes[7]));
    const std::size_t len_bytes = major == 1 ? 2 : 4;
    if (bytes.size() < 8 + len_bytes) fail("'{}': truncated .npy header", path);
    const std::size_t header_len = load_le(bytes.data() + 8, int(len_bytes));
    const std::size_t data_start = 8 + len_bytes + header_len;
    if (bytes.size() < data_start) fail("'{}': truncated .npy header", path);
    const std::string_view header(reinterpret_cast<const char*>(bytes.data()) + 8 + len_bytes, header_len);
    const NpyHeader h = parse_header(header, path);

    if (h.fortran_order)
        fail("'{}': Fortran-order .npy arrays are not supported; save a C-order array "
             "(numpy.ascontiguousarray) instead", path);
    int item = 0;
    if (h.descr == "<f4") item = 4;
    else if (h.descr == "<f8") item = 8;
    else if (h.descr == "|u1" || h.descr == "<u1") item = 1;
    else if (h.descr == "<u2") item = 2;
    else
        fail("'{}': unsupported .npy dtype '{}' (supported: <f4 float32, <f8 float64, |u1 uint8, "
             "<u2 uint16, little-endian)", path, h.descr);

    if (h.shape.size() != 2 && h.shape.size() != 3)
        fail("'{}': .npy shape {} is not an image; expected (H, W) or (H, W, C)", path, shape_text(h.shape));
    std::uint64_t count = 1;
    for (auto d : h.shape) {
        if (d == 0) fail("'{}': empty image (.npy shape {})", path, shape_text(h.shape));
        if (d > (1 << 30)) fail("'{}': .npy shape {} is too large", path, shape_text(h.shape));
        count *= std::uint64_t(d);
        if (count > (std::uint64_t(1) << 40)) fail("'{}': .npy shape {} is too large", path, shape_text(h.shape));
    }
    const std::uint64_t need = count * item;
    if (bytes.size() - data_start < need)
        fail("'{}': truncated .npy file: shape {} needs {} bytes of data, found {}", path,
             shape_text(h.shape), need, bytes.size() - data_start);

    const int height = int(h.shape[0]), width = int(h.shape[1]);
    const int channels = h.shape.size() == 3 ? int(h.shape[2]) : 1;
    Image image(width, height, channels);
    float* out = image.data();  // a fresh Image is dense: index x + W*(y + H*c)
    const unsigned char* in = bytes.data() + data_start;
    const std::size_t plane = std::size_t(width) * height;
    // The file walks (y, x, c) with c fastest; the Image has x fastest and c slowest.
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t c = i % channels, pixel = i / channels;
        const std::uint64_t raw = load_le(in + i * item, item);
        float v;
        if (item == 4) v = std::bit_cast<float>(std::uint32_t(raw));
        else if (item == 8) v = float(std::bit_cast<double>(raw));
        else if (item == 1) v = float(raw) / 255.0f;
        else v = float(raw) / 65535.0f;
        out[c * plane + pixel] = v;
    }
    return image;
}

void write_npy(const std::string& path, const Image& image) {
    if (image.dimensions() != 2 && image.dimensions() != 3)
        fail("cannot save '{}': .npy images must be 2-D or 3-D, got {}", path, image.shape_string());
    const int w = image.width(), h = image.height(), ch = image.channels();
    std::string dict = image.dimensions() == 2
                           ? fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}", h, w)
                           : fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}, {}), }}", h, w, ch);
    // v1 header: 10 bytes of preamble; pad with spaces so the total ends with '\n' on a 64-byte boundary.
    const std::size_t total = (10 + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - 10 - dict.size() - 1, ' ');
    dict.push_back('\n');

    std::vector<unsigned char> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                        static_cast<unsigned char>(dict.size() & 0xff),
                                        static_cast<unsigned char>(dict.size() >> 8)};
    bytes.insert(bytes.end(), dict.begin(), dict.end());
    bytes.reserve(bytes.size() + std::size_t(w) * h * ch * 4);
    append_interleaved_f32(bytes, image, false);
    write_all(path, bytes);
}

}  // namespace proxgen::io
