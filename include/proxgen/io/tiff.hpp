// TIFF reading and writing through libtiff (internal; users call load_image/save_image).
//
// Reading (any compression libtiff decodes; strips or tiles; contiguous or planar samples; either
// byte order; classic or BigTIFF):
//   - samples: unsigned 1/2/4/8/16/32/64-bit, signed 8..64-bit, float 16/32/64-bit, converted
//     by the one rule of src/io/samples.hpp: unsigned integers of 16 bits or fewer scale to
//     [0, 1] (by 1/(2^bits - 1)), wider and signed integers keep their values, floats are kept;
//   - MinIsBlack gray gives one channel (MinIsWhite too, inverted: 1 - v, for scaled integer
//     samples only); RGB gives three; a palette expands to RGB (colormap / 65535); JPEG-compressed
//     YCbCr is converted to RGB by libtiff; CMYK, CIELab and other photometric kinds are refused;
//   - extra samples marked as alpha are dropped (RGBA gives RGB, gray+alpha gray); gray pages
//     with unspecified extra samples keep every sample as a channel (multi-channel microscopy);
//     RGB keeps its first three samples;
//   - pages: one page gives a 2-D (one channel) or W x H x C image; several pages give a volume
//     W x H x pages, so every page must have one channel and the first page's size (sample
//     types may differ); a multi-page colour TIFF is refused, naming the page. Reduced-resolution pages
//     (thumbnails, NewSubfileType bit 0) are skipped.
// Writing: 32-bit float samples (default), or 8/16-bit unsigned (clamped to [0,1], NaN → 0);
// a 2-D image is one gray page, a 3-channel one an RGB page, any other W x H x C image C gray
// pages (a volume); uncompressed strips; BigTIFF when the data passes 3.5 GiB.
#pragma once

#include <string>

#include "proxgen/image.hpp"
#include "proxgen/io/codec.hpp"

namespace proxgen::io {

/// Decodes a TIFF held in memory as described above. Throws proxgen::Error naming `name` (and
/// the page, for a problem in a later page), with libtiff's own message for corrupt data.
Image read_tiff(Bytes bytes, const std::string& name, const ReadLimits& limits = {});
Image read_tiff(const std::string& path);

/// Writes `image` with `bits` 32 (float), 16 or 8 (unsigned integers) per sample.
void write_tiff(const std::string& path, const Image& image, int bits = 32);

}  // namespace proxgen::io
