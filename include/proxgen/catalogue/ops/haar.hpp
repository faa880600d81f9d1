// Card: haar(e, levels) — the multi-level orthonormal 2-D Haar wavelet transform of every channel
// of e (levels ≥ 1; width and height divisible by 2^levels). Level l replaces the top-left
// (W/2^(l−1)) × (H/2^(l−1)) block by its four half-size subbands — averages (top left), then the
// horizontal, vertical and diagonal details — each pixel pair combined with weights ±1/2, so every
// level is an orthonormal (and symmetric) 2 × 2 block transform: WᵀW = I, ‖W‖ = 1, and the adjoint
// is the inverse transform. Sparsity priors norm1(haar(x, 3)) then keep ADMM's x-update
// elementwise (the Gram matrix of an orthonormal operator is the identity).
// Structure: ints = {levels}.
#pragma once

#include "proxgen/catalogue/card.hpp"
#include "proxgen/check/rules.hpp"

namespace proxgen::catalogue::ops {

struct haar {
    static constexpr const char* name = "haar";
    static constexpr const char* summary =
        "haar(e, levels): the orthonormal multi-level 2-D Haar wavelet transform of every channel";

    static std::vector<int> shape(const std::vector<int>& operand, int levels) {
        check::plane("haar", operand);
        if (levels < 1 || levels > 16) fail("haar: levels must be between 1 and 16, got {}", levels);
        if (std::string m = rules::haar_levels(levels, operand); !m.empty()) fail("{}", m);
        return operand;
    }
    /// The same rule in a generated solver, which learns the variable's extents at init.
    static std::string shape_check_code(const ir::Node& n, const std::string& operand_extents) {
        return fmt::format("proxgen::rules::haar_levels({}, {})", n.ints.at(0), operand_extents);
    }
    static ir::Node make(ir::Node e, int levels) {
        std::vector<int> out = shape(e.shape, levels);  // before e is moved
        ir::Node n = node<haar>(std::move(out), {std::move(e)});
        n.ints = {levels};
        return n;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"haar", {expr("e"), integer("levels")}},
                                   [](const Args& a) -> Built { return make(a.expr("e"), a.integer("levels")); }}};
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) {
        return fmt::format("haar({}, {})", a[0], n.ints[0]);
    }

    /// WᵀW = I: the Gram matrix is the operand's.
    static constexpr LinearFacts combine(const LinearFacts& arg) { return moving_facts(arg, arg.gram_diagonal); }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    /// Orthonormal: ‖W‖ = 1 exactly.
    template <class D>
    static auto norm_bound(const ir::Node&, std::span<const typename D::value> a, const D&) { return a[0]; }
    /// A selection or rearrangement of the variable's samples (or an orthonormal transform): norm 1.
    static bool norm_exact(const ir::Node&, std::span<const NormTightness> a) { return exact_on_scaled_identity(a); }

    // ---- lowering ----
    /// One level on the top-left w × h block of f (the rest passes through): with q the pixel's
    /// position inside its half-size subband and (a, b; c, d) the 2 × 2 block at 2q, the subband
    /// of signs (sx, sy) holds (a + sx b + sy c + sx sy d)/2. The inverse reads the four subbands
    /// at q = p/2 and weighs them with the signs of p's parity, (LL + sx HL + sy LH + sx sy HH)/2.
    template <class H, class Func, class Expr>
    static Func level(const Func& f, int rank, Expr w, Expr h, bool inverse, int l) {
        const Expr x = H::axis(0), y = H::axis(1), hw = w / 2, hh = h / 2;
        const Expr inside = x < w && y < h;
        Expr value;
        if (!inverse) {
            const Expr qx = H::clamp(H::select(x < hw, x, x - hw), 0, hw - 1);
            const Expr qy = H::clamp(H::select(y < hh, y, y - hh), 0, hh - 1);
            const Expr sx = H::select(x < hw, 1.0f, -1.0f), sy = H::select(y < hh, 1.0f, -1.0f);
            value = 0.5f * (H::at(f, rank, 2 * qx, 2 * qy) + sx * H::at(f, rank, 2 * qx + 1, 2 * qy) +
                            sy * H::at(f, rank, 2 * qx, 2 * qy + 1) + sx * sy * H::at(f, rank, 2 * qx + 1, 2 * qy + 1));
        } else {
            const Expr px = H::clamp(x / 2, 0, hw - 1), py = H::clamp(y / 2, 0, hh - 1);
            const Expr sx = H::select(x % 2 == 0, 1.0f, -1.0f), sy = H::select(y % 2 == 0, 1.0f, -1.0f);
            value = 0.5f * (H::at(f, rank, px, py) + sx * H::at(f, rank, px + hw, py) + sy * H::at(f, rank, px, py + hh) +
                            sx * sy * H::at(f, rank, px + hw, py + hh));
        }
        Func out(std::string(inverse ? "haar_inverse_level" : "haar_level") + std::to_string(l));
        out(H::args(rank)) = H::select(inside, value, f(H::args(rank)));
        return out;
    }
    /// Levels 1, 2, …: the block halves each time. Every level but the last is computed whole
    /// first: the next reads it at twice its coordinates, far from any strip of its own rows.
    static auto forward(auto& h, const ir::Node& n, const auto& in) {
        using H = std::remove_cvref_t<decltype(h)>;
        typename H::Func f = in.f;
        for (int l = 1; l <= n.ints[0]; ++l) {
            if (l > 1) h.root(f);
            f = level<H>(f, in.rank(), in.extents[0] / (1 << (l - 1)), in.extents[1] / (1 << (l - 1)), false, l);
        }
        return f;
    }
    /// Wᵀ = W⁻¹: the levels undone from the coarsest.
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        using H = std::remove_cvref_t<decltype(h)>;
        typename H::Func f = y.f;
        for (int l = n.ints[0]; l >= 1; --l) {
            if (l < n.ints[0]) h.root(f);
            f = level<H>(f, y.rank(), y.extents[0] / (1 << (l - 1)), y.extents[1] / (1 << (l - 1)), true, l);
        }
        return f;
    }
};

}  // namespace proxgen::catalogue::ops

namespace proxgen {
/// pg::haar(e, levels): the orthonormal multi-level 2-D Haar wavelet transform of every channel of
/// e (width and height divisible by 2^levels), e.g. norm1(haar(x, 3)) as a sparsity prior.
template <class E>
auto haar(E e, int levels) {
    return typed::apply_card<catalogue::ops::haar>(std::move(e), levels);
}
}  // namespace proxgen
