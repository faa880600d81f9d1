// PNG (libpng) and JPEG (libjpeg) reading and writing (internal; users call load_image/save_image).
// Integer pixels map to [0,1] on reading (8-bit by 1/255, 16-bit by 1/65535); on writing, values
// are clamped to [0,1], rounded to 8 (or, for PNG, 16) bits, and NaN becomes 0. Alpha is dropped on
// reading: gray+alpha gives gray, RGBA gives RGB, and a palette's transparency is ignored. A corrupt
// or truncated file throws proxgen::Error: the libraries' error handlers jump back (setjmp/longjmp)
// instead of exiting the process, and libjpeg's corrupt-data warnings (a truncated file, a bad
// Huffman code), which it would answer with grey pixels, are errors too.
#pragma once

#include <string>

#include "proxgen/image.hpp"
#include "proxgen/io/codec.hpp"

namespace proxgen::io {

/// Decodes an 8- or 16-bit (or 1/2/4-bit gray or palette) PNG held in memory: gray,
/// gray+alpha, RGB, RGBA or palette, interlaced or not. Gray gives a 2-D image, everything else a
/// 3-channel one. Throws proxgen::Error naming `name`.
Image read_png(Bytes bytes, const std::string& name, const ReadLimits& limits = {});
Image read_png(const std::string& path);
/// Writes a PNG of `bits` 8 or 16 per sample: gray for a 1-channel image, RGB for a 3-channel one.
void write_png(const std::string& path, const Image& image, int bits = 8);

/// Decodes a baseline or progressive JPEG held in memory: gray gives a 2-D image, colour (YCbCr
/// or RGB) a 3-channel RGB one. CMYK and YCCK JPEGs are refused with an error.
Image read_jpeg(Bytes bytes, const std::string& name, const ReadLimits& limits = {});
Image read_jpeg(const std::string& path);
/// Writes a JPEG at quality 95: gray for a 1-channel image, RGB for a 3-channel one.
void write_jpeg(const std::string& path, const Image& image);

}  // namespace proxgen::io
