// Card: group_norm1(e) = Σ over all but the last axis of the 2-norm along the last axis (isotropic
// TV for grad(x)); weighted_group_norm1(w, e) = Σ_p w_p ‖e_p‖₂ with w of e's shape without the
// group axis. Not separable per element: its weights weigh groups and stay out of the argument.
#pragma once

#include "proxgen/catalogue/penalty_support.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::catalogue::penalties {

struct group_norm1 {
    static constexpr const char* name = "group_norm1";
    static constexpr const char* summary =
        "group_norm1(e): the sum over pixels of the 2-norm along e's last axis (isotropic TV of grad(x); "
        "weighted_group_norm1(w, e))";
    static constexpr PenaltyFacts facts{.separable = false};
    static constexpr bool weights_groups = true;

    static void check(const std::vector<int>& operand) {
        if (operand.size() < 3) fail(PROXGEN_MSG_GROUP_NORM1_NEEDS_GROUP_AXIS);
    }
    /// The shape of weighted_group_norm1's weight: the operand's without its (group) last axis.
    static std::vector<int> weight_shape(const std::vector<int>& operand) {
        if (operand.size() < 3) fail(PROXGEN_MSG_WEIGHTED_GROUP_NORM1_NEEDS_GROUP_AXIS);
        std::vector<int> s = operand;
        s.pop_back();
        return s;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {
            {{"group_norm1", {expr("e")}, true}, [](const Args& a) -> Built {
                 check(a.expr("e").shape);
                 return term<group_norm1>(a.expr("e"));
             }},
            {{"weighted_group_norm1", {image("w"), expr("e")}, true}, [](const Args& a) -> Built {
                 return weighted(term<group_norm1>(a.expr("e")), a.image("w"), weight_shape(a.expr("e").shape),
                                 "weighted_group_norm1");
             }},
        };
        return e;
    }
    /// Groups run along the last axis, the slowest-varying one in Halide's layout.
    /// An unknown group extent sums the group in a staged reduction, which a sliding window cannot hold.
    static bool local(const ir::Term&, bool blocking, int group_extent) { return !blocking || group_extent > 0; }
    static double value(const ir::Term& t, const Image& v) {
        const float* d = v.data();
        const int groups = v.extent(v.dimensions() - 1);
        const std::size_t stride = v.size() / std::size_t(groups);
        const float* w = t.arg_weight.empty() ? nullptr : t.arg_weight.data();
        double s = 0;
        for (std::size_t i = 0; i < stride; ++i) {
            double g = 0;
            for (int j = 0; j < groups; ++j) g += double(d[i + j * stride]) * d[i + j * stride];
            s += (w ? w[i] : 1.0) * std::sqrt(g);
        }
        return s;
    }
    /// v · max(0, 1 − τ_g/‖v_g‖), written as a select so a zero group gives 0, not 0/0. a is one
    /// scalar (β) for the whole group; group weights scale the threshold.
    static auto prox(auto& h, const auto& f, const auto& t, const auto& extents, auto tau) {
        using H = std::remove_cvref_t<decltype(h)>;
        using Expr = typename H::Expr;
        const int r = int(extents.size());
        PROXGEN_INTERNAL_ASSERT(r >= 2);
        const auto at = h.args(r);
        auto outer = h.args(r - 1);
        Expr n2;
        if (f.group_size > 0) {
            // a known small group (grad's 2 components): an inline sum the vector loop keeps in
            // registers; staging it per strip measured slower (hand-written baseline, bench/)
            n2 = 0.0f;
            for (int k = 0; k < f.group_size; ++k) {
                auto member = outer;
                member.push_back(k);
                n2 += t(member) * t(member);
            }
        } else {
            h.stage(t);
            typename H::RDom g(0, extents.back(), "group");
            auto member = outer;
            member.push_back(g);
            typename H::Func norm2("group_norm2");
            norm2(outer) = 0.0f;
            norm2(outer) += t(member) * t(member);
            h.stage(norm2);
            n2 = norm2(outer);
        }
        Expr n = h.sqrt(n2);
        Expr tg = f.group_weight ? tau * (*f.group_weight)(outer) : tau;
        return Expr(h.select(n > tg, 1.0f - tg / n, 0.0f) * t(at));
    }
};

}  // namespace proxgen::catalogue::penalties
