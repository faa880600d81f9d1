// Card: reshape(e, shape) — the same elements in the same order (x fastest) under another shape
// (structure: ints = the target shape); merge_last_axes(e) is its W × H × C × 2 → W × H × 2C case
// (the vectorial TV of colour images groups every channel's gradient of a pixel).
#pragma once

#include <algorithm>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::catalogue::ops {

struct reshape {
    static constexpr const char* name = "reshape";
    static constexpr const char* summary = "reshape(e, shape): the same elements (x fastest) under another shape";

    static long long count(const std::vector<int>& v) {
        long long n = 1;
        for (int x : v) n *= x;
        return n;
    }
    /// reshape to `shape`, which must have `rank` axes (the typed DSL's R).
    static std::vector<int> shape(const std::vector<int>& s, const std::vector<int>& to, int rank) {
        if (rank < 1 || rank > max_rank) fail(PROXGEN_MSG_RESHAPE_RANK);
        if (int(to.size()) != rank || std::any_of(to.begin(), to.end(), [](int x) { return x < 1; }) ||
            count(to) != count(s))
            fail("reshape: {} cannot hold the {} elements of its operand {} as a rank-{} shape", shape_string(to),
                 count(s), shape_string(s), rank);
        return to;
    }
    static std::vector<int> merged_last_axes(const std::vector<int>& operand) {
        if (operand.size() < 3) fail(PROXGEN_MSG_MERGE_LAST_AXES_RANK);
        std::vector<int> s = operand;
        const int last = s.back();
        s.pop_back();
        s.back() *= last;
        return shape(operand, s, int(operand.size()) - 1);
    }
    /// The target shape was checked (shape()): it is structure, the pipeline's index arithmetic uses it.
    static ir::Node make(ir::Node e, std::vector<int> checked_shape) {
        ir::Node n = node<reshape>(checked_shape, {std::move(e)});
        n.ints = std::move(checked_shape);
        return n;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {
            {{"reshape", {expr("e"), integers("shape")}}, [](const Args& a) -> Built {
                 const auto& to = a.integers("shape");
                 return make(a.expr("e"), shape(a.expr("e").shape, to, int(to.size())));
             }},
            {{"merge_last_axes", {expr("e")}},
             [](const Args& a) -> Built { return make(a.expr("e"), merged_last_axes(a.expr("e").shape)); }},
        };
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) {
        return fmt::format("reshape({}, {})", a[0], shape_string(n.shape));
    }

    /// The same elements: RᵀR = I.
    static constexpr LinearFacts combine(const LinearFacts& arg) { return moving_facts(arg, arg.gram_diagonal); }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    template <class D>
    static auto norm_bound(const ir::Node&, std::span<const typename D::value> a, const D&) { return a[0]; }
    /// A selection or rearrangement of the variable's samples (or an orthonormal transform): norm 1.
    static bool norm_exact(const ir::Node&, std::span<const NormTightness> a) { return exact_on_scaled_identity(a); }
    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>>, const D&) {
        std::vector<V> e;
        for (int s : n.ints) e.push_back(V(s));
        return e;
    }
    static int static_last_extent(const ir::Node&, std::span<const int>) { return 0; }

    /// (i0, i1, …) → the flat index x-fastest under `extents`, and back.
    template <class Expr>
    static Expr flatten(const std::vector<Expr>& index, const std::vector<Expr>& extents) {
        Expr f = index.back();
        for (int d = int(index.size()) - 2; d >= 0; --d) f = f * extents[d] + index[d];
        return f;
    }
    template <class H, class Expr>
    static std::vector<Expr> unflatten(Expr flat, const std::vector<Expr>& extents) {
        std::vector<Expr> index;
        Expr stride = 1;
        for (const auto& e : extents) {
            index.push_back(H::clamp((flat / stride) % e, 0, e - 1));
            stride = stride * e;
        }
        return index;
    }

    static auto forward(auto& h, const ir::Node& n, const auto& in) {
        using H = std::remove_cvref_t<decltype(h)>;
        const int r = n.rank();
        typename H::Func out("reshape");
        out(h.args(r)) = in.f(unflatten<H>(flatten(h.args(r), h.extents(n)), in.extents));
        return out;
    }
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        using H = std::remove_cvref_t<decltype(h)>;
        const std::vector<typename H::Expr> to = h.extents(n.args[0]);
        const int r = int(to.size());
        typename H::Func back("reshape_adjoint");
        back(h.args(r)) = y.f(unflatten<H>(flatten(h.args(r), to), y.extents));
        return back;
    }
};

}  // namespace proxgen::catalogue::ops
