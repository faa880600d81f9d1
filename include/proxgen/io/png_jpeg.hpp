// PNG (libpng) and JPEG (libjpeg) reading and writing (internal; users call load_image/save_image).
// Integer pixels map to [0,1] on reading; on writing, values are clamped to [0,1], rounded to
// 8 bits, and NaN becomes 0. Alpha is dropped on reading. A corrupt file throws proxgen::Error:
// the libraries' error handlers jump back (setjmp/longjmp) instead of exiting the process.
#pragma once

#include <string>

#include "proxgen/image.hpp"

namespace proxgen::io {

/// Reads an 8- or 16-bit PNG: gray, gray+alpha, RGB, RGBA or palette. Gray gives a 2-D image,
/// everything else a 3-channel one.
Image read_png(const std::string& path);
/// Writes an 8-bit PNG: gray for a 1-channel image, RGB for a 3-channel one.
void write_png(const std::string& path, const Image& image);

/// Reads a baseline or progressive JPEG: gray gives a 2-D image, colour a 3-channel (RGB) one.
Image read_jpeg(const std::string& path);
/// Writes a JPEG at quality 95: gray for a 1-channel image, RGB for a 3-channel one.
void write_jpeg(const std::string& path, const Image& image);

}  // namespace proxgen::io
