// Card: huber(e, M) = Σ huber_M(e): e² where |e| ≤ M, 2M|e| − M² beyond (quadratic near 0, linear
// tails; CVXPY's definition). Kept as M² · h₁(e / M), h₁ the Huber function of threshold 1.
// Quadratic only near 0: the x-update cannot absorb it.
#pragma once

#include "proxgen/catalogue/penalty_support.hpp"

namespace proxgen::catalogue::penalties {

struct huber {
    static constexpr const char* name = "huber";
    static constexpr const char* summary = "huber(e, M): e^2 for |e| <= M, 2M|e| - M^2 beyond";
    static constexpr PenaltyFacts facts{.finite_everywhere = true};

    /// M² · h₁(e / M): the term's weight M² and β = 1/M.
    struct Scaling {
        float weight = 1, beta = 1;
    };
    static Scaling scaling(double threshold) {
        const float M = float(threshold);
        if (!(std::isfinite(M) && M > 0)) fail("huber: the threshold M must be finite and > 0, got {}", threshold);
        return {M * M, 1.0f / M};
    }
    static ir::Term make(ir::Node e, double threshold) {
        const Scaling s = scaling(threshold);
        ir::Term t = term<huber>(std::move(e));
        t.weight = s.weight;
        t.beta = s.beta;
        return t;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"huber", {expr("e"), number("M")}, true},
                                   [](const Args& a) -> Built { return make(a.expr("e"), a.number("M")); }}};
        return e;
    }
    static auto summand(auto& h, const auto&, auto v) {
        const auto a = h.abs(h.to_double(v));
        return h.select(a <= h.f64(1), a * a, h.f64(2) * a - h.f64(1));
    }
    /// α h(t) + ρ/2 (t − u)², h(t) = t² for |t| ≤ 1, 2|t| − 1 beyond: the quadratic's minimiser
    /// u/(1 + 2τ) when it lies inside, else the linear piece's u − 2τ sign(u).
    static auto prox(auto& h, const auto&, auto u, auto tau) {
        return h.select(h.abs(u) <= 1.0f + 2.0f * tau, u * (1.0f / (1.0f + 2.0f * tau)),
                        u - 2.0f * tau * h.select(u > 0.0f, 1.0f, -1.0f));
    }
    /// Each branch's derivative; at the switch |u| = 1 + 2τ (the prox is continuous there, its
    /// derivative jumps from 1/(1 + 2τ) to 1) the inside branch's.
    static auto prox_vjp(auto& h, const auto&, auto u, auto tau, auto g) {
        using Expr = typename std::remove_cvref_t<decltype(h)>::Expr;
        Expr s = 1.0f / (1.0f + 2.0f * tau);
        Expr inside = h.abs(u) <= 1.0f + 2.0f * tau;
        return ProxVJP<Expr>{h.select(inside, g * s, g),
                             h.select(inside, -2.0f * u * s * s * g, -2.0f * h.select(u > 0.0f, g, -g))};
    }
};

}  // namespace proxgen::catalogue::penalties
