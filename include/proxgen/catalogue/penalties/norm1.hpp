// Card: norm1(e) = ‖e‖₁ (weighted_norm1(w, e) = ‖w ⊙ e‖₁): soft thresholding.
#pragma once

#include "proxgen/catalogue/penalty_support.hpp"

namespace proxgen::catalogue::penalties {

struct norm1 {
    static constexpr const char* name = "norm1";
    static constexpr const char* summary = "norm1(e) = ||e||_1 (weighted_norm1(w, e))";
    static constexpr PenaltyFacts facts{};

    static std::span<const Entry> entries() {
        static const Entry e[] = {
            {{"norm1", {expr("e")}, true}, [](const Args& a) -> Built { return term<norm1>(a.expr("e")); }},
            {{"weighted_norm1", {image("w"), expr("e")}, true}, [](const Args& a) -> Built {
                 return weighted(term<norm1>(a.expr("e")), a.image("w"), a.expr("e").shape, "weighted_norm1");
             }},
        };
        return e;
    }
    static double value(const ir::Term&, const Image& v) {
        double s = 0;
        for (std::size_t i = 0; i < v.size(); ++i) s += std::abs(double(v.data()[i]));
        return s;
    }
    static auto prox(auto& h, const auto&, auto u, auto tau) { return u - h.clamp(u, -tau, tau); }
};

}  // namespace proxgen::catalogue::penalties
