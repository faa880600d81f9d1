// The body every image-reader fuzzer shares: decode the input with a small sample limit (so a
// header claiming a huge image is refused instead of exhausting memory), accept proxgen::Error
// as the answer to bad input, and treat anything else as a bug: another exception escapes to
// libFuzzer (reported as a crash), and a decoded image must be non-empty and within the limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "proxgen/error.hpp"
#include "proxgen/image.hpp"
#include "proxgen/io/codec.hpp"

namespace proxgen::fuzz {

// 256 Ki samples (512 x 512): far above every seed, and small enough to keep each input fast (a
// JPEG header claiming 0.7 Mi samples costs 0.4 s to decode under ASan) and far below libFuzzer's
// 2 GiB memory limit.
inline constexpr io::ReadLimits limits{.max_samples = std::uint64_t(1) << 18};

template <class Read>
int run_reader(const std::uint8_t* data, std::size_t size, Read read) {
    try {
        const Image image = read(io::Bytes(data, size));
        if (image.empty() || image.size() > limits.max_samples) std::abort();
    } catch (const Error&) {
        // bad input, named: the expected outcome
    }
    return 0;
}

}  // namespace proxgen::fuzz
