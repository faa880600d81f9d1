// Internal: the one conversion rule from stored samples to float32, shared by the .npy and TIFF
// readers (PNG and JPEG hold only 8/16-bit unsigned samples and follow the same rule):
//   - floating point (16, 32, 64 bit) keeps its value (float64 rounds to the nearest float32);
//   - unsigned 8- and 16-bit integers are image intensities, scaled to [0, 1] by 1/255 and
//     1/65535, as PNG, JPEG and TIFF viewers show them;
//   - every other integer (int8, int16, int32, int64, uint32, uint64) keeps its value (counts,
//     labels, signed data), rounded to the nearest float32 (exact up to 2^24 in magnitude);
//   - bool gives 0 and 1.
#pragma once

#include <string>

namespace proxgen::io {

enum class SampleKind { floating, signed_integer, unsigned_integer, boolean };

struct SampleType {
    SampleKind kind = SampleKind::floating;
    int bytes = 4;  // 1, 2, 4 or 8
    bool big_endian = false;
};

/// Whether decode_sample knows this kind and size (floats of 2, 4, 8 bytes; integers of 1, 2, 4, 8;
/// bool of 1).
bool is_supported(SampleType type);
/// The sample at p, converted by the rule above. `type` must be supported.
float decode_sample(const unsigned char* p, SampleType type);
/// Where a sample decoded to infinity from a finite stored value (a float64 beyond float32's
/// range): the stored value; NaN for every other sample (which decode_sample keeps as it is).
double float32_overflow(const unsigned char* p, SampleType type);

/// The writers' inverse for 8/16-bit integer formats (PNG, JPEG, TIFF): v clamped to [0, 1],
/// scaled to [0, top] and rounded; NaN gives 0.
unsigned quantize_unit(float v, unsigned top);

/// "float16", "uint8", "bool", … for messages.
std::string sample_type_name(SampleType type);

}  // namespace proxgen::io
