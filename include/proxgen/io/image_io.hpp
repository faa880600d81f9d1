// Image files in and out. Errors (missing file, unknown extension, unsupported pixel type,
// corrupt data) throw proxgen::Error naming the file and the problem.
#pragma once

#include <string>

#include "proxgen/image.hpp"

namespace proxgen {

/// Loads .npy (float32/float64/uint8/uint16, C order, shape (H,W) or (H,W,C)), .png (8/16-bit),
/// .jpg/.jpeg and .pfm. Integer images are scaled to [0,1] (png/jpg, and uint8/uint16 npy).
/// An image with one channel comes back 2-D.
Image load_image(const std::string& path);

/// Saves by extension: .npy and .pfm keep floats; .png (8-bit) and .jpg clamp to [0,1].
void save_image(const std::string& path, const Image& image);

}  // namespace proxgen
