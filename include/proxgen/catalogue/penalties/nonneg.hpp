// Card: nonneg(e) — the indicator of e ≥ 0 elementwise (weighted_nonneg(w, e): of w ⊙ e ≥ 0). An
// interval per pixel: PC and L-ADMM clamp to it inside the closed-form x-update.
#pragma once

#include "proxgen/catalogue/penalty_support.hpp"

namespace proxgen::catalogue::penalties {

struct nonneg {
    static constexpr const char* name = "nonneg";
    static constexpr const char* summary = "nonneg(e): e >= 0 elementwise (weighted_nonneg(w, e))";
    static constexpr PenaltyFacts facts{.indicator = true, .interval = true};

    static std::span<const Entry> entries() {
        static const Entry e[] = {
            {{"nonneg", {expr("e")}, true}, [](const Args& a) -> Built { return term<nonneg>(a.expr("e")); }},
            {{"weighted_nonneg", {image("w"), expr("e")}, true}, [](const Args& a) -> Built {
                 return weighted(term<nonneg>(a.expr("e")), a.image("w"), a.expr("e").shape, "weighted_nonneg");
             }},
        };
        return e;
    }
    static auto summand(auto& h, const auto&, const auto& t, const auto& extents) {
        return nonneg_summand(h, t, extents, h.always());
    }
    static auto prox(auto& h, const auto&, auto u, auto) { return h.max(u, 0.0f); }
    /// 1 where u > 0, 0 where u ≤ 0 (at the kink u = 0: 0, the projected branch).
    static auto prox_vjp(auto& h, const auto&, auto u, auto, auto g) {
        using Expr = typename std::remove_cvref_t<decltype(h)>::Expr;
        return ProxVJP<Expr>{h.select(u > 0.0f, g, 0.0f), Expr(0.0f)};
    }
};

}  // namespace proxgen::catalogue::penalties
