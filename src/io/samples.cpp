#include "samples.hpp"

#include <bit>
#include <cmath>
#include <cstdint>

#include "proxgen/error.hpp"

namespace proxgen::io {
namespace {

std::uint64_t load_bits(const unsigned char* p, int bytes, bool big_endian) {
    std::uint64_t v = 0;
    if (big_endian)
        for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
    else
        for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

// IEEE 754 binary16 → float32 (exact: every half is a float).
float half_to_float(std::uint16_t h) {
    const int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    float magnitude;
    if (exponent == 0) magnitude = std::ldexp(float(mantissa), -24);  // zero and subnormals
    else if (exponent == 31) magnitude = mantissa ? NAN : INFINITY;
    else magnitude = std::ldexp(float(mantissa | 0x400), exponent - 25);
    return sign ? -magnitude : magnitude;
}

}  // namespace

bool is_supported(SampleType t) {
    switch (t.kind) {
        case SampleKind::floating: return t.bytes == 2 || t.bytes == 4 || t.bytes == 8;
        case SampleKind::signed_integer:
        case SampleKind::unsigned_integer: return t.bytes == 1 || t.bytes == 2 || t.bytes == 4 || t.bytes == 8;
        case SampleKind::boolean: return t.bytes == 1;
    }
    return false;
}

float decode_sample(const unsigned char* p, SampleType t) {
    const std::uint64_t bits = load_bits(p, t.bytes, t.big_endian);
    switch (t.kind) {
        case SampleKind::floating:
            if (t.bytes == 2) return half_to_float(std::uint16_t(bits));
            if (t.bytes == 4) return std::bit_cast<float>(std::uint32_t(bits));
            return float(std::bit_cast<double>(bits));
        case SampleKind::unsigned_integer:
            if (t.bytes == 1) return float(bits) / 255.0f;
            if (t.bytes == 2) return float(bits) / 65535.0f;
            return float(bits);
        case SampleKind::signed_integer: {
            // Sign-extend from t.bytes * 8 bits.
            const int shift = 64 - 8 * t.bytes;
            return float(std::int64_t(bits << shift) >> shift);
        }
        case SampleKind::boolean: return bits != 0 ? 1.0f : 0.0f;
    }
    PROXGEN_INTERNAL_ASSERT(false);
    return 0.0f;
}

double float32_overflow(const unsigned char* p, SampleType t) {
    if (t.kind != SampleKind::floating || t.bytes != 8) return NAN;  // only float64 exceeds float32
    const double v = std::bit_cast<double>(load_bits(p, t.bytes, t.big_endian));
    return std::isfinite(v) && !std::isfinite(float(v)) ? v : NAN;
}

unsigned quantize_unit(float v, unsigned top) {
    const float clamped = std::isnan(v) ? 0.0f : std::fmin(std::fmax(v, 0.0f), 1.0f);
    return unsigned(std::lround(clamped * float(top)));
}

std::string sample_type_name(SampleType t) {
    switch (t.kind) {
        case SampleKind::floating: return "float" + std::to_string(8 * t.bytes);
        case SampleKind::signed_integer: return "int" + std::to_string(8 * t.bytes);
        case SampleKind::unsigned_integer: return "uint" + std::to_string(8 * t.bytes);
        case SampleKind::boolean: return "bool";
    }
    return "unknown";
}

}  // namespace proxgen::io
