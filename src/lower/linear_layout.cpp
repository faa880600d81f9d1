// crop, zero pad, axis permutation and reshape: each output element is one input element or 0,
// each adjoint the inverse move. Indices are clamped wherever a select reads out of range (Halide
// evaluates both sides of a select, and bounds inference must see in-range reads).
#include "lowering.hpp"

#include "proxgen/error.hpp"

namespace proxgen::lower {

using namespace Halide;

namespace {

/// (i0, i1, …) → the flat index x-fastest under `extents`, and back.
Expr flatten(const std::vector<Expr>& index, const std::vector<Expr>& extents) {
    Expr f = index.back();
    for (int d = int(index.size()) - 2; d >= 0; --d) f = f * extents[d] + index[d];
    return f;
}
std::vector<Expr> unflatten(Expr flat, const std::vector<Expr>& extents) {
    std::vector<Expr> index;
    Expr stride = 1;
    for (const auto& e : extents) {
        index.push_back(clamp((flat / stride) % e, 0, e - 1));
        stride = stride * e;
    }
    return index;
}

/// A read of f at `index` where inside, 0 elsewhere; the index is clamped into `extents`.
Expr read_or_zero(const Func& f, std::vector<Expr> index, const std::vector<Expr>& extents) {
    Expr inside = Internal::const_true();
    for (std::size_t d = 0; d < index.size(); ++d) {
        inside = inside && index[d] >= 0 && index[d] < extents[d];
        index[d] = clamp(index[d], 0, extents[d] - 1);
    }
    return select(inside, f(index), 0.0f);
}

}  // namespace

Func layout_forward(const ir::Node& n, const Lowered& in, const std::vector<Expr>& to) {
    const int r = int(to.size());
    auto i = args(r);
    Func out(ir::name(n.op));
    switch (n.op) {
    case ir::Op::crop:
        i[0] += n.ints[0];
        i[1] += n.ints[1];
        out(args(r)) = in.f(i);
        break;
    case ir::Op::pad:
        i[0] -= n.ints[0];
        i[1] -= n.ints[1];
        out(args(r)) = read_or_zero(in.f, i, in.extents);
        break;
    case ir::Op::transpose: {
        std::vector<Expr> j(r);
        for (int d = 0; d < r; ++d) j[n.ints[d]] = i[d];
        out(args(r)) = in.f(j);
        break;
    }
    case ir::Op::reshape: out(args(r)) = in.f(unflatten(flatten(i, to), in.extents)); break;
    default: PROXGEN_INTERNAL_ASSERT(false);
    }
    return out;
}

Func layout_adjoint(const ir::Node& n, const Lowered& y, const std::vector<Expr>& to) {
    const int r = int(to.size());
    auto i = args(r);
    Func back(std::string(ir::name(n.op)) + "_adjoint");
    switch (n.op) {
    case ir::Op::crop:  // zero-fill around the window
        i[0] -= n.ints[0];
        i[1] -= n.ints[1];
        back(args(r)) = read_or_zero(y.f, i, y.extents);
        break;
    case ir::Op::pad:  // the window the padding surrounds
        i[0] += n.ints[0];
        i[1] += n.ints[1];
        back(args(r)) = y.f(i);
        break;
    case ir::Op::transpose: {
        std::vector<Expr> j(r);
        for (int d = 0; d < r; ++d) j[d] = i[n.ints[d]];
        back(args(r)) = y.f(j);
        break;
    }
    case ir::Op::reshape: back(args(r)) = y.f(unflatten(flatten(i, to), y.extents)); break;
    default: PROXGEN_INTERNAL_ASSERT(false);
    }
    return back;
}

}  // namespace proxgen::lower
