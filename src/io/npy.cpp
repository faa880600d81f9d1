// .npy reader and writer. Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
//   magic "\x93NUMPY", major, minor, header length (uint16 LE in v1, uint32 LE in v2/v3),
//   then a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (H, W), }
//   padded with spaces and a '\n' so that the pixel data starts at a multiple of 64 bytes.
// Samples are decoded byte by byte (src/io/samples.cpp), so the host's byte order never matters.
#include "proxgen/io/npy.hpp"

#include <charconv>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "file_bytes.hpp"
#include "proxgen/error.hpp"
#include "proxgen/check/rules.hpp"
#include "samples.hpp"

namespace proxgen::io {
namespace {

struct NpyHeader {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::int64_t> shape;
};

// A strict reader of the one dict literal NumPy writes: string keys; a string, True/False or a
// tuple of integers as values.
class HeaderParser {
public:
    HeaderParser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

    NpyHeader parse() {
        NpyHeader h;
        bool has_descr = false, has_order = false, has_shape = false;
        expect('{');
        while (!eat('}')) {
            const std::string key = string_literal("a key");
            expect(':');
            if (key == "descr") {
                skip_spaces();
                if (pos_ < text_.size() && text_[pos_] == '[')
                    fail("'{}': structured .npy dtypes (records) are not images; save a plain numeric array",
                         name_);
                h.descr = string_literal("the 'descr' value");
                has_descr = true;
            } else if (key == "fortran_order") {
                h.fortran_order = boolean();
                has_order = true;
            } else if (key == "shape") {
                h.shape = tuple();
                has_shape = true;
            } else {
                fail("'{}': unexpected key '{}' in the .npy header", name_, key);
            }
            if (!eat(',')) {
                expect('}');
                break;
            }
        }
        if (!has_descr || !has_order || !has_shape)
            fail("'{}': the .npy header lacks '{}'", name_, !has_descr ? "descr" : !has_order ? "fortran_order" : "shape");
        return h;
    }

private:
    void skip_spaces() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n')) ++pos_;
    }
    bool eat(char c) {
        skip_spaces();
        if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
        return false;
    }
    void expect(char c) {
        if (!eat(c)) malformed(fmt::format("expected '{}'", c));
    }
    [[noreturn]] void malformed(const std::string& what) const {
        fail("'{}': malformed .npy header ({} at offset {}): {}", name_, what, pos_,
             std::string_view(text_.substr(0, 200)));
    }
    std::string string_literal(const char* what) {
        skip_spaces();
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
            malformed(fmt::format("expected {} in quotes", what));
        const char quote = text_[pos_++];
        const std::size_t end = text_.find(quote, pos_);
        if (end == std::string_view::npos) malformed("unterminated string");
        std::string s(text_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return s;
    }
    bool boolean() {
        skip_spaces();
        for (auto [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}})
            if (text_.substr(pos_).starts_with(word)) {
                pos_ += word.size();
                return value;
            }
        malformed("expected True or False");
    }
    std::vector<std::int64_t> tuple() {
        std::vector<std::int64_t> dims;
        expect('(');
        while (!eat(')')) {
            skip_spaces();
            std::int64_t v = 0;
            const char* begin = text_.data() + pos_;
            auto [ptr, ec] = std::from_chars(begin, text_.data() + text_.size(), v);
            if (ec != std::errc() || v < 0) malformed("expected a size");
            pos_ += std::size_t(ptr - begin);
            if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 long literal
            dims.push_back(v);
            if (dims.size() > 32) malformed("too many dimensions");
            if (!eat(',')) {
                expect(')');
                break;
            }
        }
        return dims;
    }

