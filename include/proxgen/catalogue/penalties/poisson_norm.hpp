// Card: poisson_norm(e, counts) — the negative Poisson log-likelihood of counts given the rate e:
// Σ e − counts·log e, with the domain e ≥ 0 (e = 0 allowed where counts = 0);
// weighted_poisson_norm(w, e, counts) = poisson_norm(w ⊙ e, counts).
#pragma once

#include "proxgen/catalogue/penalty_support.hpp"

namespace proxgen::catalogue::penalties {

struct poisson_norm {
    static constexpr const char* name = "poisson_norm";
    static constexpr const char* summary =
        "poisson_norm(e, counts): the negative Poisson log-likelihood of counts given the rate e "
        "(weighted_poisson_norm(w, e, counts))";
    /// A domain (e ≥ 0) but finite inside it: not an indicator.
    static constexpr PenaltyFacts facts{};
    static constexpr const char* data_role = "counts";

    static void check_data(const Image& counts, const std::vector<int>& operand) {
        check::image(counts, "poisson_norm", "counts");
        check::same_shape("poisson_norm", "the expression", operand, "the counts", counts.sizes());
        const float* d = counts.data();
        for (std::size_t i = 0; i < counts.size(); ++i)
            if (!(d[i] >= 0) || !std::isfinite(d[i]))
                fail("poisson_norm: counts must be finite and >= 0, got {} at element {}", d[i], i);
    }
    static ir::Term make(ir::Node e, const ImageArg& counts) {
        check_data(counts.image, e.shape);
        ir::Term t = term<poisson_norm>(std::move(e));
        t.data = counts.image;
        t.data_name = counts.name;
        return t;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {
            {{"poisson_norm", {expr("e"), image("counts")}, true},
             [](const Args& a) -> Built { return make(a.expr("e"), a.image("counts")); }},
            {{"weighted_poisson_norm", {image("w"), expr("e"), image("counts")}, true}, [](const Args& a) -> Built {
                 return weighted(make(a.expr("e"), a.image("counts")), a.image("w"), a.expr("e").shape,
                                 "weighted_poisson_norm");
             }},
        };
        return e;
    }
    /// e − b log e for e > 0; outside the domain (e ≤ 0 with counts, or below −1e-4 · max(1, max |e|)
    /// without) +inf.
    static auto summand(auto& h, const auto& f, const auto& t, const auto& extents) {
        const auto at = h.args(int(extents.size()));
        const auto e = h.to_double(t(at));
        const auto b = f.data ? h.to_double((*f.data)(at)) : h.f64(0);
        const auto inside = e - h.select(b > h.f64(0), b * h.log(e), h.f64(0));
        const auto outside = b > h.f64(0) || e < h.f64(-1e-4) * h.magnitude(t, extents);
        return h.select(e > h.f64(0), inside, h.select(outside, h.infinity(), h.f64(0)));
    }
    /// Its curvature b/e² at e = b, averaged: mean(1/max(b, 1)).
    template <class D>
    static auto curvature(const ir::Term& t, const D& d) {
        using V = typename D::value;
        return t.data.empty() ? V(0.0) : d.mean_inverse_counts(t);
    }
    /// α(t − b log t) + ρ/2 (t − u)²: the positive root of t² − (u − τ) t − τ b = 0.
    static auto prox(auto& h, const auto& f, auto u, auto tau) {
        using Expr = typename std::remove_cvref_t<decltype(h)>::Expr;
        Expr b = f.data ? Expr((*f.data)(h.args(f.rank))) : Expr(0.0f);
        Expr m = u - tau;
        return Expr(0.5f * (m + h.sqrt(m * m + 4.0f * tau * b)));
    }
    /// p = (m + s)/2, s = √(m² + 4τb), m = u − τ: ∂p/∂u = (1 + m/s)/2, ∂p/∂τ = (−1 + (2b − m)/s)/2,
    /// ∂p/∂b = τ/s; where s = 0 (b = 0, m ≤ 0) p = max(m, 0): the derivative of that branch.
    static auto prox_vjp(auto& h, const auto& f, auto u, auto tau, auto g) {
        using Expr = typename std::remove_cvref_t<decltype(h)>::Expr;
        Expr b = f.data ? Expr((*f.data)(h.args(f.rank))) : Expr(0.0f);
        Expr m = u - tau;
        Expr s = h.sqrt(m * m + 4.0f * tau * b);
        Expr pos = s > 0.0f;
        Expr inv = 1.0f / h.select(pos, s, 1.0f);
        Expr dm = h.select(pos, 0.5f * (1.0f + m * inv), h.select(m > 0.0f, 1.0f, 0.0f));
        Expr dtau = h.select(pos, 0.5f * (-1.0f + (2.0f * b - m) * inv), h.select(m > 0.0f, -1.0f, 0.0f));
        ProxVJP<Expr> d{dm * g, dtau * g};
        if (f.data) d.ddata = h.select(pos, tau * inv, 0.0f) * g;
        return d;
    }
};

}  // namespace proxgen::catalogue::penalties
