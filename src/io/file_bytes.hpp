// Internal: whole-file reads and writes with errors that name the file (every codec parses and
// builds its bytes in memory).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proxgen/image.hpp"
#include "proxgen/io/codec.hpp"

namespace proxgen::io {

std::vector<unsigned char> read_all(const std::string& path);
void write_all(const std::string& path, const std::vector<unsigned char>& bytes);
/// Appends the image as little-endian float32, channels interleaved per pixel, x fastest, rows top
/// to bottom (npy) or bottom to top (pfm).
void append_interleaved_f32(std::vector<unsigned char>& bytes, const Image& image, bool bottom_up);

}  // namespace proxgen::io