    std::string_view text_;
    const std::string& name_;
    std::size_t pos_ = 0;
};

// '<f4', '>u2', '|b1', … → a sample type; nullopt for anything else.
std::optional<SampleType> sample_type_of(const std::string& descr) {
    if (descr.size() < 3) return std::nullopt;
    SampleType t;
    const char order = descr[0], kind = descr[1];
    if (order != '<' && order != '>' && order != '|') return std::nullopt;
    t.big_endian = order == '>';
    int bytes = 0;
    auto [ptr, ec] = std::from_chars(descr.data() + 2, descr.data() + descr.size(), bytes);
    if (ec != std::errc() || ptr != descr.data() + descr.size()) return std::nullopt;
    t.bytes = bytes;
    if (kind == 'f') t.kind = SampleKind::floating;
    else if (kind == 'i') t.kind = SampleKind::signed_integer;
    else if (kind == 'u') t.kind = SampleKind::unsigned_integer;
    else if (kind == 'b') t.kind = SampleKind::boolean;
    else return std::nullopt;
    if (!is_supported(t) || (order == '|' && bytes != 1)) return std::nullopt;
    return t;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

Image read_npy(Bytes bytes, const std::string& name, const ReadLimits& limits) {
    static constexpr unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (bytes.size() < 10 || std::memcmp(bytes.data(), magic, sizeof magic) != 0)
        fail("'{}' is not a .npy file (bad magic string)", name);
    const int major = bytes[6];
    if (major < 1 || major > 3) fail("'{}': unsupported .npy format version {}.{}", name, major, int(bytes[7]));
    const std::size_t len_bytes = major == 1 ? 2 : 4;
    if (bytes.size() < 8 + len_bytes) fail("'{}': truncated .npy header", name);
    std::size_t header_len = 0;
    for (std::size_t i = len_bytes; i-- > 0;) header_len = header_len << 8 | bytes[8 + i];
    const std::size_t data_start = 8 + len_bytes + header_len;
    if (bytes.size() < data_start) fail("'{}': truncated .npy header", name);
    const std::string_view header(reinterpret_cast<const char*>(bytes.data()) + 8 + len_bytes, header_len);
    const NpyHeader h = HeaderParser(header, name).parse();

    const std::optional<SampleType> type = sample_type_of(h.descr);
    if (!type)
        fail("'{}': unsupported .npy dtype '{}' (supported: float16/32/64, bool, int8..int64, "
             "uint8..uint64, either byte order)", name, h.descr);
    if (h.shape.size() != 2 && h.shape.size() != 3)
        fail("'{}': .npy shape {} is not an image; expected (H, W) or (H, W, C)", name, shape_text(h.shape));
    for (auto d : h.shape)
        if (d == 0) fail("'{}': empty image (.npy shape {})", name, shape_text(h.shape));
    const std::uint64_t height = std::uint64_t(h.shape[0]), width = std::uint64_t(h.shape[1]);
    const std::uint64_t channels = h.shape.size() == 3 ? std::uint64_t(h.shape[2]) : 1;
    check_sample_count(width, height, channels, limits, name);
    const std::uint64_t count = width * height * channels;
    const std::uint64_t need = count * std::uint64_t(type->bytes);
    if (bytes.size() - data_start < need)
        fail("'{}': truncated .npy file: shape {} of {} needs {} bytes of data, found {}", name, shape_text(h.shape),
             sample_type_name(*type), need, bytes.size() - data_start);

    const int W = int(width), H = int(height), C = int(channels);
    Image image(W, H, C);
    float* out = image.data();  // a fresh Image is dense: index x + W*(y + H*c)
    const unsigned char* in = bytes.data() + data_start;
    // Element strides of array[y, x, c] in the file.
    const std::size_t sy = h.fortran_order ? 1 : std::size_t(W) * C;
    const std::size_t sx = h.fortran_order ? std::size_t(H) : std::size_t(C);
    const std::size_t sc = h.fortran_order ? std::size_t(H) * W : 1;
    const std::size_t item = std::size_t(type->bytes);
    for (int c = 0; c < C; ++c)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const unsigned char* at = in + item * (y * sy + x * sx + c * sc);
                *out = decode_sample(at, *type);
                // a finite float64 beyond float32's range would silently become infinity
                if (std::isinf(*out++))
                    if (const double v = float32_overflow(at, *type); !std::isnan(v))
                        fail("'{}': the {} value {} at {} is more than float32 (ProxGen's arithmetic) can hold (its "
                             "largest value is {}); rescale the data", name, sample_type_name(*type), rules::number(v),
                             rules::position(image.sizes(), std::size_t(x) + std::size_t(W) * (y + std::size_t(H) * c)),
                             rules::float32_max_text);
            }
    return image;
}

Image read_npy(const std::string& path) {
    const std::vector<unsigned char> bytes = read_all(path);
    return read_npy(Bytes(bytes), path);
}

std::vector<unsigned char> encode_npy(const Image& image, const std::string& name) {
    if (image.dimensions() != 2 && image.dimensions() != 3)
        fail("cannot save '{}': .npy images must be 2-D or 3-D, got {}", name, image.shape_string());
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
    return bytes;
}

void write_npy(const std::string& path, const Image& image) { write_all(path, encode_npy(image, path)); }

}  // namespace proxgen::io
