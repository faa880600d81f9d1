// The shared node checks (dsl/checks.hpp): the sentences both front ends give at run time.
#include "proxgen/dsl/checks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "proxgen/error.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::check {

namespace {
/// The largest rank of any expression: Halide layout x, y, channel, stacked axis.
constexpr int max_rank = 4;

long long count(const std::vector<int>& v) {
    long long n = 1;
    for (int x : v) n *= x;
    return n;
}

/// Operators that work on the image plane need x and y.
void plane(const char* op, const std::vector<int>& operand) {
    if (operand.size() < 2)
        fail("{}: works on the image plane, so its operand needs at least 2 axes, got {}", op, shape_string(operand));
}
}  // namespace

void image(const Image& img, const char* op, const char* what) {
    if (img.empty()) fail("{}: the {} image is empty", op, what);
}

void same_shape(const char* op, const char* left_name, const std::vector<int>& left, const char* right_name,
                const std::vector<int>& right) {
    if (left != right)
        fail("{}: {} is {} but {} is {}", op, left_name, shape_string(left), right_name, shape_string(right));
}

std::vector<int> variable(std::vector<int> shape) {
    if (shape.size() != 2 && shape.size() != 3) fail(PROXGEN_MSG_VARIABLE_RANK);
    for (int s : shape)
        if (s <= 0) fail("variable: every size must be positive, got {}", fmt::join(shape, "x"));
    return shape;
}

std::vector<int> conv(const Image& kernel, const std::vector<int>& operand) {
    image(kernel, "conv", "kernel");
    if (kernel.dimensions() != 2) fail("conv: the kernel must be 2-D, got {}", kernel.shape_string());
    plane("conv", operand);
    if (kernel.width() > operand[0] || kernel.height() > operand[1])
        fail("conv: the kernel is {} but its operand is only {}", kernel.shape_string(), shape_string(operand));
    return operand;
}

std::vector<int> grad(const std::vector<int>& operand, const std::vector<int>& axes) {
    if (int(operand.size()) + 1 > max_rank) fail(PROXGEN_MSG_GRAD_MAX_RANK);
    if (!valid_axes(int(operand.size()), axes.data(), axes.size())) fail(PROXGEN_MSG_GRAD_AXES);
    std::vector<int> shape = operand;
    shape.push_back(int(axes.size()));
    return shape;
}

std::vector<int> mul_elemwise(const Image& weight, const std::vector<int>& operand) {
    image(weight, "mul_elemwise", "weight");
    same_shape("mul_elemwise", "the weight", weight.sizes(), "its operand", operand);
    return operand;
}

std::vector<int> subsample(const std::vector<int>& operand, int step_x, int step_y) {
    if (step_x < 1 || step_y < 1) fail("subsample: steps must be >= 1, got {} and {}", step_x, step_y);
    plane("subsample", operand);
    std::vector<int> shape = operand;
    shape[0] = (shape[0] + step_x - 1) / step_x;
    shape[1] = (shape[1] + step_y - 1) / step_y;
    return shape;
}

float scale(double factor) {
    if (!std::isfinite(factor)) fail("scalar * expression: the scalar is not finite ({})", factor);
    return static_cast<float>(factor);
}

std::vector<int> sum(const std::vector<int>& a, const std::vector<int>& b) {
    if (a.size() != b.size()) fail(PROXGEN_MSG_SUM_SAME_RANK);
    same_shape("+", "the left operand", a, "the right operand", b);
    return a;
}

std::vector<int> offset(const std::vector<int>& operand, const Image& b, const char* op) {
    image(b, op, "constant");
    same_shape(op, "the expression", operand, "the image", b.sizes());
    return operand;
}

std::vector<int> crop(const std::vector<int>& s, int x0, int y0, int w, int h) {
    plane("crop", s);
    if (x0 < 0 || y0 < 0 || w < 1 || h < 1 || x0 + w > s[0] || y0 + h > s[1])
        fail("crop: the window {}x{} at ({}, {}) does not fit in its operand {}", w, h, x0, y0, shape_string(s));
    std::vector<int> shape = s;
    shape[0] = w;
    shape[1] = h;
    return shape;
}

