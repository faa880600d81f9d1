// NumPy .npy reading and writing (internal; users call load_image/save_image).
//
// NumPy stores an image as a C-order array of shape (H, W) or (H, W, C): the channel varies
// fastest in the file. ProxGen images use Halide's layout (x fastest, then y, then channel), so
// both functions transpose. Pixel (x, y, c) of the Image is array[y, x, c] in NumPy.
#pragma once

#include <string>

#include "proxgen/image.hpp"

namespace proxgen::io {

/// Reads a .npy file (format v1/v2/v3) of dtype <f4, <f8, |u1 or <u2 in C order, shape (H, W)
/// or (H, W, C). uint8 is scaled by 1/255, uint16 by 1/65535; floats are kept as they are.
/// Shape (H, W) and (H, W, 1) give a 2-D image. Throws proxgen::Error naming `path`.
Image read_npy(const std::string& path);

/// Writes a 2-D or 3-D image as float32 '<f4', C order, shape (H, W) or (H, W, C).
void write_npy(const std::string& path, const Image& image);

}  // namespace proxgen::io
