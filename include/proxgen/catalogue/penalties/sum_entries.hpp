// Card: sum_entries(e) = Σ e, a linear term ⟨1, e⟩.
#pragma once

#include "proxgen/catalogue/penalty_support.hpp"

namespace proxgen::catalogue::penalties {

struct sum_entries {
    static constexpr const char* name = "sum_entries";
    static constexpr const char* summary = "sum_entries(e): the sum of e's elements (a linear term)";
    static constexpr PenaltyFacts facts{.finite_everywhere = true};

    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"sum_entries", {expr("e")}, true}, [](const Args& a) -> Built { return term<sum_entries>(a.expr("e")); }}};
        return e;
    }
    static auto summand(auto& h, const auto&, auto v) { return h.to_double(v); }
    static auto prox(auto&, const auto&, auto u, auto tau) { return u - tau; }
    static auto prox_vjp(auto&, const auto&, auto, auto, auto g) {
        using Expr = decltype(g * 1.0f);
        return ProxVJP<Expr>{g, -g};
    }
};

}  // namespace proxgen::catalogue::penalties