std::vector<int> pad(const std::vector<int>& operand, int left, int top, int right, int bottom) {
    if (left < 0 || top < 0 || right < 0 || bottom < 0)
        fail("pad: the margins must be >= 0, got {}, {}, {}, {}", left, top, right, bottom);
    plane("pad", operand);
    std::vector<int> shape = operand;
    shape[0] += left + right;
    shape[1] += top + bottom;
    return shape;
}

std::vector<int> transpose(const std::vector<int>& s, const std::vector<int>& perm) {
    std::vector<int> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> iota(s.size());
    std::iota(iota.begin(), iota.end(), 0);
    if (sorted != iota)
        fail("transpose: {{{}}} is not a permutation of the {} axes of its operand {}", fmt::join(perm, ", "),
             s.size(), shape_string(s));
    std::vector<int> shape(s.size());
    for (std::size_t d = 0; d < s.size(); ++d) shape[d] = s[perm[d]];
    return shape;
}

std::vector<int> reshape(const std::vector<int>& s, const std::vector<int>& shape, int rank) {
    if (rank < 1 || rank > max_rank) fail(PROXGEN_MSG_RESHAPE_RANK);
    if (int(shape.size()) != rank || std::any_of(shape.begin(), shape.end(), [](int x) { return x < 1; }) ||
        count(shape) != count(s))
        fail("reshape: {} cannot hold the {} elements of its operand {} as a rank-{} shape", shape_string(shape),
             count(s), shape_string(s), rank);
    return shape;
}

std::vector<int> merge_last_axes(const std::vector<int>& operand) {
    if (operand.size() < 3) fail(PROXGEN_MSG_MERGE_LAST_AXES_RANK);
    std::vector<int> shape = operand;
    const int last = shape.back();
    shape.pop_back();
    shape.back() *= last;
    return reshape(operand, shape, int(operand.size()) - 1);
}

std::vector<int> concat(const std::vector<int>& sa, const std::vector<int>& sb, int axis) {
    if (sa.size() != sb.size()) fail(PROXGEN_MSG_CONCAT_SAME_RANK);
    if (axis < 0 || axis >= int(sa.size())) fail("concat: axis {} is not an axis of {}", axis, shape_string(sa));
    for (std::size_t d = 0; d < sa.size(); ++d)
        if (int(d) != axis && sa[d] != sb[d])
            fail("concat: joining along axis {}, but the operands are {} and {}", axis, shape_string(sa),
                 shape_string(sb));
    std::vector<int> shape = sa;
    shape[axis] += sb[axis];
    return shape;
}

Gather uneven_subsample(const std::vector<int>& s, const Image& ix, const Image& iy) {
    image(ix, "uneven_subsample", "column index");
    image(iy, "uneven_subsample", "row index");
    if (ix.dimensions() != 2) fail("uneven_subsample: the index images must be 2-D, got {}", ix.shape_string());
    same_shape("uneven_subsample", "the column index", ix.sizes(), "the row index", iy.sizes());
    plane("uneven_subsample", s);
    Image index({ix.width(), ix.height(), 2});
    std::vector<int> count(std::size_t(s[0]) * s[1], 0);
    int most = 0;
    for (int y = 0; y < ix.height(); ++y)
        for (int x = 0; x < ix.width(); ++x) {
            const float u = ix(x, y), v = iy(x, y);
            if (!(u >= 0 && u < s[0] && v >= 0 && v < s[1] && u == std::floor(u) && v == std::floor(v)))
                fail("uneven_subsample: index ({}, {}) at output pixel ({}, {}) is not a pixel of its operand {}", u, v,
                     x, y, shape_string(s));
            index(x, y, 0) = u;
            index(x, y, 1) = v;
            most = std::max(most, ++count[std::size_t(v) * s[0] + std::size_t(u)]);
        }
    std::vector<int> shape = s;
    shape[0] = ix.width();
    shape[1] = ix.height();
    return {index, most, shape};
}

