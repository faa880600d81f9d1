// NumPy arrays <-> proxgen::Image (see arrays.hpp for the axis mapping).
#include "arrays.hpp"

#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "proxgen/error.hpp"

namespace proxgen::python {

namespace {

/// σ: NumPy axis <-> Halide axis (an involution: swap 0 and 1 when there are two).
int swap01(int axis, int rank) {
    if (rank < 2 || axis > 1) return axis;
    return 1 - axis;
}

int normalized(int axis, int rank, const char* which) {
    const int a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank) fail("{} axis {} is out of range for an array of rank {}", which, axis, rank);
    return a;
}

std::string numpy_shape_text(const py::array& a) {
    std::vector<py::ssize_t> s(a.shape(), a.shape() + a.ndim());
    return fmt::format("({})", fmt::join(s, ", "));
}

}  // namespace

std::vector<int> halide_shape(const std::vector<int>& numpy_shape) {
    std::vector<int> h = numpy_shape;
    if (h.size() >= 2) std::swap(h[0], h[1]);
    return h;
}

std::vector<int> numpy_shape(const std::vector<int>& halide_sizes) { return halide_shape(halide_sizes); }

int halide_axis(int axis, int rank) { return swap01(normalized(axis, rank, "NumPy"), rank); }
int numpy_axis(int axis, int rank) { return swap01(normalized(axis, rank, "Halide"), rank); }

Borrowed to_image(const py::handle& obj, const std::string& what) {
    py::array a;
    if (py::isinstance<py::array>(obj)) {
        a = py::reinterpret_borrow<py::array>(obj);
    } else {
        try {
            a = py::module_::import("numpy").attr("asarray")(obj);
        } catch (py::error_already_set& e) {
            throw py::type_error(fmt::format("{}: expected a NumPy array (an image), got {} ({})", what,
                                             std::string(py::str(py::type::of(obj).attr("__name__"))), e.what()));
        }
    }
    const char kind = a.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
        throw py::type_error(fmt::format(
            "{}: ProxGen images are float32; an array of dtype {} cannot be converted (accepted: float64, float32, "
            "uint8, uint16 and other real or integer dtypes, converted to float32)",
            what, std::string(py::str(a.dtype()))));
    const int rank = int(a.ndim());
    if (rank < 1 || rank > 4)
        fail("{}: an image has 1 to 4 axes, (H, W) or (H, W, C) as NumPy writes it; got shape {}", what,
             numpy_shape_text(a));
    std::vector<int> np_shape(rank);
    for (int j = 0; j < rank; ++j) {
        if (a.shape(j) < 1) fail("{}: the array is empty (shape {})", what, numpy_shape_text(a));
        if (a.shape(j) > (1 << 30)) fail("{}: axis {} is too long ({})", what, j, a.shape(j));
        np_shape[j] = int(a.shape(j));
    }
    const std::vector<int> sizes = halide_shape(np_shape);

    // Zero copy: float32, native byte order, aligned, and each NumPy axis strided as its Halide
    // axis is in a dense x-fastest buffer (axes of extent 1 may have any stride).
    const bool float32 = a.dtype().is(py::dtype::of<float>());
    bool layout = float32 && (reinterpret_cast<std::uintptr_t>(a.data()) % alignof(float) == 0);
    std::vector<py::ssize_t> dense(rank);
    py::ssize_t s = sizeof(float);
    for (int k = 0; k < rank; ++k) {
        dense[k] = s;
        s *= sizes[k];
    }
    for (int j = 0; j < rank && layout; ++j)
        if (a.shape(j) > 1 && a.strides(j) != dense[swap01(j, rank)]) layout = false;
    if (layout) {
        Image::Buffer buf(const_cast<float*>(static_cast<const float*>(a.data())), sizes);
        return {Image(std::move(buf)), a};
    }

    // Copy: view the array with its axes in reverse Halide order, so that a C-order float32 copy
    // of that view is the x-fastest buffer.
    std::vector<py::ssize_t> order(rank);
    for (int k = 0; k < rank; ++k) order[rank - 1 - k] = swap01(k, rank);
    py::object view = a.attr("transpose")(py::cast(order));
    auto dense_copy = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(view);
    if (!dense_copy) throw py::error_already_set();
    Image img(sizes);
    std::memcpy(img.data(), dense_copy.data(), img.size() * sizeof(float));
    return {std::move(img), py::none()};
}

py::array to_numpy(const Image& image) {
    if (image.empty()) return py::array_t<float>(std::vector<py::ssize_t>{0});
    const int rank = image.dimensions();
    std::vector<py::ssize_t> shape(rank), strides(rank);
    for (int j = 0; j < rank; ++j) {
        const int k = swap01(j, rank);
        shape[j] = image.buffer().dim(k).extent();
        strides[j] = py::ssize_t(image.buffer().dim(k).stride()) * py::ssize_t(sizeof(float));
    }
    auto* keep = new Image(image);
    py::capsule owner(keep, [](void* p) { delete static_cast<Image*>(p); });
    return py::array(py::dtype::of<float>(), shape, strides, keep->data(), owner);
}

}  // namespace proxgen::python
