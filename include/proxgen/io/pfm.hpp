// Portable FloatMap (.pfm) reading and writing (internal; users call load_image/save_image).
// "Pf" holds one channel, "PF" three (interleaved RGB). The third header line is a scale whose
// sign gives the byte order (negative: little-endian). Rows are stored bottom-to-top.
#pragma once

#include <string>

#include "proxgen/image.hpp"
#include "proxgen/io/codec.hpp"

namespace proxgen::io {

/// Decodes a .pfm file of either byte order held in memory; "Pf" gives a 2-D image, "PF" a
/// 3-channel one. Values are kept as stored (the scale's magnitude is not applied).
/// Throws proxgen::Error naming `name`.
Image read_pfm(Bytes bytes, const std::string& name, const ReadLimits& limits = {});
/// Reads and decodes the file at `path`.
Image read_pfm(const std::string& path);

/// Writes a 1-channel ("Pf") or 3-channel ("PF") image, little-endian (scale -1.0).
void write_pfm(const std::string& path, const Image& image);

}  // namespace proxgen::io
