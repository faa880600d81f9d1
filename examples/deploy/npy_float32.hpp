// Minimal .npy reader/writer for float32 2-D arrays (C order), so the deployed program needs no
// ProxGen library: only the generated solver and the Halide runtime.
#pragma once

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <HalideBuffer.h>

namespace npy {

/// Reads a little-endian float32 (H, W) array into a W × H buffer (x fastest). Empty on error.
inline Halide::Runtime::Buffer<float> read(const std::string& path, std::string& error) {
    std::ifstream f(path, std::ios::binary);
    char magic[8];
    if (!f.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
        error = path + ": not an .npy file";
        return {};
    }
    unsigned header_len = 0;
    if (magic[6] == 1) {
        unsigned char l[2];
        f.read(reinterpret_cast<char*>(l), 2);
        header_len = l[0] | (l[1] << 8);
    } else {
        unsigned char l[4];
        f.read(reinterpret_cast<char*>(l), 4);
        header_len = l[0] | (l[1] << 8) | (l[2] << 16) | (unsigned(l[3]) << 24);
    }
    std::string header(header_len, ' ');
    f.read(header.data(), header_len);
    if (header.find("'<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos) {
        error = path + ": need a C-order little-endian float32 array";
        return {};
    }
    int h = 0, w = 0;
    const auto shape = header.find("'shape': (");
    if (shape == std::string::npos || std::sscanf(header.c_str() + shape, "'shape': (%d, %d)", &h, &w) != 2 || h < 1 ||
        w < 1) {
        error = path + ": need a 2-D array";
        return {};
    }
    Halide::Runtime::Buffer<float> b(w, h);
    if (!f.read(reinterpret_cast<char*>(b.data()), std::streamsize(sizeof(float)) * w * h)) {
        error = path + ": truncated";
        return {};
    }
    return b;
}

/// Writes a W × H buffer as a float32 (H, W) array.
inline bool write(const std::string& path, const Halide::Runtime::Buffer<float>& b) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(b.height()) + ", " +
                         std::to_string(b.width()) + "), }";
    while ((10 + header.size() + 1) % 64) header += ' ';
    header += '\n';
    std::ofstream f(path, std::ios::binary);
    const unsigned short len = static_cast<unsigned short>(header.size());
    f.write("\x93NUMPY\x01\x00", 8);
    f.put(char(len & 0xff)).put(char(len >> 8));
    f << header;
    f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(sizeof(float)) * b.width() * b.height());
    return bool(f);
}

}  // namespace npy
