#include "proxgen/image.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "proxgen/error.hpp"

namespace proxgen {

namespace {
/// malloc that throws instead of returning null: Halide::Runtime::Buffer::allocate writes its
/// allocation header into whatever its allocator returns, so a null would be written through.
void* allocate_or_throw(std::size_t bytes) {
    void* p = std::malloc(bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
}

/// Maps the whole pages inside [p, p + bytes) in one call (MADV_POPULATE_WRITE, Linux 5.14 on;
/// elsewhere a no-op) before the zero fill touches them: a fresh page faulted in one at a time
/// cost 0.42 ms per MB on the 2-core VM, populated 0.27 — what a large problem's buffers pay
/// before its first iteration. Small images live in pages malloc has already mapped.
void populate(float* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    constexpr std::size_t page = 4096, worth_it = 64 * page;
    if (bytes < worth_it) return;
    const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~std::uintptr_t(page - 1);
    const std::uintptr_t last = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~std::uintptr_t(page - 1);
    if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
#else
    (void)p, (void)bytes;
#endif
}

/// "40000000000 bytes (37.3 GiB)"
std::string byte_count(double bytes) {
    if (bytes < 1024.0 * 1024.0) return fmt::format("{:.0f} bytes", bytes);
    if (bytes < 1024.0 * 1024.0 * 1024.0) return fmt::format("{:.0f} bytes ({:.1f} MiB)", bytes, bytes / (1024.0 * 1024.0));
    return fmt::format("{:.0f} bytes ({:.1f} GiB)", bytes, bytes / (1024.0 * 1024.0 * 1024.0));
}
}  // namespace

Image::Image(int width, int height, int channels)
    : Image(channels > 1 ? std::vector<int>{width, height, channels} : std::vector<int>{width, height}) {}

Image::Image(const std::vector<int>& sizes) {
    if (sizes.empty() || sizes.size() > 4) fail("Image: rank must be 1..4, got {}", sizes.size());
    for (int s : sizes)
        if (s <= 0) fail("Image: every size must be positive, got {}", proxgen::shape_string(sizes));
    // Halide buffers keep int32 strides: every axis but the last must start within 2^31 elements.
    double before_last = 1, elements = 1;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
        if (d + 1 < sizes.size()) before_last *= sizes[d];
        elements *= sizes[d];
    }
    if (before_last > INT_MAX)
        throw OutOfMemory(fmt::format("cannot allocate a {} float32 image ({}): its axes but the last hold {:.0f} "
                                      "elements, more than a Halide buffer addresses (2147483647)",
                                      proxgen::shape_string(sizes), byte_count(4 * elements), before_last));
    buf_ = Buffer(nullptr, sizes);
    try {
        buf_.allocate(&allocate_or_throw, &std::free);
    } catch (const std::bad_alloc&) {
        buf_ = Buffer();
        throw OutOfMemory(fmt::format("cannot allocate {} for a {} float32 image: not enough memory",
                                      byte_count(4 * elements), proxgen::shape_string(sizes)));
    }
    populate(buf_.data(), 4 * std::size_t(elements));
    // Not buf_.fill(0): Halide 14's for_each_value, flattening a dense buffer, advances its pointer by
    // an uninitialized stride (undefined behaviour that UBSan reports; found by fuzz/fuzz_tiff).
    // A fresh Buffer is dense, so one std::fill_n covers it.
    std::fill_n(buf_.data(), buf_.number_of_elements(), 0.0f);
}

Image::Image(Buffer buffer) : buf_(std::move(buffer)) {
    if ((buf_.data() != nullptr) && buf_.dimensions() > 0 && buf_.dim(0).stride() != 1)
        fail("Image: wrapped buffers must be dense along x (stride 1), got stride {}", buf_.dim(0).stride());
}

std::vector<int> Image::sizes() const {
    std::vector<int> s;
    for (int d = 0; d < dimensions(); ++d) s.push_back(buf_.dim(d).extent());
    return s;
}

Image Image::copy() const {
    if (!(buf_.data() != nullptr)) return Image();
    // Not buf_.copy(): Halide 14's copy_from goes through for_each_value, whose flattening of dense
    // dimensions advances pointers by an uninitialized stride (see the constructor). Rows are dense
    // (stride 1 along x, checked on wrapping), so one row at a time is a memcpy.
    Image out;
    try {
        out = Image(sizes());
    } catch (const OutOfMemory&) {
        throw OutOfMemory(fmt::format("cannot allocate {} for a copy of a {} float32 image: not enough memory",
                                      byte_count(4.0 * double(size())), shape_string()));
    }
    const int rank = dimensions();
    const int width = buf_.dim(0).extent();
    std::vector<int> at(std::size_t(rank), 0);
    for (;;) {
        std::ptrdiff_t from = 0, to = 0;
        for (int d = 1; d < rank; ++d) {
            from += std::ptrdiff_t(at[d]) * buf_.dim(d).stride();
            to += std::ptrdiff_t(at[d]) * out.buf_.dim(d).stride();
        }
        std::copy_n(buf_.data() + from, width, out.buf_.data() + to);
        int d = 1;
        while (d < rank && ++at[d] == buf_.dim(d).extent()) at[d++] = 0;
        if (d >= rank) break;
    }
    std::vector<int> mins;
    for (int d = 0; d < rank; ++d) mins.push_back(buf_.dim(d).min());
    out.buf_.set_min(mins);
    return out;
}

std::string Image::shape_string() const { return proxgen::shape_string(sizes()); }

std::string shape_string(const std::vector<int>& sizes) {
    if (sizes.empty()) return "empty";
    std::string s;
    for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? "x" : "") + std::to_string(sizes[i]);
    return s;
}

}  // namespace proxgen
