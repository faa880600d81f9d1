// Card: subsample(e, sx, sy) — every sx-th column and sy-th row, starting at 0 (structure:
// ints = {sx, sy}). Its adjoint is the zero-filling upsample; SᵀS is a 0/1 mask.
#pragma once

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::ops {

struct subsample {
    static constexpr const char* name = "subsample";
    static constexpr const char* summary = "subsample(e, step_x, step_y): every step_x-th column and step_y-th row, from 0";

    static std::vector<int> shape(const std::vector<int>& operand, int step_x, int step_y) {
        if (step_x < 1 || step_y < 1) fail("subsample: steps must be >= 1, got {} and {}", step_x, step_y);
        check::plane("subsample", operand);
        std::vector<int> s = operand;
        s[0] = (s[0] + step_x - 1) / step_x;
        s[1] = (s[1] + step_y - 1) / step_y;
        return s;
    }
    static ir::Node make(ir::Node e, int step_x, int step_y) {
        std::vector<int> out = shape(e.shape, step_x, step_y);  // before e is moved
        ir::Node n = node<subsample>(std::move(out), {std::move(e)});
        n.ints = {step_x, step_y};
        return n;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"subsample", {expr("e"), integer("step_x"), integer("step_y")}}, [](const Args& a) -> Built {
            return make(a.expr("e"), a.integer("step_x"), a.integer("step_y"));
        }}};
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) {
        return fmt::format("subsample({}, {}, {})", a[0], n.ints[0], n.ints[1]);
    }

    /// SᵀS is a 0/1 mask: Gram-diagonal when the operand is diagonal.
    static constexpr LinearFacts combine(const LinearFacts& arg) { return moving_facts(arg, arg.diagonal); }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    template <class D>
    static auto norm_bound(const ir::Node&, std::span<const typename D::value> a, const D&) { return a[0]; }
    /// A selection or rearrangement of the variable's samples (or an orthonormal transform): norm 1.
    static bool norm_exact(const ir::Node&, std::span<const NormTightness> a) { return exact_on_scaled_identity(a); }
    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>> a, const D&) {
        std::vector<V> e = a[0];
        e[0] = (e[0] + V(n.ints[0] - 1)) / V(n.ints[0]);
        e[1] = (e[1] + V(n.ints[1] - 1)) / V(n.ints[1]);
        return e;
    }

    static auto forward(auto& h, const ir::Node& n, const auto& a) {
        typename std::remove_cvref_t<decltype(h)>::Func out("subsample");
        const int r = n.rank();
        out(h.args(r)) = h.at(a.f, r, h.axis(0) * n.ints[0], h.axis(1) * n.ints[1]);
        return out;
    }
    /// The zero-filling upsample: the transpose of keeping every step-th sample.
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        typename std::remove_cvref_t<decltype(h)>::Func back("subsample_adjoint");
        const int r = n.args[0].rank();
        const int sx = n.ints[0], sy = n.ints[1];
        auto keep = (h.axis(0) % sx == 0) && (h.axis(1) % sy == 0);
        back(h.args(r)) = h.select(keep, h.at(y.f, r, h.axis(0) / sx, h.axis(1) / sy), 0.0f);
        return back;
    }
};

}  // namespace proxgen::catalogue::ops
