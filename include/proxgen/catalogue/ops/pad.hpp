// Card: pad(e, left, top, right, bottom) — e surrounded by zeros (structure: ints = the four
// margins). PᵀP = I: its adjoint is the window the padding surrounds.
#pragma once

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::ops {

struct pad {
    static constexpr const char* name = "pad";
    static constexpr const char* summary = "pad(e, left, top, right, bottom): e surrounded by zeros";

    static std::vector<int> shape(const std::vector<int>& operand, int left, int top, int right, int bottom) {
        if (left < 0 || top < 0 || right < 0 || bottom < 0)
            fail("pad: the margins must be >= 0, got {}, {}, {}, {}", left, top, right, bottom);
        check::plane("pad", operand);
        std::vector<int> s = operand;
        s[0] += left + right;
        s[1] += top + bottom;
        return s;
    }
    static ir::Node make(ir::Node e, int left, int top, int right, int bottom) {
        std::vector<int> out = shape(e.shape, left, top, right, bottom);  // before e is moved
        ir::Node n = node<pad>(std::move(out), {std::move(e)});
        n.ints = {left, top, right, bottom};
        return n;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"pad", {expr("e"), integer("left"), integer("top"), integer("right"), integer("bottom")}},
                                   [](const Args& a) -> Built {
                                       return make(a.expr("e"), a.integer("left"), a.integer("top"), a.integer("right"),
                                                    a.integer("bottom"));
                                   }}};
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) {
        return fmt::format("pad({}, {}, {}, {})", a[0], n.ints[0], n.ints[1], shape_string(n.shape));
    }

    /// PᵀP = I: the Gram matrix is the operand's.
    static constexpr LinearFacts combine(const LinearFacts& arg) { return moving_facts(arg, arg.gram_diagonal); }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    template <class D>
    static auto norm_bound(const ir::Node&, std::span<const typename D::value> a, const D&) { return a[0]; }
    /// A selection or rearrangement of the variable's samples (or an orthonormal transform): norm 1.
    static bool norm_exact(const ir::Node&, std::span<const NormTightness> a) { return exact_on_scaled_identity(a); }
    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>> a, const D&) {
        std::vector<V> e = a[0];
        e[0] = e[0] + V(n.ints[0] + n.ints[2]);
        e[1] = e[1] + V(n.ints[1] + n.ints[3]);
        return e;
    }

    static auto forward(auto& h, const ir::Node& n, const auto& in) {
        typename std::remove_cvref_t<decltype(h)>::Func out("pad");
        auto i = h.args(n.rank());
        i[0] -= n.ints[0];
        i[1] -= n.ints[1];
        out(h.args(n.rank())) = h.read_or_zero(in.f, i, in.extents);
        return out;
    }
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        typename std::remove_cvref_t<decltype(h)>::Func back("pad_adjoint");
        auto i = h.args(n.rank());
        i[0] += n.ints[0];
        i[1] += n.ints[1];
        back(h.args(n.rank())) = y.f(i);
        return back;
    }
};

}  // namespace proxgen::catalogue::ops
