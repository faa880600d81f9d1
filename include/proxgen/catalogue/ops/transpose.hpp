// Card: transpose(e, perm) — axis permutation: output axis d is e's axis perm[d] (numpy's
// transpose, in Halide order; structure: ints = perm). Its adjoint is the inverse permutation.
#pragma once

#include <algorithm>
#include <numeric>

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::ops {

struct transpose {
    static constexpr const char* name = "transpose";
    static constexpr const char* summary = "transpose(e, perm): output axis d is e's axis perm[d]";

    static std::vector<int> shape(const std::vector<int>& s, const std::vector<int>& perm) {
        std::vector<int> sorted = perm;
        std::sort(sorted.begin(), sorted.end());
        std::vector<int> iota(s.size());
        std::iota(iota.begin(), iota.end(), 0);
        if (sorted != iota)
            fail("transpose: {{{}}} is not a permutation of the {} axes of its operand {}", fmt::join(perm, ", "),
                 s.size(), shape_string(s));
        std::vector<int> out(s.size());
        for (std::size_t d = 0; d < s.size(); ++d) out[d] = s[perm[d]];
        return out;
    }
    static ir::Node make(ir::Node e, std::vector<int> perm) {
        std::vector<int> out = shape(e.shape, perm);  // before e is moved
        ir::Node n = node<transpose>(std::move(out), {std::move(e)});
        n.ints = std::move(perm);
        return n;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"transpose", {expr("e"), integers("perm")}},
                                   [](const Args& a) -> Built { return make(a.expr("e"), a.integers("perm")); }}};
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) {
        return fmt::format("transpose({}, {{{}}})", a[0], fmt::join(n.ints, ","));
    }

    /// A permutation: PᵀP = I.
    static constexpr LinearFacts combine(const LinearFacts& arg) { return moving_facts(arg, arg.gram_diagonal); }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    template <class D>
    static auto norm_bound(const ir::Node&, std::span<const typename D::value> a, const D&) { return a[0]; }
    /// A selection or rearrangement of the variable's samples (or an orthonormal transform): norm 1.
    static bool norm_exact(const ir::Node&, std::span<const NormTightness> a) { return exact_on_scaled_identity(a); }
    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>> a, const D&) {
        std::vector<V> e = a[0];
        for (std::size_t d = 0; d < e.size(); ++d) e[d] = a[0][n.ints[d]];
        return e;
    }
    static int static_last_extent(const ir::Node&, std::span<const int>) { return 0; }

    static auto forward(auto& h, const ir::Node& n, const auto& in) {
        using H = std::remove_cvref_t<decltype(h)>;
        const int r = n.rank();
        auto i = h.args(r);
        std::vector<typename H::Expr> j(r);
        for (int d = 0; d < r; ++d) j[n.ints[d]] = i[d];
        typename H::Func out("transpose");
        out(i) = in.f(j);
        return out;
    }
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        using H = std::remove_cvref_t<decltype(h)>;
        const int r = n.rank();
        auto i = h.args(r);
        std::vector<typename H::Expr> j(r);
        for (int d = 0; d < r; ++d) j[d] = i[n.ints[d]];
        typename H::Func back("transpose_adjoint");
        back(i) = y.f(j);
        return back;
    }
};

}  // namespace proxgen::catalogue::ops
