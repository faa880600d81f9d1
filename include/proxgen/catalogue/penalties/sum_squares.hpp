// Card: sum_squares(e) = ‖e‖² (least_squares is its alias; weighted_sum_squares(w, e) = ‖w ⊙ e‖²).
// The one quadratic: ADMM and HQS absorb it into the x-update's linear solve, PC and L-ADMM where
// its operator is diagonal (or diagonal in a spectral basis).
#pragma once

#include "proxgen/catalogue/penalty_support.hpp"

namespace proxgen::catalogue::penalties {

struct sum_squares {
    static constexpr const char* name = "sum_squares";
    static constexpr const char* summary = "sum_squares(e) = ||e||^2 (least_squares, weighted_sum_squares(w, e))";
    /// ∇²‖v‖² = 2I.
    static constexpr PenaltyFacts facts{.quadratic = true, .strong_convexity = 2.0, .finite_everywhere = true};

    static std::span<const Entry> entries() {
        static const Entry e[] = {
            {{"sum_squares", {expr("e")}, true}, [](const Args& a) -> Built { return term<sum_squares>(a.expr("e")); }},
            {{"least_squares", {expr("e")}, true}, [](const Args& a) -> Built { return term<sum_squares>(a.expr("e")); }},
            {{"weighted_sum_squares", {image("w"), expr("e")}, true}, [](const Args& a) -> Built {
                 return weighted(term<sum_squares>(a.expr("e")), a.image("w"), a.expr("e").shape, "weighted_sum_squares");
             }},
        };
        return e;
    }
    static auto summand(auto& h, const auto&, auto v) {
        const auto d = h.to_double(v);
        return d * d;
    }
    /// 2 max|w|²: its gradient's Lipschitz constant per unit α β² ‖K‖².
    template <class D>
    static auto curvature(const ir::Term& t, const D& d) {
        auto w = d.arg_weight_abs_max(t);
        return 2.0 * w * w;
    }
    /// (divisions by values that do not vary per pixel are written as products with their
    /// reciprocal, which Halide hoists out of the loops: a vector division costs ~10 cycles)
    static auto prox(auto&, const auto&, auto u, auto tau) { return u * (1.0f / (1.0f + 2.0f * tau)); }
    static auto prox_vjp(auto&, const auto&, auto u, auto tau, auto g) {
        using Expr = decltype(u * tau);
        Expr s = 1.0f / (1.0f + 2.0f * tau);
        return ProxVJP<Expr>{g * s, -2.0f * u * s * s * g};
    }
};

}  // namespace proxgen::catalogue::penalties
