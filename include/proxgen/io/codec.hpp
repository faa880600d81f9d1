// What every image reader shares (internal; users call load_image/save_image/decode_image):
// readers decode an in-memory byte buffer, so files, network payloads and the fuzzers of fuzz/
// all go through the same code, and `name` (a path, or any label) appears in every error.
//
// A header can claim any size; before allocating, each reader checks the claimed number of
// samples against ReadLimits and, where the format makes it possible, against the number of
// bytes actually present. The default limit only stops absurd headers; the fuzzers lower it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace proxgen::io {

using Bytes = std::span<const unsigned char>;

struct ReadLimits {
    /// The most float32 samples (width × height × channels or pages) one image may decode to:
    /// 2^32 samples are 16 GiB.
    std::uint64_t max_samples = std::uint64_t(1) << 32;
};

/// Throws proxgen::Error naming `name` if width × height × depth exceeds the limit.
void check_sample_count(std::uint64_t width, std::uint64_t height, std::uint64_t depth, const ReadLimits& limits,
                        const std::string& name);

}  // namespace proxgen::io
