// proxgen::Image — a float32 image in Halide's layout: x (column) fastest, then y (row), then
// channel (and further axes for stacked data such as gradients). An Image with one channel is
// 2-D. It shares storage on copy (like Halide::Runtime::Buffer); use copy() for a deep copy.
#pragma once

#include <string>
#include <vector>

#include <HalideBuffer.h>

namespace proxgen {

class Image {
public:
    using Buffer = Halide::Runtime::Buffer<float>;

    Image() = default;
    /// A zero-filled width × height image, with channels > 1 a 3-D one.
    Image(int width, int height, int channels = 1);
    /// A zero-filled image of any rank 1..4; sizes[0] is the width.
    explicit Image(const std::vector<int>& sizes);
    Image(std::initializer_list<int> sizes) : Image(std::vector<int>(sizes)) {}
    /// Wraps (shares) an existing Halide buffer; it must be dense (x stride 1).
    explicit Image(Buffer buffer);

    int width() const { return dimensions() > 0 ? buf_.dim(0).extent() : 0; }
    int height() const { return dimensions() > 1 ? buf_.dim(1).extent() : 1; }
    int channels() const { return dimensions() > 2 ? buf_.dim(2).extent() : 1; }
    int dimensions() const { return (buf_.data() != nullptr) ? buf_.dimensions() : 0; }
    int extent(int axis) const { return axis < dimensions() ? buf_.dim(axis).extent() : 1; }
    std::vector<int> sizes() const;
    std::size_t size() const { return (buf_.data() != nullptr) ? buf_.number_of_elements() : 0; }
    bool empty() const { return size() == 0; }

    float* data() { return buf_.data(); }
    const float* data() const { return buf_.data(); }
    float& operator()(int x, int y, int c = 0) { return buf_.dimensions() > 2 ? buf_(x, y, c) : buf_(x, y); }
    float operator()(int x, int y, int c = 0) const {
        return buf_.dimensions() > 2 ? buf_(x, y, c) : buf_(x, y);
    }

    Buffer& buffer() { return buf_; }
    const Buffer& buffer() const { return buf_; }
    operator Buffer&() { return buf_; }
    operator const Buffer&() const { return buf_; }

    /// A deep copy with its own storage (and no name: it is not the named data).
    Image copy() const;
    /// The name a typed problem gives this image as its data (pg::input, proxgen/typed/named.hpp):
    /// a generated solver's Data field of that name takes it as the user has it. "" for anonymous
    /// data. Images sharing the storage through a copy of this handle keep it.
    const std::string& name() const { return name_; }
    /// This image (its storage shared) under `name`.
    Image named(std::string name) const {
        Image n = *this;
        n.name_ = std::move(name);
        return n;
    }
    /// "512x512" or "512x512x3": used in error messages.
    std::string shape_string() const;

private:
    Buffer buf_;
    std::string name_;
};

/// "512x512x2" for a size list.
std::string shape_string(const std::vector<int>& sizes);

}  // namespace proxgen
