// NumPy .npy reading and writing (internal; users call load_image/save_image).
//
// NumPy stores an image as an array of shape (H, W) or (H, W, C) in C order (the channel varies
// fastest in the file) or Fortran order (the row index varies fastest). ProxGen images use Halide's
// layout (x fastest, then y, then channel), so both directions transpose: pixel (x, y, c) of the
// Image is array[y, x, c] in NumPy, whatever the file's order.
#pragma once

#include <string>
#include <vector>

#include "proxgen/image.hpp"
#include "proxgen/io/codec.hpp"

namespace proxgen::io {

/// Decodes a .npy file (format v1/v2/v3) held in memory. dtype: float16/32/64, bool,
/// int8/16/32/64, uint8/16/32/64, little- or big-endian ('<', '>', '|'), C or Fortran order;
/// shape (H, W) or (H, W, C). Conversion to float32 (the rule of src/io/samples.hpp): floats keep
/// their values, uint8 and uint16 are scaled to [0, 1] (by 1/255, 1/65535), every other integer
/// keeps its value, bool gives 0/1. Shape (H, W) and (H, W, 1) give a 2-D image.
/// Throws proxgen::Error naming `name`.
Image read_npy(Bytes bytes, const std::string& name, const ReadLimits& limits = {});
/// Reads and decodes the file at `path`.
Image read_npy(const std::string& path);

/// The .npy bytes of a 2-D or 3-D image: float32 '<f4', C order, shape (H, W) or (H, W, C).
/// `name` is used in errors.
std::vector<unsigned char> encode_npy(const Image& image, const std::string& name);
/// Writes encode_npy(image) to `path`.
void write_npy(const std::string& path, const Image& image);

}  // namespace proxgen::io
