// Card: warp(e, H[, out_width, out_height]) — out(p) = e sampled bilinearly at H·(p.x, p.y, 1)
// (divided by its third coordinate), 0 where the sample falls outside e; per channel. The node's
// image packs H (plane 0), its inverse (plane 1) and at (0, 0, 2), (1, 0, 2) the extents of the
// window of output pixels that can read one input pixel; the adjoint gathers over that window,
// whose extents are structure (ints; an RDom's extent cannot be read from an image). The adjoint
// is the exact transpose (tested), not an inverse warp.
#pragma once

#include <array>
#include <cmath>

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::ops {

struct warp {
    static constexpr const char* name = "warp";
    static constexpr const char* summary =
        "warp(e, H[, out_width, out_height]): e sampled bilinearly at the homography H of each pixel, 0 outside";
    static constexpr const char* image_role = "homography";

    using mat3 = std::array<std::array<double, 3>, 3>;

    static mat3 inverse(const mat3& m) {
        const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        if (!std::isfinite(det) || std::abs(det) < 1e-12) fail("warp: the homography is singular (det = {})", det);
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
    static bool positive_w(const mat3& m, double x0, double y0, double x1, double y1) {
        for (double x : {x0, x1})
            for (double y : {y0, y1})
                if (!(m[2][0] * x + m[2][1] * y + m[2][2] > 1e-9)) return false;
        return true;
    }

    /// The checked data: H, its inverse and the adjoint's gather window packed, ‖K‖, the shape.
    struct Packed {
        Image homography;
        double norm = 0;
        std::vector<int> shape;
    };
    static Packed pack(const std::vector<int>& s, const Image& H, int out_width, int out_height) {
        check::image(H, "warp", "homography");
        if (H.sizes() != std::vector<int>{3, 3}) fail("warp: the homography must be 3x3, got {}", H.shape_string());
        check::plane("warp", s);
        std::vector<int> shape = s;
        if (out_width > 0) shape[0] = out_width;
        if (out_height > 0) shape[1] = out_height;
        mat3 m;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) m[i][j] = H(j, i);
        const mat3 inv = inverse(m);
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
    /// in: the operand's shape.
    static ir::Node make(ir::Node e, const Packed& w) {
        const std::vector<int> in = e.shape;
        ir::Node n = node<warp>(w.shape, {std::move(e)});
        n.image = w.homography;
        n.norm_factor = w.norm;
        // the adjoint's gather window, then the output size when it is not the input's
        n.ints = {int(n.image(0, 0, 2)), int(n.image(1, 0, 2))};
        if (n.shape[0] != in[0] || n.shape[1] != in[1]) n.ints.insert(n.ints.end(), {n.shape[0], n.shape[1]});
        return n;
    }
    static ir::Node make(ir::Node e, const Image& H, int out_width = 0, int out_height = 0) {
        Packed w = pack(e.shape, H, out_width, out_height);
        return make(std::move(e), w);
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"warp", {expr("e"), image("H"), integer("out_width", true), integer("out_height", true)}},
                                   [](const Args& a) -> Built {
                                       return make(a.expr("e"), a.fixed_image("H"), a.has("out_width") ? a.integer("out_width") : 0,
                                                   a.has("out_height") ? a.integer("out_height") : 0);
                                   }}};
        return e;
    }
    static std::string text(const ir::Node&, const std::vector<std::string>& a) { return fmt::format("warp({}, H)", a[0]); }

    static constexpr LinearFacts combine(const LinearFacts& arg) { return moving_facts(arg, false); }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    /// √(largest column sum), set when built.
    template <class D>
    static auto norm_bound(const ir::Node& n, std::span<const typename D::value> a, const D& d) {
        return d.norm_factor(n) * a[0];
    }
    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>> a, const D&) {
        std::vector<V> e = a[0];
        if (n.ints.size() == 4) e[0] = V(n.ints[2]), e[1] = V(n.ints[3]);
        return e;
    }
    template <class V>
    static std::vector<V> image_extents(const ir::Node&, const std::vector<V>&) { return {V(3), V(3), V(3)}; }

    // ---- lowering ----
    /// Where output pixel (px, py) samples the input, under the homography in plane `plane` of the
    /// packed image, clamped to [−2, size + 1] (beyond that every bilinear tap is outside anyway,
    /// and the clamp keeps the integer conversion in range). The forward and the adjoint compute it
    /// with this same expression so that their weights agree.
    template <class H, class Expr, class Param>
    static std::pair<Expr, Expr> map_point(const Param& hm, int plane, Expr px, Expr py, Expr W, Expr Hgt) {
        auto m = [&](int i, int j) { return Expr(hm(j, i, plane)); };
        Expr w = m(2, 0) * px + m(2, 1) * py + m(2, 2);
        Expr u = (m(0, 0) * px + m(0, 1) * py + m(0, 2)) / w;
        Expr v = (m(1, 0) * px + m(1, 1) * py + m(1, 2)) / w;
        return {H::clamp(u, -2.0f, H::to_float(W) + 1.0f), H::clamp(v, -2.0f, H::to_float(Hgt) + 1.0f)};
    }
    /// The bilinear weight of input pixel q on the sample at u (one axis): 1 − frac at floor(u),
    /// frac at floor(u) + 1, 0 elsewhere.
    template <class H, class Expr>
    static Expr tap_weight(Expr u, Expr q) {
        Expr f = H::floor(u);
        Expr i = H::to_int(f);
        return H::select(q == i, 1.0f - (u - f), q == i + 1, u - f, 0.0f);
    }

    static auto forward(auto& h, const ir::Node& n, const auto& in) {
        using H = std::remove_cvref_t<decltype(h)>;
        using Expr = typename H::Expr;
        const int r = in.rank();
        Expr W = in.extents[0], Hgt = in.extents[1];
        auto [u, v] = map_point<H>(h.image(n), 0, h.to_float(h.axis(0)), h.to_float(h.axis(1)), W, Hgt);
        Expr fu = h.floor(u), fv = h.floor(v);
        Expr x0 = h.to_int(fu), y0 = h.to_int(fv), a = u - fu, b = v - fv;
        auto sample = [&](Expr qx, Expr qy) {
            Expr inside = qx >= 0 && qx < W && qy >= 0 && qy < Hgt;
            return h.select(inside, h.at(in.f, r, h.clamp(qx, 0, W - 1), h.clamp(qy, 0, Hgt - 1)), 0.0f);
        };
        typename H::Func out("warp");
        out(h.args(r)) = (1.0f - a) * (1.0f - b) * sample(x0, y0) + a * (1.0f - b) * sample(x0 + 1, y0) +
                         (1.0f - a) * b * sample(x0, y0 + 1) + a * b * sample(x0 + 1, y0 + 1);
        return out;
    }
    /// Wᵀ y (q) = Σ_p y(p) w(p, q) over the output pixels p whose sample H·p falls within one pixel
    /// of q: the preimage of the square (q − 1, q + 1)² under H, whose bounding box the inverse
    /// homography (plane 1) gives from its corners. The box never exceeds the extents found when
    /// the node was made (ints), so a fixed RDom covers it; pixels outside the box weigh 0.
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        using H = std::remove_cvref_t<decltype(h)>;
        using Expr = typename H::Expr;
        const int r = y.rank();
        const auto to = h.extents(n.args[0]);
        Expr W = to[0], Hgt = to[1];
        Expr Wo = y.extents[0], Ho = y.extents[1];
        Expr qx = h.axis(0), qy = h.axis(1);
        Expr lo_x = h.float_max(), lo_y = h.float_max();
        for (int dx : {-1, 1})
            for (int dy : {-1, 1}) {
                auto [cx, cy] = map_point<H>(h.image(n), 1, h.to_float(qx + dx), h.to_float(qy + dy), Wo + 2, Ho + 2);
                lo_x = h.min(lo_x, cx);
                lo_y = h.min(lo_y, cy);
            }
        Expr start_x = h.to_int(h.floor(h.max(lo_x, -1.0f))), start_y = h.to_int(h.floor(h.max(lo_y, -1.0f)));
        typename H::RDom box(0, n.ints[0], 0, n.ints[1], "box");
        Expr px = start_x + box.x, py = start_y + box.y;
        auto [u, v] = map_point<H>(h.image(n), 0, h.to_float(px), h.to_float(py), W, Hgt);
        Expr inside = px >= 0 && px < Wo && py >= 0 && py < Ho;
        Expr weight = tap_weight<H>(u, qx) * tap_weight<H>(v, qy);
        Expr value = h.at(y.f, r, h.clamp(px, 0, Wo - 1), h.clamp(py, 0, Ho - 1));
        typename H::Func back("warp_adjoint");
        back(h.args(r)) = h.sum(h.select(inside, weight * value, 0.0f));
        return back;
    }
};

}  // namespace proxgen::catalogue::ops
