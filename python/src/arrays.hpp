// NumPy arrays <-> proxgen::Image, the one place where the axis order changes.
//
// NumPy users write images as (H, W) or (H, W, C): row index first. ProxGen's images are in
// Halide order, x (column) fastest, then y (row), then channel and further axes. The mapping swaps
// the first two axes and keeps the rest:
//
//     NumPy shape (H, W, d2, d3, ...)  <->  Halide sizes (W, H, d2, d3, ...)
//     NumPy a[y, x, c, ...]            <->  Halide image(x, y, c, ...)
//
// A rank-1 array (n,) is a Halide image of width n. The same swap maps axis numbers (grad's axes,
// transpose's permutation, concat's axis, reshape's shape): see numpy_axis / halide_axis.
#pragma once

// Type errors that name the argument (a few bytes per binding).
#define PYBIND11_DETAILED_ERROR_MESSAGES

#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "proxgen/image.hpp"

namespace proxgen::python {

namespace py = pybind11;

/// An image taken from a NumPy array (or anything np.asarray accepts). `owner` is the array whose
/// memory the image uses without copying (a float32 array whose strides are the Halide layout's:
/// a C-contiguous (H, W) array, or an (H, W, C) array stored plane by plane); it is None when
/// the values were copied (any other dtype or layout). Whoever keeps the image keeps the owner.
struct Borrowed {
    Image image;
    py::object owner;
};

/// Converts `array` (float64/float32/float16, unsigned or signed integers, bool; rank 1..4). Other
/// dtypes and ranks are a TypeError / proxgen::Error naming `what`.
Borrowed to_image(const py::handle& array, const std::string& what);

/// The image as a NumPy float32 array of shape (H, W[, C, ...]) that shares its storage (the array
/// keeps the image's buffer alive).
py::array to_numpy(const Image& image);

/// NumPy shape <-> Halide sizes (the swap of the first two).
std::vector<int> halide_shape(const std::vector<int>& numpy_shape);
std::vector<int> numpy_shape(const std::vector<int>& halide_sizes);
/// The Halide axis of NumPy axis `axis` of a rank-`rank` array (negative axes count from the end),
/// and back. Both swap 0 and 1 for rank >= 2.
int halide_axis(int axis, int rank);
int numpy_axis(int axis, int rank);

}  // namespace proxgen::python
