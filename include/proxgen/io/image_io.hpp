// Image files in and out, by extension (case-insensitive). docs/io.md has the whole story.
//
//   .npy          NumPy arrays (H, W) or (H, W, C): float16/32/64, bool, int8..64, uint8..64, either
//                 byte order, C or Fortran order
//   .npz          NumPy archives: "file.npz:NAME" is the array NAME; plain "file.npz" the only one
//   .png          8/16-bit (and 1/2/4-bit) gray, gray+alpha, RGB, RGBA, palette
//   .jpg .jpeg    gray or colour (CMYK is refused)
//   .pfm          Portable FloatMap, gray or colour, either byte order
//   .tif .tiff    libtiff: 1..64-bit integer and 16/32/64-bit float samples, strips or tiles,
//                 gray/RGB/palette; several pages read as a volume (width x height x pages)
//
// Every image becomes float32 in Halide's layout (x fastest); one channel gives a 2-D image.
// Integers: unsigned 8- and 16-bit samples (and PNG/JPEG/TIFF samples of 16 bits or fewer) are
// scaled to [0,1] by 1/255, 1/65535 (1/(2^bits - 1)); every other integer type (int8..int64,
// uint32, uint64) keeps its value; bool gives 0 and 1; floats are kept. Alpha is dropped.
// Errors (missing file, unknown extension, unsupported pixel type, corrupt or truncated data)
// throw proxgen::Error naming the file and the problem.
#pragma once

#include <span>
#include <string>

#include "proxgen/image.hpp"

namespace proxgen {

/// The file name extensions load_image and save_image know, for messages: ".npy, .npz, .png, …".
const char* image_file_extensions();
/// Whether a path's extension (any case) is one of them; "archive.npz:NAME" counts as .npz.
bool is_image_file(const std::string& path);

/// Loads an image file (formats above). For .npz, "archive.npz:NAME" selects the array NAME
/// (the member NAME.npy); "archive.npz" alone selects the archive's only array, and with several
/// the error lists their names. The split is at the last ':' after a ".npz".
Image load_image(const std::string& path);

/// Decodes an image file held in memory; `name` chooses the format by its extension exactly as in
/// load_image ("frame.tif", "data.npz:b") and names the image in errors.
Image decode_image(std::span<const unsigned char> bytes, const std::string& name);

struct SaveOptions {
    /// Bits per sample; 0 is the format's default: 32-bit float for .npy, .npz, .pfm and .tif,
    /// 8 bits for .png and .jpg. 16 is accepted by .png and .tif, 8 by .png, .jpg and .tif
    /// (integers: values clamped to [0,1] and scaled, NaN → 0). Anything else is an error.
    int bits = 0;
};

/// Saves by extension: .npy, .npz ("archive.npz:NAME", default name "arr_0"; a new one-array
/// archive), .pfm and .tif keep float32; .png and .jpg clamp to [0,1] and write 8 bits.
/// .tif: a 2-D image is one gray page, 3 channels one RGB page, any other channel count that
/// many gray pages (a volume). .png/.jpg/.pfm hold 1 or 3 channels.
void save_image(const std::string& path, const Image& image);
/// The same with a choice of sample size (16-bit PNG and TIFF, 8-bit TIFF).
void save_image(const std::string& path, const Image& image, const SaveOptions& options);

}  // namespace proxgen
