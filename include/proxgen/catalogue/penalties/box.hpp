// Card: box(e, lo, hi) — the indicator of lo ≤ e ≤ hi elementwise (lo < hi, both finite; for one
// side use nonneg). Kept as the indicator of [0, 1] at (e − lo)/(hi − lo), so the planner's rules
// see a scale and an offset they already know how to absorb.
#pragma once

#include "proxgen/catalogue/penalty_support.hpp"

namespace proxgen::catalogue::penalties {

struct box {
    static constexpr const char* name = "box";
    static constexpr const char* summary = "box(e, lo, hi): lo <= e <= hi elementwise";
    static constexpr PenaltyFacts facts{.indicator = true};

    /// β = 1/(hi − lo) and c = −lo/(hi − lo) on an argument of this shape.
    struct Scaling {
        float beta = 1;
        Image offset;
    };
    static Scaling scaling(const std::vector<int>& shape, double lo, double hi) {
        const float l = float(lo), u = float(hi);
        if (!(std::isfinite(l) && std::isfinite(u) && l < u)) fail("box: needs finite bounds lo < hi, got [{}, {}]", lo, hi);
        Image c(shape);
        for (std::size_t i = 0; i < c.size(); ++i) c.data()[i] = -l / (u - l);
        return {1.0f / (u - l), c};
    }
    static ir::Term make(ir::Node e, double lo, double hi) {
        Scaling s = scaling(e.shape, lo, hi);
        ir::Term t = term<box>(std::move(e));
        t.beta = s.beta;
        t.offset = s.offset;
        return t;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"box", {expr("e"), number("lo"), number("hi")}, true},
                                   [](const Args& a) -> Built { return make(a.expr("e"), a.number("lo"), a.number("hi")); }}};
        return e;
    }
    /// [0, 1] after the scaling.
    static auto summand(auto& h, const auto&, auto v) {
        const auto d = h.to_double(v);
        return h.select(d < h.f64(-1e-4) || d > h.f64(1 + 1e-4), h.infinity(), h.f64(0));
    }
    static auto prox(auto& h, const auto&, auto u, auto) { return h.clamp(u, 0.0f, 1.0f); }
    /// 1 strictly inside [0, 1], 0 outside and on the bounds (the kinks).
    static auto prox_vjp(auto& h, const auto&, auto u, auto, auto g) {
        using Expr = typename std::remove_cvref_t<decltype(h)>::Expr;
        return ProxVJP<Expr>{h.select(u > 0.0f && u < 1.0f, g, 0.0f), Expr(0.0f)};
    }
};

}  // namespace proxgen::catalogue::penalties
