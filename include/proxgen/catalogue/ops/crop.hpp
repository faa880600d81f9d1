// Card: crop(e, x0, y0, w, h) — the w × h window of every channel whose top-left pixel is (x0, y0)
// (structure: ints = {x0, y0, w, h}). Its adjoint zero-fills around the window.
#pragma once

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::ops {

struct crop {
    static constexpr const char* name = "crop";
    static constexpr const char* summary = "crop(e, x0, y0, width, height): the window whose top-left pixel is (x0, y0)";

    static std::vector<int> shape(const std::vector<int>& s, int x0, int y0, int w, int h) {
        check::plane("crop", s);
        if (x0 < 0 || y0 < 0 || w < 1 || h < 1 || x0 + w > s[0] || y0 + h > s[1])
            fail("crop: the window {}x{} at ({}, {}) does not fit in its operand {}", w, h, x0, y0, shape_string(s));
        std::vector<int> out = s;
        out[0] = w;
        out[1] = h;
        return out;
    }
    static ir::Node make(ir::Node e, int x0, int y0, int w, int h) {
        std::vector<int> out = shape(e.shape, x0, y0, w, h);  // before e is moved
        ir::Node n = node<crop>(std::move(out), {std::move(e)});
        n.ints = {x0, y0, w, h};
        return n;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"crop", {expr("e"), integer("x0"), integer("y0"), integer("width"), integer("height")}},
                                   [](const Args& a) -> Built {
                                       return make(a.expr("e"), a.integer("x0"), a.integer("y0"), a.integer("width"),
                                                   a.integer("height"));
                                   }}};
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) {
        return fmt::format("crop({}, {}, {}, {})", a[0], n.ints[0], n.ints[1], shape_string(n.shape));
    }

    /// (C A)ᵀ(C A) = Aᵀ (0/1 mask) A: diagonal when A is.
    static constexpr LinearFacts combine(const LinearFacts& arg) { return moving_facts(arg, arg.diagonal); }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    template <class D>
    static auto norm_bound(const ir::Node&, std::span<const typename D::value> a, const D&) { return a[0]; }
    /// A selection or rearrangement of the variable's samples (or an orthonormal transform): norm 1.
    static bool norm_exact(const ir::Node&, std::span<const NormTightness> a) { return exact_on_scaled_identity(a); }
    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>> a, const D&) {
        std::vector<V> e = a[0];
        e[0] = V(n.ints[2]);
        e[1] = V(n.ints[3]);
        return e;
    }

    static auto forward(auto& h, const ir::Node& n, const auto& in) {
        typename std::remove_cvref_t<decltype(h)>::Func out("crop");
        auto i = h.args(n.rank());
        i[0] += n.ints[0];
        i[1] += n.ints[1];
        out(h.args(n.rank())) = in.f(i);
        return out;
    }
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        typename std::remove_cvref_t<decltype(h)>::Func back("crop_adjoint");
        auto i = h.args(n.rank());
        i[0] -= n.ints[0];
        i[1] -= n.ints[1];
        back(h.args(n.rank())) = h.read_or_zero(y.f, i, y.extents);
        return back;
    }
};

}  // namespace proxgen::catalogue::ops
