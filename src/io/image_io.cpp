// load_image / save_image: choose a codec by the file's extension (case-insensitive) and check
// what every codec would otherwise check on its own: the file exists, the image is not empty.
// The codecs themselves name the path in their errors, so every message says which file failed.
#include "proxgen/io/image_io.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "proxgen/error.hpp"
#include "proxgen/io/npy.hpp"
#include "proxgen/io/pfm.hpp"
#include "proxgen/io/png_jpeg.hpp"

namespace proxgen {
namespace {

constexpr const char* supported_extensions = ".npy, .png, .jpg, .jpeg, .pfm";

enum class Format { npy, png, jpeg, pfm };

Format format_of(const std::string& path, const char* action) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (ext == ".npy") return Format::npy;
    if (ext == ".png") return Format::png;
    if (ext == ".jpg" || ext == ".jpeg") return Format::jpeg;
    if (ext == ".pfm") return Format::pfm;
    fail("cannot {} '{}': unknown image file extension '{}' (supported: {})", action, path,
         ext.empty() ? "(none)" : ext, supported_extensions);
}

}  // namespace

Image load_image(const std::string& path) {
    const Format format = format_of(path, "load");
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) fail("cannot load '{}': no such file", path);
    if (std::filesystem::is_directory(status)) fail("cannot load '{}': it is a directory", path);

    Image image;
    switch (format) {
        case Format::npy: image = io::read_npy(path); break;
        case Format::png: image = io::read_png(path); break;
        case Format::jpeg: image = io::read_jpeg(path); break;
        case Format::pfm: image = io::read_pfm(path); break;
    }
    if (image.empty()) fail("cannot load '{}': the image has no pixels", path);
    return image;
}

void save_image(const std::string& path, const Image& image) {
    const Format format = format_of(path, "save");
    if (image.empty()) fail("cannot save '{}': the image has no pixels", path);
    switch (format) {
        case Format::npy: io::write_npy(path, image); break;
        case Format::png: io::write_png(path, image); break;
        case Format::jpeg: io::write_jpeg(path, image); break;
        case Format::pfm: io::write_pfm(path, image); break;
    }
}

}  // namespace proxgen
