// Convolution with a 2-D kernel (centre at floor(size/2)) under its three boundaries, forward and
// exact adjoint. Circular and zero boundaries are correlations of a padded operand; the replicate
// boundary's adjoint also folds what the forward read outside the image back onto the edge pixels.
#include "lowering.hpp"

namespace proxgen::lower {

using namespace Halide;

namespace {

/// Σ_ab k(a,b) · padded(x + sgn·(a − kw/2), y + sgn·(b − kh/2)): sgn = −1 is the convolution,
/// sgn = +1 its adjoint.
Func filter(const Func& padded, int r, const ImageParam& kernel, int sgn, const char* name) {
    const auto& ax = axes();
    Expr kw = kernel.dim(0).extent(), kh = kernel.dim(1).extent();
    RDom t(0, kw, 0, kh, "tap");
    Func acc(name);
    acc(args(r)) = 0.0f;
    acc(args(r)) += kernel(t.x, t.y) * at(padded, r, ax[0] + sgn * (t.x - kw / 2), ax[1] + sgn * (t.y - kh / 2));
    return acc;
}

Region image_bounds(const Lowered& in) {
    Region bounds{{0, in.extents[0]}, {0, in.extents[1]}};
    for (int d = 2; d < in.rank(); ++d) bounds.push_back(Range());
    return bounds;
}

}  // namespace

Func conv_forward(const ir::Node& n, const Lowered& in, const ImageParam& kernel, Stages& st) {
    // The circular wrap goes through BoundaryConditions::repeat_image, whose `likely` lets Halide
    // split the x loop so the interior reads with plain vector loads and only the borders pay for
    // the modulo; the padded copy is computed once per strip and the taps then read it with
    // affine vector loads. (Measured 512², 9×9 kernel: 5.4 ms → see bench/ for the current number.)
    Func padded;
    switch (n.boundary) {
    case ir::ConvBoundary::circular:
        // a computed operand is computed whole first: every strip reads rows from the other end
        padded = BoundaryConditions::repeat_image(wrapped_operand(in, st), image_bounds(in));
        break;
    case ir::ConvBoundary::zero: padded = BoundaryConditions::constant_exterior(in.f, 0.0f, image_bounds(in)); break;
    case ir::ConvBoundary::replicate: padded = BoundaryConditions::repeat_edge(in.f, image_bounds(in)); break;
    }
    st.add(padded);
    return st.add(filter(padded, in.rank(), kernel, -1, "conv"));
}

Func conv_adjoint(const ir::Node& n, const Lowered& y, const ImageParam& kernel, Stages& st) {
    const int r = y.rank();
    if (n.boundary == ir::ConvBoundary::circular) {
        Func padded = BoundaryConditions::repeat_image(wrapped_operand(y, st), image_bounds(y));
        st.add(padded);
        return st.add(filter(padded, r, kernel, +1, "conv_adjoint"));
    }
    // Zero boundary: the correlation of y extended by zeros is exactly the transpose.
    Func padded = BoundaryConditions::constant_exterior(y.f, 0.0f, image_bounds(y));
    if (n.boundary == ir::ConvBoundary::zero) {
        st.add(padded);
        return st.add(filter(padded, r, kernel, +1, "conv_adjoint"));
    }
    // Replicate: K = (zero-boundary conv on the extended plane) ∘ E, with E the clamp extension,
    // so Kᵀ = Eᵀ z where z is that correlation evaluated outside the image too; Eᵀ adds the
    // values z has beyond each edge onto the edge pixel, first along x, then along y. z is read
    // far from where it is used (every edge pixel reads its whole margin), so z and the x-folded
    // z are computed over the whole image first.
    const auto& ax = axes();
    Func z = filter(padded, r, kernel, +1, "conv_adjoint_extended");
    st.add_root(padded);
    st.add_root(z);
    Expr W = y.extents[0], H = y.extents[1];
    Expr kw = kernel.dim(0).extent(), kh = kernel.dim(1).extent();
    RDom mx(0, kw, "margin_x"), my(0, kh, "margin_y");
    Func zx("conv_adjoint_fold_x");
    zx(args(r)) = z(args(r)) + select(ax[0] == 0, sum(at(z, r, -1 - mx, ax[1])), 0.0f) +
                  select(ax[0] == W - 1, sum(at(z, r, W + mx, ax[1])), 0.0f);
    st.add_root(zx);
    Func out("conv_adjoint");
    out(args(r)) = zx(args(r)) + select(ax[1] == 0, sum(at(zx, r, ax[0], -1 - my)), 0.0f) +
                   select(ax[1] == H - 1, sum(at(zx, r, ax[0], H + my)), 0.0f);
    return out;
}

}  // namespace proxgen::lower
