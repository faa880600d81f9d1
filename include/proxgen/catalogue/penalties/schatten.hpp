// Card: schatten(e, p) — the Schatten-p norm of per-pixel matrices, summed over the pixels, for
// p = 1 (the nuclear norm), 2 (Frobenius) or inf (spectral). e is W × H × m × n (a matrix per
// pixel: rows along the third axis, columns along the last) with n = 1 or 2, or W × H × n (one
// row per pixel). schatten(grad(x), 1) of a colour image x is the nuclear norm of each pixel's
// 3 × 2 Jacobian: vectorial TV, which couples the channels' edge directions (Goldluecke,
// Strekalovskiy & Cremers 2012); of a grey image it is the isotropic TV.
// prox: each matrix's singular values shrunk by the prox of τ‖·‖_p (Lewis 1995), M ↦ M V
// diag(s'/s) Vᵀ with V from the 2 × 2 eigenproblem of MᵀM, so no m × m work per pixel.
// Structure: ints = {p (0 for inf), n}.
#pragma once

#include <cmath>

#include "proxgen/catalogue/penalty_support.hpp"

namespace proxgen::catalogue::penalties {

struct schatten {
    static constexpr const char* name = "schatten";
    static constexpr const char* summary =
        "schatten(e, p): the sum over pixels of the Schatten p-norm (p = 1, 2 or inf) of each pixel's matrix "
        "(W x H x m x n, n <= 2; nuclear norm of grad(x) = vectorial TV)";
    static constexpr PenaltyFacts facts{.separable = false, .finite_everywhere = true};

