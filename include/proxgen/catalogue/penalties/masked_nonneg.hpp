// Card: masked_nonneg(e, mask) — the indicator of e ≥ 0 where mask ≠ 0 (elsewhere e is free).
#pragma once

#include "proxgen/catalogue/penalty_support.hpp"

namespace proxgen::catalogue::penalties {

struct masked_nonneg {
    static constexpr const char* name = "masked_nonneg";
    static constexpr const char* summary = "masked_nonneg(e, mask): e >= 0 where mask != 0";
    static constexpr PenaltyFacts facts{.indicator = true};
    static constexpr const char* data_role = "mask";

    static void check_data(const Image& mask, const std::vector<int>& operand) {
        check::image(mask, "masked_nonneg", "mask");
        check::same_shape("masked_nonneg", "the expression", operand, "the mask", mask.sizes());
    }
    static ir::Term make(ir::Node e, const ImageArg& mask) {
        check_data(mask.image, e.shape);
        ir::Term t = term<masked_nonneg>(std::move(e));
        t.data = mask.image;
        t.data_name = mask.name;
        return t;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"masked_nonneg", {expr("e"), image("mask")}, true},
                                   [](const Args& a) -> Built { return make(a.expr("e"), a.image("mask")); }}};
        return e;
    }
    static auto summand(auto& h, const auto& f, const auto& t, const auto& extents) {
        return nonneg_summand(h, t, extents, (*f.data)(h.args(int(extents.size()))) != 0.0f);
    }
    static auto prox(auto& h, const auto& f, auto u, auto) {
        return h.select((*f.data)(h.args(f.rank)) != 0.0f, h.max(u, 0.0f), u);
    }
    /// nonneg's derivative where the mask holds, 1 elsewhere; the mask is not differentiated.
    static auto prox_vjp(auto& h, const auto& f, auto u, auto, auto g) {
        using Expr = typename std::remove_cvref_t<decltype(h)>::Expr;
        return ProxVJP<Expr>{h.select((*f.data)(h.args(f.rank)) != 0.0f && u <= 0.0f, 0.0f, g), Expr(0.0f)};
    }
};

}  // namespace proxgen::catalogue::penalties