namespace {
using mat3 = std::array<std::array<double, 3>, 3>;

mat3 inverse(const mat3& m, const char* op) {
    const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                       m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                       m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (!std::isfinite(det) || std::abs(det) < 1e-12) fail("{}: the homography is singular (det = {})", op, det);
    mat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const int a = (j + 1) % 3, b = (j + 2) % 3, c = (i + 1) % 3, d = (i + 2) % 3;
            r[i][j] = (m[a][c] * m[b][d] - m[a][d] * m[b][c]) / det;
        }
    return r;
}

/// The homogeneous w of m·(x, y, 1) stays > 0 on the rectangle [x0, x1] × [y0, y1] (w is affine,
/// so its corners decide).
bool positive_w(const mat3& m, double x0, double y0, double x1, double y1) {
    for (double x : {x0, x1})
        for (double y : {y0, y1})
            if (!(m[2][0] * x + m[2][1] * y + m[2][2] > 1e-9)) return false;
    return true;
}
}  // namespace

Warp warp(const std::vector<int>& s, const Image& H, int out_width, int out_height) {
    image(H, "warp", "homography");
    if (H.sizes() != std::vector<int>{3, 3}) fail("warp: the homography must be 3x3, got {}", H.shape_string());
    plane("warp", s);
    std::vector<int> shape = s;
    if (out_width > 0) shape[0] = out_width;
    if (out_height > 0) shape[1] = out_height;
    mat3 m;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i][j] = H(j, i);
    const mat3 inv = inverse(m, "warp");
    if (!positive_w(m, 0, 0, shape[0] - 1, shape[1] - 1) || !positive_w(inv, -1, -1, s[0], s[1]))
        fail("warp: the homography sends part of the image through infinity (its third coordinate changes sign "
             "over the {} output or the {} input)", shape_string(shape), shape_string(s));
    auto apply = [](const mat3& a, double x, double y) {
        const double w = a[2][0] * x + a[2][1] * y + a[2][2];
        return std::array<double, 2>{(a[0][0] * x + a[0][1] * y + a[0][2]) / w, (a[1][0] * x + a[1][1] * y + a[1][2]) / w};
    };
    // The output pixels that read input pixel q lie in the preimage of the square (q − 1, q + 1)²,
    // a convex quadrilateral spanned by its mapped corners: the adjoint gathers over its bounding
    // box, whose largest extent over all q is found here once.
    int rx = 1, ry = 1;
    for (int qy = 0; qy < s[1]; ++qy)
        for (int qx = 0; qx < s[0]; ++qx) {
            double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
            for (int dx : {-1, 1})
                for (int dy : {-1, 1}) {
                    auto p = apply(inv, qx + dx, qy + dy);
                    for (int k = 0; k < 2; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
                }
            // clipped to the output: pixels outside it read nothing
            for (int k = 0; k < 2; ++k) {
                lo[k] = std::max(lo[k], -1.0);
                hi[k] = std::min(hi[k], double(shape[k]));
            }
            if (hi[0] >= lo[0]) rx = std::max(rx, int(std::floor(hi[0]) - std::floor(lo[0])) + 2);
            if (hi[1] >= lo[1]) ry = std::max(ry, int(std::floor(hi[1]) - std::floor(lo[1])) + 2);
        }
    // ‖K‖² ≤ ‖K‖₁ ‖K‖∞: every row's weights sum to ≤ 1, the largest column sum is accumulated here.
    std::vector<double> column(std::size_t(s[0]) * s[1], 0.0);
    for (int py = 0; py < shape[1]; ++py)
        for (int px = 0; px < shape[0]; ++px) {
            auto u = apply(m, px, py);
            const double x0 = std::floor(u[0]), y0 = std::floor(u[1]), fx = u[0] - x0, fy = u[1] - y0;
            for (int dy = 0; dy < 2; ++dy)
                for (int dx = 0; dx < 2; ++dx) {
                    const double qx = x0 + dx, qy = y0 + dy;
                    if (qx < 0 || qy < 0 || qx >= s[0] || qy >= s[1]) continue;
                    column[std::size_t(qy) * s[0] + std::size_t(qx)] += (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy);
                }
        }
    double most = 0;
    for (double c : column) most = std::max(most, c);
    Image packed({3, 3, 3});
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            packed(j, i, 0) = float(m[i][j]);
            packed(j, i, 1) = float(inv[i][j]);
        }
    packed(0, 0, 2) = float(rx);
    packed(1, 0, 2) = float(ry);
    return {packed, std::sqrt(most) * 1.001 + 1e-6, shape};
}