    static int p_of(const ir::Term& t) { return t.ints[0]; }
    static ir::Term make(ir::Node e, double p) {
        const std::vector<int>& s = e.shape;
        if (s.size() != 3 && s.size() != 4)
            fail("schatten: needs a matrix per pixel, W x H x m x n (or W x H x n: one row), got {}", shape_string(s));
        const int n = s.back();
        if (s.size() == 4 && n > 2)
            fail("schatten: per-pixel matrices with {} columns; ProxGen's prox handles 1 or 2 (e.g. grad along x and "
                 "y), got {}", n, shape_string(s));
        int code;
        if (p == 1) code = 1;
        else if (p == 2) code = 2;
        else if (std::isinf(p) && p > 0) code = 0;
        else fail("schatten: p must be 1, 2 or inf (\"inf\" in problem files), got {}", p);
        ir::Term t = term<schatten>(std::move(e));
        t.ints = {code, n};
        return t;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"schatten", {expr("e"), number_or_word("p")}, true},
                                   [](const Args& a) -> Built { return make(a.expr("e"), a.number_or_word("p")); }}};
        return e;
    }
    static std::string parameters_text(const ir::Term& t) { return p_of(t) == 0 ? "inf" : std::to_string(p_of(t)); }

    /// Per pixel: the Schatten p-norm of its matrix in float64, from the singular values of MᵀM.
    static int summand_rank(int) { return 2; }
    static auto summand(auto& h, const auto& f, const auto& t, const auto& extents) {
        using H = std::remove_cvref_t<decltype(h)>;
        using Expr = typename H::Expr;
        const int r = int(extents.size()), p = f.term->ints[0], n = f.term->ints[1];
        auto entry = [&](Expr c, Expr j) {  // the pixel's matrix at row c, column j, in float64
            auto a = h.args(2);
            if (r == 4) a.push_back(c);
            a.push_back(j);
            return Expr(h.to_double(t(a)));
        };
        if (r == 3 || n == 1) {  // one singular value: the matrix's norm
            typename H::RDom e(0, extents[2], "entry");
            const Expr v = r == 3 ? entry(Expr(), e.x) : entry(e.x, 0);
            return Expr(h.sqrt(h.sum(v * v)));
        }
        typename H::RDom row(0, extents[2], "row");
        const Expr m0 = entry(row.x, 0), m1 = entry(row.x, 1);
        const Expr a = h.sum(m0 * m0), b = h.sum(m0 * m1), d = h.sum(m1 * m1);  // MᵀM = [a b; b d]
        const Expr mean = h.f64(0.5) * (a + d), radius = h.sqrt(h.f64(0.25) * (a - d) * (a - d) + b * b);
        const Expr s1 = h.sqrt(h.max(mean + radius, h.f64(0))), s2 = h.sqrt(h.max(mean - radius, h.f64(0)));
        return p == 1 ? Expr(s1 + s2) : p == 2 ? Expr(h.sqrt(a + d)) : s1;
    }
    /// Shrinkages of the singular values read across the pixel's matrix: a Func over the pixels.
    static bool local(const ir::Term&, bool, int) { return false; }

    /// The prox of τ‖·‖_p on the singular values (s1 ≥ s2 ≥ 0) — p = 1: soft threshold each;
    /// p = 2: shrink the vector; p = inf: clip both to the level t where Σ (s_i − t)₊ = τ.
    template <class H, class Expr>
    static std::pair<Expr, Expr> shrink(int p, Expr s1, Expr s2, Expr tau) {
        if (p == 1) return {H::max(s1 - tau, 0.0f), H::max(s2 - tau, 0.0f)};
        if (p == 2) {
            Expr norm = H::sqrt(s1 * s1 + s2 * s2);
            Expr f = H::select(norm > tau, 1.0f - tau / H::max(norm, 1e-30f), 0.0f);
            return {f * s1, f * s2};
        }
        Expr both = H::max(0.5f * (s1 + s2 - tau), 0.0f);  // both clipped (s1 − s2 < τ)
        return {H::select(s1 - s2 >= tau, s1 - tau, both), H::select(s1 - s2 >= tau, s2, both)};
    }
    static auto prox(auto& h, const auto& f, const auto& t, const auto& extents, auto tau) {
        using H = std::remove_cvref_t<decltype(h)>;
        using Expr = typename H::Expr;
        const int r = int(extents.size()), p = f.term->ints[0], n = f.term->ints[1];
        const auto at = h.args(r);
        auto entry = [&](Expr c, int j) {  // the pixel's matrix at row c, column j
            auto a = h.args(r);
            if (r == 4) a[2] = c;
            a[r - 1] = j;
            return Expr(t(a));
        };
        if (r == 3 || n == 1) {  // one singular value, the matrix's norm: shrunk alike for every p
            typename H::RDom e(0, extents[2], "entry");
            auto a = h.args(r);
            a[2] = e;
            if (r == 4) a[3] = 0;
            Expr norm = h.sqrt(h.sum(Expr(t(a)) * Expr(t(a))));
            return Expr(h.select(norm > tau, 1.0f - tau / h.max(norm, 1e-30f), 0.0f) * t(at));
        }
        // MᵀM = [a b; b d] summed over the rows; its eigenvectors (cos θ, sin θ), (−sin θ, cos θ)
        typename H::RDom row(0, extents[2], "row");
        Expr a = h.sum(entry(row, 0) * entry(row, 0)), b = h.sum(entry(row, 0) * entry(row, 1)),
             d = h.sum(entry(row, 1) * entry(row, 1));
        Expr mean = 0.5f * (a + d), radius = h.sqrt(0.25f * (a - d) * (a - d) + b * b);
        Expr s1 = h.sqrt(h.max(mean + radius, 0.0f)), s2 = h.sqrt(h.max(mean - radius, 0.0f));
        Expr theta = 0.5f * h.atan2(2.0f * b, a - d), co = h.cos(theta), si = h.sin(theta);
        auto [n1, n2] = shrink<H>(p, s1, s2, tau);
        Expr r1 = h.select(s1 > 1e-30f, n1 / h.max(s1, 1e-30f), 0.0f), r2 = h.select(s2 > 1e-30f, n2 / h.max(s2, 1e-30f), 0.0f);
        // G = r1 v1 v1ᵀ + r2 v2 v2ᵀ; the prox is M G
        Expr g00 = r1 * co * co + r2 * si * si, g01 = (r1 - r2) * co * si, g11 = r1 * si * si + r2 * co * co;
        const Expr k = h.axis(r - 1);
        Expr m0 = entry(h.axis(2), 0), m1 = entry(h.axis(2), 1);
        return Expr(h.select(k == 0, m0 * g00 + m1 * g01, m0 * g01 + m1 * g11));
    }
};

}  // namespace proxgen::catalogue::penalties

namespace proxgen {
/// pg::schatten(e, p): Σ over pixels of the Schatten p-norm (p = 1, 2 or INFINITY) of each pixel's
/// matrix (e: W × H × m × n with n ≤ 2, or W × H × n), e.g. schatten(grad(x), 1) for the vectorial
/// TV of a colour image.
template <class E>
auto schatten(E e, double p) {
    return typed::apply_penalty<catalogue::penalties::schatten>(std::move(e), p);
}
}  // namespace proxgen
