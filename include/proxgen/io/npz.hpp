// NumPy .npz reading and writing (internal; users call load_image("file.npz:name")).
//
// A .npz is a zip archive of .npy files, one per array: numpy.savez stores them, and
// numpy.savez_compressed deflates them. The array "b" is the member "b.npy". Zip64 archives (as
// NumPy writes for very large arrays) are read; encrypted members and other compression methods
// are refused.
#pragma once

#include <string>
#include <vector>

#include "proxgen/image.hpp"
#include "proxgen/io/codec.hpp"

namespace proxgen::io {

/// The archive's array names (member names without ".npy"), in the archive's order.
std::vector<std::string> npz_array_names(Bytes bytes, const std::string& name);

/// Decodes array `array` of an in-memory .npz, as read_npy would. An empty `array` selects the
/// only array of a one-array archive; with several, the error lists their names. `array` may be
/// given with or without ".npy". Errors name "<name>:<array>".
Image read_npz(Bytes bytes, const std::string& name, const std::string& array, const ReadLimits& limits = {});
Image read_npz(const std::string& path, const std::string& array);

/// Writes a one-array .npz (deflated, like numpy.savez_compressed) holding `image` as float32
/// under the name `array` (NumPy's default name "arr_0" when empty).
void write_npz(const std::string& path, const std::string& array, const Image& image);

}  // namespace proxgen::io
