// load_image / save_image / decode_image: choose a codec by the file's extension (case-insensitive)
// and check what every codec would otherwise check on its own: the file exists, the image is not
// empty. The codecs themselves name the path in their errors, so every message says which file
// failed.
#include "proxgen/io/image_io.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include "file_bytes.hpp"
#include "proxgen/error.hpp"
#include "proxgen/io/npy.hpp"
#include "proxgen/io/npz.hpp"
#include "proxgen/io/pfm.hpp"
#include "proxgen/io/png_jpeg.hpp"
#include "proxgen/io/tiff.hpp"

namespace proxgen {
namespace {

constexpr const char* supported_extensions = ".npy, .npz, .png, .jpg, .jpeg, .pfm, .tif, .tiff";

enum class Format { npy, npz, png, jpeg, pfm, tiff };

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

// "archive.npz:NAME" → {"archive.npz", "NAME"}; any other path → {path, ""}.
std::pair<std::string, std::string> split_npz_member(const std::string& path) {
    const std::size_t colon = path.rfind(':');
    if (colon != std::string::npos && colon >= 4 && lower(path.substr(colon - 4, 4)) == ".npz")
        return {path.substr(0, colon), path.substr(colon + 1)};
    return {path, ""};
}

std::optional<Format> known_format(const std::string& file) {
    const std::string ext = lower(std::filesystem::path(file).extension().string());
    if (ext == ".npy") return Format::npy;
    if (ext == ".npz") return Format::npz;
    if (ext == ".png") return Format::png;
    if (ext == ".jpg" || ext == ".jpeg") return Format::jpeg;
    if (ext == ".pfm") return Format::pfm;
    if (ext == ".tif" || ext == ".tiff") return Format::tiff;
    return std::nullopt;
}

Format format_of(const std::string& file, const char* action) {
    if (const auto f = known_format(file)) return *f;
    const std::string ext = lower(std::filesystem::path(file).extension().string());
    fail("cannot {} '{}': unknown image file extension '{}' (supported: {})", action, file,
         ext.empty() ? "(none)" : ext, supported_extensions);
}

Image decode(io::Bytes bytes, const std::string& file, const std::string& member, Format format) {
    switch (format) {
        case Format::npy: return io::read_npy(bytes, file);
        case Format::npz: return io::read_npz(bytes, file, member);
        case Format::png: return io::read_png(bytes, file);
        case Format::jpeg: return io::read_jpeg(bytes, file);
        case Format::pfm: return io::read_pfm(bytes, file);
        case Format::tiff: return io::read_tiff(bytes, file);
    }
    PROXGEN_INTERNAL_ASSERT(false);
    return {};
}

}  // namespace

const char* image_file_extensions() { return supported_extensions; }

bool is_image_file(const std::string& path) { return known_format(split_npz_member(path).first).has_value(); }

Image load_image(const std::string& path) {
    const auto [file, member] = split_npz_member(path);
    const Format format = format_of(file, "load");
    std::error_code ec;
    const auto status = std::filesystem::status(file, ec);
    if (!std::filesystem::exists(status)) fail("cannot load '{}': no such file", file);
    if (std::filesystem::is_directory(status)) fail("cannot load '{}': it is a directory", file);
    const std::vector<unsigned char> bytes = io::read_all(file);
    Image image = decode(io::Bytes(bytes), file, member, format);
    if (image.empty()) fail("cannot load '{}': the image has no pixels", path);
    return image;
}

Image decode_image(std::span<const unsigned char> bytes, const std::string& name) {
    const auto [file, member] = split_npz_member(name);
    Image image = decode(bytes, file, member, format_of(file, "decode"));
    if (image.empty()) fail("cannot decode '{}': the image has no pixels", name);
    return image;
}

void save_image(const std::string& path, const Image& image) { save_image(path, image, SaveOptions{}); }

void save_image(const std::string& path, const Image& image, const SaveOptions& options) {
    const auto split = split_npz_member(path);  // not a structured binding: the lambda below captures it
    const std::string& file = split.first;
    const std::string& member = split.second;
    const Format format = format_of(file, "save");
    if (image.empty()) fail("cannot save '{}': the image has no pixels", file);
    const int bits = options.bits;
    auto require_bits = [&](std::initializer_list<int> allowed, const char* what) {
        if (bits != 0 && std::find(allowed.begin(), allowed.end(), bits) == allowed.end())
            fail("cannot save '{}': {} are written with {}, not {} bits per sample", file, what,
                 format == Format::png    ? "8 or 16 bits"
                 : format == Format::tiff ? "8, 16 or 32 (float) bits"
                 : format == Format::jpeg ? "8 bits"
                                          : "32-bit floats",
                 bits);
    };
    switch (format) {
        case Format::npy:
            require_bits({32}, ".npy files");
            io::write_npy(file, image);
            break;
        case Format::npz:
            require_bits({32}, ".npz archives");
            io::write_npz(file, member, image);
            break;
        case Format::png:
            require_bits({8, 16}, "PNG files");
            io::write_png(file, image, bits == 0 ? 8 : bits);
            break;
        case Format::jpeg:
            require_bits({8}, "JPEG files");
            io::write_jpeg(file, image);
            break;
        case Format::pfm:
            require_bits({32}, ".pfm files");
            io::write_pfm(file, image);
            break;
        case Format::tiff:
            require_bits({8, 16, 32}, "TIFF files");
            io::write_tiff(file, image, bits == 0 ? 32 : bits);
            break;
    }
}

}  // namespace proxgen
