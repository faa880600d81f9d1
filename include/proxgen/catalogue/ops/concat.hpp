// Card: concat(a, b, axis) — a followed by b along an axis (0: hstack, 1: vstack, 2: channels);
// every other axis must agree (structure: ints = {axis}). [A; B]ᵀ[A; B] = AᵀA + BᵀB.
#pragma once

#include "proxgen/catalogue/card.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::catalogue::ops {

struct concat {
    static constexpr const char* name = "concat";
    static constexpr const char* summary = "concat(a, b, axis), vstack(a, b, ...), hstack(a, b, ...): side by side along an axis";

    static std::vector<int> shape(const std::vector<int>& sa, const std::vector<int>& sb, int axis) {
        if (sa.size() != sb.size()) fail(PROXGEN_MSG_CONCAT_SAME_RANK);
        if (axis < 0 || axis >= int(sa.size())) fail("concat: axis {} is not an axis of {}", axis, shape_string(sa));
        for (std::size_t d = 0; d < sa.size(); ++d)
            if (int(d) != axis && sa[d] != sb[d])
                fail("concat: joining along axis {}, but the operands are {} and {}", axis, shape_string(sa),
                     shape_string(sb));
        std::vector<int> s = sa;
        s[axis] += sb[axis];
        return s;
    }
    static ir::Node make(ir::Node a, ir::Node b, int axis) {
        std::vector<int> s = shape(a.shape, b.shape, axis);
        ir::Node n = node<concat>(std::move(s), {std::move(a), std::move(b)});
        n.ints = {axis};
        return n;
    }
    /// parts[0], parts[1], ... along the axis (op names the sentence: vstack, hstack).
    static ir::Node stack(const std::vector<ir::Node>& parts, int axis, const char* op) {
        if (parts.size() < 2) fail("{}: needs at least two expressions, got {}", op, parts.size());
        ir::Node out = parts[0];
        for (std::size_t i = 1; i < parts.size(); ++i) out = make(std::move(out), parts[i], axis);
        return out;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {
            {{"concat", {expr("a"), expr("b"), integer("axis")}},
             [](const Args& a) -> Built { return make(a.expr("a"), a.expr("b"), a.integer("axis")); }},
            {{"vstack", {expr("a"), more_exprs("b")}}, [](const Args& a) -> Built { return stack(a.exprs(), 1, "vstack"); }},
            {{"hstack", {expr("a"), more_exprs("b")}}, [](const Args& a) -> Built { return stack(a.exprs(), 0, "hstack"); }},
        };
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) {
        return fmt::format("{}({}, {})", n.ints[0] == 0 ? "hstack" : n.ints[0] == 1 ? "vstack" : "concat", a[0], a[1]);
    }

    /// [A; B]ᵀ[A; B] = AᵀA + BᵀB.
    static constexpr LinearFacts combine(const LinearFacts& a, const LinearFacts& b) {
        LinearFacts f;
        f.gram_diagonal = a.gram_diagonal && b.gram_diagonal;
        f.grad_only = a.grad_only && b.grad_only;
        f.has_offset = a.has_offset || b.has_offset;
        return f;
    }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0], a[1]); }
    /// ‖[A; B] x‖² = ‖A x‖² + ‖B x‖².
    template <class D>
    static auto norm_bound(const ir::Node&, std::span<const typename D::value> a, const D&) {
        using std::sqrt;
        return sqrt(a[0] * a[0] + a[1] * a[1]);
    }
    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>> a, const D&) {
        std::vector<V> e = a[0];
        e[n.ints[0]] = e[n.ints[0]] + a[1][n.ints[0]];
        return e;
    }
    static int static_last_extent(const ir::Node&, std::span<const int>) { return 0; }

    /// a before b along the axis; the clamps keep both reads in bounds (select evaluates both).
    static auto forward(auto& h, const ir::Node& n, auto a, const auto&, bool) {
        using H = std::remove_cvref_t<decltype(h)>;
        if (a[0].is_zero && a[1].is_zero) return h.zeros(h.extents(n));
        const int r = n.rank(), axis = n.ints[0];
        const auto& ax = h.axes();
        typename H::Expr na = a[0].extents[axis], nb = a[1].extents[axis];
        auto ia = h.args(r), ib = h.args(r);
        ia[axis] = h.clamp(ax[axis], 0, na - 1);
        ib[axis] = h.clamp(ax[axis] - na, 0, nb - 1);
        typename H::Lowered c{typename H::Func("concat"), h.extents(n)};
        c.f(h.args(r)) = h.select(ax[axis] < na, a[0].f(ia), a[1].f(ib));
        return c;
    }
    /// [A; B]ᵀ y = Aᵀ y_a + Bᵀ y_b: y split along the axis, each part read in place.
    static auto adjoint(auto& h, const ir::Node& n, const auto& y, int) {
        using H = std::remove_cvref_t<decltype(h)>;
        using L = typename H::Lowered;
        const int axis = n.ints[0], r = n.rank();
        auto ea = h.extents(n.args[0]), eb = h.extents(n.args[1]);
        L ya{typename H::Func("concat_adjoint_a"), ea}, yb{typename H::Func("concat_adjoint_b"), eb};
        auto ib = h.args(r);
        ib[axis] = h.axes()[axis] + ea[axis];
        ya.f(h.args(r)) = y.f(h.args(r));
        yb.f(h.args(r)) = y.f(ib);
        return std::vector<std::optional<L>>{ya, yb};
    }
};

}  // namespace proxgen::catalogue::ops
