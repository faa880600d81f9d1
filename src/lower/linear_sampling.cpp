// uneven_subsample (gather at index images; its adjoint a scatter) and warp (homography +
// bilinear, 0 outside; its adjoint a gather over the output pixels that can read each input
// pixel, so it runs in parallel like the forward).
#include "lowering.hpp"

#include "proxgen/error.hpp"

namespace proxgen::lower {

using namespace Halide;

namespace {

/// Where output pixel (px, py) samples the input, under the homography in plane `plane` of the
/// packed image, clamped to [−2, size + 1] (beyond that every bilinear tap is outside anyway, and
/// the clamp keeps the integer conversion in range). The forward and the adjoint compute it with
/// this same expression so that their weights agree.
std::pair<Expr, Expr> map_point(const ImageParam& h, int plane, Expr px, Expr py, Expr W, Expr H) {
    auto m = [&](int i, int j) { return h(j, i, plane); };
    Expr w = m(2, 0) * px + m(2, 1) * py + m(2, 2);
    Expr u = (m(0, 0) * px + m(0, 1) * py + m(0, 2)) / w;
    Expr v = (m(1, 0) * px + m(1, 1) * py + m(1, 2)) / w;
    return {clamp(u, -2.0f, cast<float>(W) + 1.0f), clamp(v, -2.0f, cast<float>(H) + 1.0f)};
}

/// The bilinear weight of input pixel q on the sample at u (one axis): 1 − frac at floor(u),
/// frac at floor(u) + 1, 0 elsewhere.
Expr tap_weight(Expr u, Expr q) {
    Expr f = floor(u);
    Expr i = cast<int>(f);
    return select(q == i, 1.0f - (u - f), q == i + 1, u - f, 0.0f);
}

}  // namespace

Func sampling_forward(const ir::Node& n, const Lowered& in, const ImageParam& image) {
    const auto& ax = axes();
    const int r = in.rank();
    Expr W = in.extents[0], H = in.extents[1];
    Func out(ir::name(n.op));
    if (n.op == ir::Op::uneven_subsample) {
        Expr ix = clamp(cast<int>(image(ax[0], ax[1], 0)), 0, W - 1);
        Expr iy = clamp(cast<int>(image(ax[0], ax[1], 1)), 0, H - 1);
        out(args(r)) = at(in.f, r, ix, iy);
        return out;
    }
    PROXGEN_INTERNAL_ASSERT(n.op == ir::Op::warp);
    auto [u, v] = map_point(image, 0, cast<float>(ax[0]), cast<float>(ax[1]), W, H);
    Expr fu = floor(u), fv = floor(v);
    Expr x0 = cast<int>(fu), y0 = cast<int>(fv), a = u - fu, b = v - fv;
    auto sample = [&](Expr qx, Expr qy) {
        Expr inside = qx >= 0 && qx < W && qy >= 0 && qy < H;
        return select(inside, at(in.f, r, clamp(qx, 0, W - 1), clamp(qy, 0, H - 1)), 0.0f);
    };
    out(args(r)) = (1.0f - a) * (1.0f - b) * sample(x0, y0) + a * (1.0f - b) * sample(x0 + 1, y0) +
                   (1.0f - a) * b * sample(x0, y0 + 1) + a * b * sample(x0 + 1, y0 + 1);
    return out;
}

Func sampling_adjoint(const ir::Node& n, const Lowered& y, const ImageParam& image, const std::vector<Expr>& to,
                      Stages& st) {
    const auto& ax = axes();
    const int r = y.rank();
    Expr W = to[0], H = to[1];
    if (n.op == ir::Op::uneven_subsample) {
        // Sᵀ y: every output pixel adds its value to the input pixel it read. Several may read
        // the same pixel, so the scatter runs with atomic adds.
        Func s("uneven_subsample_adjoint");
        s(args(r)) = 0.0f;
        RDom p(0, y.extents[0], 0, y.extents[1], "source");
        auto dst = args(r), src = args(r);
        dst[0] = clamp(cast<int>(image(p.x, p.y, 0)), 0, W - 1);
        dst[1] = clamp(cast<int>(image(p.x, p.y, 1)), 0, H - 1);
        src[0] = p.x;
        src[1] = p.y;
        // the scatter reads a whole copy of y: a Func staged per strip cannot feed an update
        // that runs over the reduction domain
        Func source("uneven_subsample_source");
        source(args(r)) = y.f(args(r));
        st.add_root(source);
        s(dst) += source(src);
        st.add_root(s);
        st.scatters.emplace_back(s, p.y);
        return s;
    }
    PROXGEN_INTERNAL_ASSERT(n.op == ir::Op::warp);
    // Wᵀ y (q) = Σ_p y(p) w(p, q) over the output pixels p whose sample H·p falls within one pixel
    // of q: the preimage of the square (q − 1, q + 1)² under H, whose bounding box the inverse
    // homography (plane 1) gives from its corners. The box never exceeds the extents found when
    // the node was made (its ints; structure, as an RDom's extent cannot be read from an image),
    // so a fixed RDom covers it; pixels outside the box have weight 0.
    Expr Wo = y.extents[0], Ho = y.extents[1];
    Expr qx = ax[0], qy = ax[1];
    Expr lo_x = Float(32).max(), lo_y = Float(32).max();
    for (int dx : {-1, 1})
        for (int dy : {-1, 1}) {
            auto [cx, cy] = map_point(image, 1, cast<float>(qx + dx), cast<float>(qy + dy), Wo + 2, Ho + 2);
            lo_x = min(lo_x, cx);
            lo_y = min(lo_y, cy);
        }
    Expr start_x = cast<int>(floor(max(lo_x, -1.0f))), start_y = cast<int>(floor(max(lo_y, -1.0f)));
    RDom box(0, n.ints[0], 0, n.ints[1], "box");
    Expr px = start_x + box.x, py = start_y + box.y;
    auto [u, v] = map_point(image, 0, cast<float>(px), cast<float>(py), W, H);
    Expr inside = px >= 0 && px < Wo && py >= 0 && py < Ho;
    Expr weight = tap_weight(u, qx) * tap_weight(v, qy);
    Expr value = at(y.f, r, clamp(px, 0, Wo - 1), clamp(py, 0, Ho - 1));
    Func back("warp_adjoint");
    back(args(r)) = sum(select(inside, weight * value, 0.0f));
    return back;
}

}  // namespace proxgen::lower
