// Card: norm1(e) = ‖e‖₁ (weighted_norm1(w, e) = ‖w ⊙ e‖₁): soft thresholding.
#pragma once

#include "proxgen/catalogue/penalty_support.hpp"

namespace proxgen::catalogue::penalties {

struct norm1 {
    static constexpr const char* name = "norm1";
    static constexpr const char* summary = "norm1(e) = ||e||_1 (weighted_norm1(w, e))";
    static constexpr PenaltyFacts facts{.finite_everywhere = true};

    static std::span<const Entry> entries() {
        static const Entry e[] = {
            {{"norm1", {expr("e")}, true}, [](const Args& a) -> Built { return term<norm1>(a.expr("e")); }},
            {{"weighted_norm1", {image("w"), expr("e")}, true}, [](const Args& a) -> Built {
                 return weighted(term<norm1>(a.expr("e")), a.image("w"), a.expr("e").shape, "weighted_norm1");
             }},
        };
        return e;
    }
    static auto summand(auto& h, const auto&, auto v) { return h.abs(h.to_double(v)); }
    static auto prox(auto& h, const auto&, auto u, auto tau) { return u - h.clamp(u, -tau, tau); }
    /// Soft thresholding's derivative: 1 (and −sign u for τ) where |u| > τ, 0 inside; at |u| = τ
    /// (the kink) 0, the inside branch.
    static auto prox_vjp(auto& h, const auto&, auto u, auto tau, auto g) {
        using Expr = typename std::remove_cvref_t<decltype(h)>::Expr;
        Expr out = h.abs(u) > tau;
        return ProxVJP<Expr>{h.select(out, g, 0.0f), h.select(out, h.select(u > 0.0f, -g, g), 0.0f)};
    }
};

}  // namespace proxgen::catalogue::penalties
