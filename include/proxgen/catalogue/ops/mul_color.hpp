// Card: mul_color(e, M) — one 3 × 3 colour transform on every pixel's channels:
// out(p, i) = Σ_j M(j, i) e(p, j) (M's x is the column j, y the row i). Adjoint: Mᵀ.
#pragma once

#include "proxgen/catalogue/card.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::catalogue::ops {

struct mul_color {
    static constexpr const char* name = "mul_color";
    static constexpr const char* summary = "mul_color(e, M): a 3 x 3 colour matrix applied to every pixel of a W x H x 3 image";
    static constexpr const char* image_role = "matrix";

    static std::vector<int> shape(const std::vector<int>& s, const Image& M) {
        if (s.size() != 3) fail(PROXGEN_MSG_MUL_COLOR_RANK);
        check::image(M, "mul_color", "colour matrix");
        if (M.sizes() != std::vector<int>{3, 3}) fail("mul_color: the colour matrix must be 3x3, got {}", M.shape_string());
        if (s[2] != 3) fail("mul_color: its operand must have 3 channels, got {}", shape_string(s));
        return s;
    }
    static ir::Node make(ir::Node e, Image M, std::string input_name = {}) {
        std::vector<int> out = shape(e.shape, M);  // before e is moved
        ir::Node n = node<mul_color>(std::move(out), {std::move(e)});
        n.image = std::move(M);
        n.name = std::move(input_name);
        return n;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"mul_color", {expr("e"), image("matrix")}}, [](const Args& a) -> Built {
            return make(a.expr("e"), a.image("matrix").image, a.image("matrix").name);
        }}};
        return e;
    }
    static std::string text(const ir::Node&, const std::vector<std::string>& a) { return fmt::format("mul_color(M, {})", a[0]); }

    /// Per-pixel matrices: block-diagonal Gram matrices, not diagonal.
    static constexpr LinearFacts combine(const LinearFacts& arg) { return moving_facts(arg, false); }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    /// ‖M‖₂ (the same 3 × 3 matrix at every pixel): exact on the variable.
    template <class D>
    static auto norm_bound(const ir::Node& n, std::span<const typename D::value> a, const D& d) {
        return d.spectral_norm(n) * a[0];
    }
    static bool norm_exact(const ir::Node&, std::span<const NormTightness> a) { return exact_on_scaled_identity(a); }
    template <class V>
    static std::vector<V> image_extents(const ir::Node&, const std::vector<V>&) { return {V(3), V(3)}; }
    static int static_last_extent(const ir::Node&, std::span<const int>) { return 0; }

    template <class H, class Func, class Expr>
    static Expr with_channel(const Func& f, int r, Expr c) {
        auto a = H::args(r);
        a[2] = std::move(c);
        return f(a);
    }
    /// out_i = Σ_j M(j, i) in_j: three taps unrolled, no reduction.
    static auto forward(auto& h, const ir::Node& n, const auto& in) {
        using H = std::remove_cvref_t<decltype(h)>;
        const int r = in.rank();
        const auto& m = h.image(n);
        typename H::Expr e = 0.0f;
        for (int j = 0; j < 3; ++j) e += m(j, h.axis(2)) * with_channel<H>(in.f, r, typename H::Expr(j));
        typename H::Func out("mul_color");
        out(h.args(r)) = e;
        return out;
    }
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        using H = std::remove_cvref_t<decltype(h)>;
        const int r = y.rank();
        const auto& m = h.image(n);
        typename H::Expr e = 0.0f;
        for (int i = 0; i < 3; ++i) e += m(h.axis(2), i) * with_channel<H>(y.f, r, typename H::Expr(i));
        typename H::Func back("mul_color_adjoint");
        back(h.args(r)) = e;
        return back;
    }
};

}  // namespace proxgen::catalogue::ops
