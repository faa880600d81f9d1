// mul_color (one 3 × 3 matrix on every pixel's channels) and pxwise_matmul (a matrix per pixel):
// the adjoint multiplies by the transposed matrix.
#include "lowering.hpp"

#include "proxgen/error.hpp"

namespace proxgen::lower {

using namespace Halide;

namespace {
Expr with_channel(const Func& f, int r, Expr c) {
    auto a = args(r);
    a[2] = std::move(c);
    return f(a);
}
}  // namespace

Func color_forward(const ir::Node& n, const Lowered& in, const ImageParam& m) {
    const auto& ax = axes();
    const int r = in.rank();
    Func out(ir::name(n.op));
    if (n.op == ir::Op::mul_color) {
        // out_i = Σ_j M(j, i) in_j: three taps unrolled, no reduction
        Expr e = 0.0f;
        for (int j = 0; j < 3; ++j) e += m(j, ax[2]) * with_channel(in.f, r, j);
        out(args(r)) = e;
        return out;
    }
    PROXGEN_INTERNAL_ASSERT(n.op == ir::Op::pxwise_matmul);
    RDom j(0, m.dim(3).extent(), "column");
    out(args(r)) = sum(m(ax[0], ax[1], ax[2], j) * with_channel(in.f, r, j));
    return out;
}

Func color_adjoint(const ir::Node& n, const Lowered& y, const ImageParam& m) {
    const auto& ax = axes();
    const int r = y.rank();
    Func back(std::string(ir::name(n.op)) + "_adjoint");
    if (n.op == ir::Op::mul_color) {
        Expr e = 0.0f;
        for (int i = 0; i < 3; ++i) e += m(ax[2], i) * with_channel(y.f, r, i);
        back(args(r)) = e;
        return back;
    }
    PROXGEN_INTERNAL_ASSERT(n.op == ir::Op::pxwise_matmul);
    RDom i(0, m.dim(2).extent(), "row");
    back(args(r)) = sum(m(ax[0], ax[1], i, ax[2]) * with_channel(y.f, r, i));
    return back;
}

}  // namespace proxgen::lower