std::vector<int> mul_color(const std::vector<int>& s, const Image& M) {
    if (s.size() != 3) fail(PROXGEN_MSG_MUL_COLOR_RANK);
    image(M, "mul_color", "colour matrix");
    if (M.sizes() != std::vector<int>{3, 3}) fail("mul_color: the colour matrix must be 3x3, got {}", M.shape_string());
    if (s[2] != 3) fail("mul_color: its operand must have 3 channels, got {}", shape_string(s));
    return s;
}

std::vector<int> pxwise_matmul(const Image& A, const std::vector<int>& s) {
    if (s.size() != 3) fail(PROXGEN_MSG_PXWISE_MATMUL_RANK);
    image(A, "pxwise_matmul", "matrix");
    if (A.dimensions() != 4 || A.extent(0) != s[0] || A.extent(1) != s[1] || A.extent(3) != s[2])
        fail("pxwise_matmul: the matrices are {} but must be W x H x M x N for its operand {} (W x H x N)",
             A.shape_string(), shape_string(s));
    std::vector<int> shape = s;
    shape[2] = A.extent(2);
    return shape;
}

float weight(double w) {
    if (!std::isfinite(w) || w < 0)
        fail("scalar * penalty: a penalty's weight must be finite and non-negative, got {}", w);
    return static_cast<float>(w);
}

void group_norm1(const std::vector<int>& operand) {
    if (operand.size() < 3) fail(PROXGEN_MSG_GROUP_NORM1_NEEDS_GROUP_AXIS);
}

std::vector<int> weighted_group_norm1(const std::vector<int>& operand) {
    if (operand.size() < 3) fail(PROXGEN_MSG_WEIGHTED_GROUP_NORM1_NEEDS_GROUP_AXIS);
    std::vector<int> shape = operand;
    shape.pop_back();
    return shape;
}

void patch_nlm(const std::vector<int>& operand) {
    if (operand.size() != 2 && operand.size() != 3) fail(PROXGEN_MSG_PATCH_NLM_RANK);
}

void poisson_counts(const Image& counts, const std::vector<int>& operand) {
    image(counts, "poisson_norm", "counts");
    same_shape("poisson_norm", "the expression", operand, "the counts", counts.sizes());
    const float* d = counts.data();
    for (std::size_t i = 0; i < counts.size(); ++i)
        if (!(d[i] >= 0) || !std::isfinite(d[i]))
            fail("poisson_norm: counts must be finite and >= 0, got {} at element {}", d[i], i);
}

void mask(const Image& mask, const std::vector<int>& operand) {
    image(mask, "masked_nonneg", "mask");
    same_shape("masked_nonneg", "the expression", operand, "the mask", mask.sizes());
}

Box box(const std::vector<int>& s, float lo, float hi) {
    if (!(std::isfinite(lo) && std::isfinite(hi) && lo < hi))
        fail("box: needs finite bounds lo < hi, got [{}, {}]", lo, hi);
    Image c(s);
    for (std::size_t i = 0; i < c.size(); ++i) c.data()[i] = -lo / (hi - lo);
    return {1.0f / (hi - lo), c};
}

Huber huber(float M) {
    if (!(std::isfinite(M) && M > 0)) fail("huber: the threshold M must be finite and > 0, got {}", M);
    return {M * M, 1.0f / M};
}

void weighted(const char* op, const Image& w, const std::vector<int>& weight_shape) {
    image(w, op, "weight");
    same_shape(op, "the weight", w.sizes(), "the expected weight shape", weight_shape);
}

void weighted_poisson_weight(const Image& w, const std::vector<int>& operand) {
    image(w, "weighted_poisson_norm", "weight");
    same_shape("weighted_poisson_norm", "the weight", w.sizes(), "the expression", operand);
}

}  // namespace proxgen::check
