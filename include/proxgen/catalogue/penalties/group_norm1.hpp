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
    static constexpr PenaltyFacts facts{.separable = false, .finite_everywhere = true};
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
    /// Per group: w ‖t_g‖₂ in float64 (the sum over the group axis first).
    static int summand_rank(int argument_rank) { return argument_rank - 1; }
    static auto summand(auto& h, const auto& f, const auto& t, const auto& extents) {
        using H = std::remove_cvref_t<decltype(h)>;
        using Expr = typename H::Expr;
        const int r = int(extents.size());
        const auto outer = h.args(r - 1);
        auto square = [&](auto k) {
            auto member = outer;
            member.push_back(k);
            const Expr d = h.to_double(t(member));
            return Expr(d * d);
        };
        Expr n2 = h.f64(0);
        if (f.group_size > 0) {
            for (int k = 0; k < f.group_size; ++k) n2 = n2 + square(k);
        } else {
            typename H::RDom g(0, extents.back(), "group");
            n2 = h.sum(square(g.x));
        }
        const Expr norm = h.sqrt(n2);
        return f.group_weight ? Expr(h.to_double((*f.group_weight)(outer)) * norm) : norm;
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
    /// Where ‖t_g‖ > τ_g: du = (1 − τ_g/n) g + (τ_g/n³) ⟨t_g, g_g⟩ t, dτ_g = −⟨t_g, g_g⟩/n; 0 where the
    /// group is thresholded to 0, and at the kink n = τ_g (a zero group included) 0 too (the branch
    /// the prox takes there). dtau is each element's share of its group's (dτ_g w_g / group size);
    /// dweight = τ dτ_g at the group's axes.
    static auto prox_vjp(auto& h, const auto& f, const auto& t, const auto& extents, auto tau, const auto& g) {
        using H = std::remove_cvref_t<decltype(h)>;
        using Expr = typename H::Expr;
        const int r = int(extents.size());
        const auto at = h.args(r);
        auto outer = h.args(r - 1);
        Expr n2, tg_dot;
        if (f.group_size > 0) {
            n2 = 0.0f;
            tg_dot = 0.0f;
            for (int k = 0; k < f.group_size; ++k) {
                auto member = outer;
                member.push_back(k);
                n2 += t(member) * t(member);
                tg_dot += t(member) * g(member);
            }
        } else {
            h.stage(t);
            h.stage(g);
            typename H::RDom gr(0, extents.back(), "group");
            auto member = outer;
            member.push_back(gr);
            typename H::Func norm2("group_norm2"), dot("group_dot");
            norm2(outer) = 0.0f;
            norm2(outer) += t(member) * t(member);
            dot(outer) = 0.0f;
            dot(outer) += t(member) * g(member);
            h.stage(norm2);
            h.stage(dot);
            n2 = norm2(outer);
            tg_dot = dot(outer);
        }
        Expr n = h.sqrt(n2);
        Expr w = f.group_weight ? Expr((*f.group_weight)(outer)) : Expr(1.0f);
        Expr tg = tau * w;
        Expr keep = n > tg;
        Expr inv = 1.0f / h.select(keep, n, 1.0f);
        Expr du = h.select(keep, (1.0f - tg * inv) * g(at) + tg * inv * inv * inv * tg_dot * t(at), 0.0f);
        Expr dtg = h.select(keep, -tg_dot * inv, 0.0f);
        ProxVJP<Expr> d{du, dtg * w / h.to_float(extents.back())};
        if (f.group_weight) d.dweight = dtg * tau;
        return d;
    }
};

}  // namespace proxgen::catalogue::penalties
