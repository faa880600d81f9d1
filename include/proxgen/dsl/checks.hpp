// The run-time checks of every operator and penalty, and the shapes they produce: ONE function per
// node kind, called by the typed DSL's constructors (pg::conv, ...) and by the run-time front end
// (proxgen/runtime.hpp) alike, so both say the same sentence for the same mistake. Rank checks are
// here too (the typed DSL makes them static_asserts with the same sentences, proxgen/messages.hpp,
// so they never fire from typed code). Defined in the library (src/dsl/checks.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "proxgen/image.hpp"

namespace proxgen::check {

/// grad's axes: distinct axes of an operand of this rank, at least one. constexpr: the typed DSL
/// evaluates it in a static_assert, check::grad at run time.
constexpr bool valid_axes(int rank, const int* axes, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        if (axes[i] < 0 || axes[i] >= rank) return false;
        for (std::size_t j = 0; j < i; ++j)
            if (axes[i] == axes[j]) return false;
    }
    return n > 0;
}

// ---- arguments ----
/// A non-empty image: "<op>: the <what> image is empty".
void image(const Image& img, const char* op, const char* what);
/// Equal shapes: "<op>: <left> is AxB but <right> is CxD".
void same_shape(const char* op, const char* left_name, const std::vector<int>& left, const char* right_name,
                const std::vector<int>& right);

// ---- variables and operators: each returns the output shape ----
std::vector<int> variable(std::vector<int> shape);
std::vector<int> conv(const Image& kernel, const std::vector<int>& operand);
/// axes: the axes differentiated along ({0, 1}: x and y).
std::vector<int> grad(const std::vector<int>& operand, const std::vector<int>& axes);
std::vector<int> mul_elemwise(const Image& weight, const std::vector<int>& operand);
std::vector<int> subsample(const std::vector<int>& operand, int step_x, int step_y);
/// A scalar multiple's factor, as float.
float scale(double factor);
/// a + b (and a - b).
std::vector<int> sum(const std::vector<int>& a, const std::vector<int>& b);
/// e ± b: op is "+" or "-".
std::vector<int> offset(const std::vector<int>& operand, const Image& b, const char* op);
std::vector<int> crop(const std::vector<int>& operand, int x0, int y0, int width, int height);
std::vector<int> pad(const std::vector<int>& operand, int left, int top, int right, int bottom);
std::vector<int> transpose(const std::vector<int>& operand, const std::vector<int>& perm);
/// reshape to `shape`, which must have `rank` axes (the typed DSL's R).
std::vector<int> reshape(const std::vector<int>& operand, const std::vector<int>& shape, int rank);
std::vector<int> merge_last_axes(const std::vector<int>& operand);
std::vector<int> concat(const std::vector<int>& a, const std::vector<int>& b, int axis);
/// uneven_subsample's data: the index images packed as planes 0 and 1, and the most output pixels
/// that read one input pixel (‖K‖ = √multiplicity).
struct Gather {
    Image index;
    int multiplicity = 0;
    std::vector<int> shape;
};
Gather uneven_subsample(const std::vector<int>& operand, const Image& ix, const Image& iy);
/// warp's data: H, its inverse and the adjoint's gather window packed (dsl/sampling.hpp), and ‖K‖.
struct Warp {
    Image homography;
    double norm = 0;
    std::vector<int> shape;
};
Warp warp(const std::vector<int>& operand, const Image& H, int out_width, int out_height);
std::vector<int> mul_color(const std::vector<int>& operand, const Image& matrix);
std::vector<int> pxwise_matmul(const Image& matrices, const std::vector<int>& operand);

// ---- penalties ----
/// A penalty's weight (finite, >= 0), as float.
float weight(double w);
void group_norm1(const std::vector<int>& operand);
/// The shape of weighted_group_norm1's weight: the operand's without its (group) last axis.
std::vector<int> weighted_group_norm1(const std::vector<int>& operand);
void patch_nlm(const std::vector<int>& operand);
void poisson_counts(const Image& counts, const std::vector<int>& operand);
void mask(const Image& mask, const std::vector<int>& operand);
/// box(e, lo, hi) kept as the indicator of [0, 1] at β e + c: β = 1/(hi − lo), c = −lo/(hi − lo).
struct Box {
    float beta = 1;
    Image offset;
};
Box box(const std::vector<int>& operand, float lo, float hi);
/// huber(e, M) kept as M² · h₁(e / M).
struct Huber {
    float weight = 1, beta = 1;
};
Huber huber(float threshold);
/// weighted_<op>(w, e): w non-empty, of weight_shape.
void weighted(const char* op, const Image& w, const std::vector<int>& weight_shape);
/// weighted_poisson_norm's weight: non-empty, of the expression's shape.
void weighted_poisson_weight(const Image& w, const std::vector<int>& operand);

}  // namespace proxgen::check
