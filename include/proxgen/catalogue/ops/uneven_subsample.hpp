// Card: uneven_subsample(e, ix, iy) — a gather: out(p, c) = e(ix(p), iy(p), c), the index images
// packed as planes 0 and 1 of the node's image. Its adjoint is a scatter (atomic adds).
// ‖K‖ = √(the most output pixels that read one input pixel), computed when the node is built.
#pragma once

#include <cmath>

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::ops {

struct uneven_subsample {
    static constexpr const char* name = "uneven_subsample";
    static constexpr const char* summary = "uneven_subsample(e, ix, iy): out(p) = e(ix(p), iy(p)) per channel (a gather)";
    static constexpr const char* image_role = "index";

    /// The checked data: the index images packed as planes 0 and 1, the most output pixels that
    /// read one input pixel, and the output shape.
    struct Gather {
        Image index;
        int multiplicity = 0;
        std::vector<int> shape;
    };
    /// Checks the index images against an operand of shape s: every index a pixel of the operand.
    static Gather gather(const std::vector<int>& s, const Image& ix, const Image& iy) {
        check::image(ix, "uneven_subsample", "column index");
        check::image(iy, "uneven_subsample", "row index");
        if (ix.dimensions() != 2) fail("uneven_subsample: the index images must be 2-D, got {}", ix.shape_string());
        check::same_shape("uneven_subsample", "the column index", ix.sizes(), "the row index", iy.sizes());
        check::plane("uneven_subsample", s);
        Image index({ix.width(), ix.height(), 2});
        std::vector<int> count(std::size_t(s[0]) * s[1], 0);
        int most = 0;
        for (int y = 0; y < ix.height(); ++y)
            for (int x = 0; x < ix.width(); ++x) {
                const float u = ix(x, y), v = iy(x, y);
                if (!(u >= 0 && u < s[0] && v >= 0 && v < s[1] && u == std::floor(u) && v == std::floor(v)))
                    fail("uneven_subsample: index ({}, {}) at output pixel ({}, {}) is not a pixel of its operand {}", u,
                         v, x, y, shape_string(s));
                index(x, y, 0) = u;
                index(x, y, 1) = v;
                most = std::max(most, ++count[std::size_t(v) * s[0] + std::size_t(u)]);
            }
        std::vector<int> out = s;
        out[0] = ix.width();
        out[1] = ix.height();
        return {index, most, out};
    }
    static ir::Node make(ir::Node e, const Gather& g) {
        ir::Node n = node<uneven_subsample>(g.shape, {std::move(e)});
        n.image = g.index;
        n.norm_factor = std::sqrt(double(g.multiplicity));
        return n;
    }
    static ir::Node make(ir::Node e, const Image& ix, const Image& iy) {
        Gather g = gather(e.shape, ix, iy);
        return make(std::move(e), g);
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"uneven_subsample", {expr("e"), image("ix"), image("iy")}}, [](const Args& a) -> Built {
            return make(a.expr("e"), a.fixed_image("ix"), a.fixed_image("iy"));
        }}};
        return e;
    }
    static std::string text(const ir::Node&, const std::vector<std::string>& a) { return fmt::format("uneven_subsample({})", a[0]); }

    /// SᵀS = diag(how many output pixels read each input pixel).
    static constexpr LinearFacts combine(const LinearFacts& arg) { return moving_facts(arg, arg.diagonal); }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    template <class D>
    static auto norm_bound(const ir::Node& n, std::span<const typename D::value> a, const D& d) {
        return d.norm_factor(n) * a[0];
    }
    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>> a, const D& d) {
        std::vector<V> e = a[0];
        const auto idx = d.image_extents(n);
        e[0] = idx[0];
        e[1] = idx[1];
        return e;
    }
    template <class V>
    static std::vector<V> image_extents(const ir::Node&, const std::vector<V>&) { return {}; }

    static auto forward(auto& h, const ir::Node& n, const auto& in) {
        using H = std::remove_cvref_t<decltype(h)>;
        const int r = in.rank();
        const auto& image = h.image(n);
        typename H::Expr W = in.extents[0], Hgt = in.extents[1];
        typename H::Expr ix = h.clamp(h.to_int(image(h.axis(0), h.axis(1), 0)), 0, W - 1);
        typename H::Expr iy = h.clamp(h.to_int(image(h.axis(0), h.axis(1), 1)), 0, Hgt - 1);
        typename H::Func out("uneven_subsample");
        out(h.args(r)) = h.at(in.f, r, ix, iy);
        return out;
    }
    /// Sᵀ y: every output pixel adds its value to the input pixel it read. Several may read the
    /// same pixel, so the scatter runs with atomic adds.
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        using H = std::remove_cvref_t<decltype(h)>;
        const int r = y.rank();
        const auto to = h.extents(n.args[0]);
        const auto& image = h.image(n);
        typename H::Func s("uneven_subsample_adjoint");
        s(h.args(r)) = 0.0f;
        typename H::RDom p(0, y.extents[0], 0, y.extents[1], "source");
        auto dst = h.args(r), src = h.args(r);
        dst[0] = h.clamp(h.to_int(image(p.x, p.y, 0)), 0, to[0] - 1);
        dst[1] = h.clamp(h.to_int(image(p.x, p.y, 1)), 0, to[1] - 1);
        src[0] = p.x;
        src[1] = p.y;
        // the scatter reads a whole copy of y: a Func staged per strip cannot feed an update that
        // runs over the reduction domain
        typename H::Func source("uneven_subsample_source");
        source(h.args(r)) = y.f(h.args(r));
        h.root(source);
        s(dst) += source(src);
        h.root(s);
        h.scatter(s, p.y);
        return s;
    }
};

}  // namespace proxgen::catalogue::ops
