// Card: patch_nlm(e) — a plug-and-play prior: no closed-form function, its prox is a non-local
// means denoiser of the argument (7 × 7 search window, 3 × 3 patches, channels compared jointly)
// at noise level σ = √(α/ρ) for weight α and prox parameter ρ; weight 0 makes it the identity.
// ProxImaL's patch_NLM. The objective counts it as 0 (it has no value to report).
#pragma once

#include "proxgen/catalogue/penalty_support.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::catalogue::penalties {

struct patch_nlm {
    static constexpr const char* name = "patch_nlm";
    static constexpr const char* summary = "patch_nlm(e): a non-local means denoiser as the prox (plug-and-play prior)";
    static constexpr PenaltyFacts facts{.separable = false, .finite_everywhere = true};

    static void check(const std::vector<int>& operand) {
        if (operand.size() != 2 && operand.size() != 3) fail(PROXGEN_MSG_PATCH_NLM_RANK);
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"patch_nlm", {expr("e")}, true}, [](const Args& a) -> Built {
            check(a.expr("e").shape);
            return term<patch_nlm>(a.expr("e"));
        }}};
        return e;
    }
    /// A denoiser, not a function: nothing to add.
    /// A large search window per pixel, staged.
    static bool local(const ir::Term&, bool, int) { return false; }
    static auto summand(auto& h, const auto&, auto) { return h.f64(0); }
    /// A denoiser at noise level √τ on the scaled argument (a is one scalar β here: the planner
    /// never absorbs weights into a non-separable penalty).
    static auto prox(auto& h, const auto&, const auto& t, const auto& extents, auto tau) {
        return h.nlm_denoise(t, extents, h.sqrt(tau));
    }
};

}  // namespace proxgen::catalogue::penalties
