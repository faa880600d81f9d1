#include "proxgen/image.hpp"

#include <algorithm>

#include "proxgen/error.hpp"

namespace proxgen {

Image::Image(int width, int height, int channels)
    : Image(channels > 1 ? std::vector<int>{width, height, channels} : std::vector<int>{width, height}) {}

Image::Image(const std::vector<int>& sizes) {
    if (sizes.empty() || sizes.size() > 4) fail("Image: rank must be 1..4, got {}", sizes.size());
    for (int s : sizes)
        if (s <= 0) fail("Image: every size must be positive, got {}", proxgen::shape_string(sizes));
    buf_ = Buffer(sizes);
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
    return Image(buf_.copy());
}

std::string Image::shape_string() const { return proxgen::shape_string(sizes()); }

std::string shape_string(const std::vector<int>& sizes) {
    if (sizes.empty()) return "empty";
    std::string s;
    for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? "x" : "") + std::to_string(sizes[i]);
    return s;
}

}  // namespace proxgen
