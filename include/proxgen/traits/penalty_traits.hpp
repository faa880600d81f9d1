// What each penalty is (plan::penalty_facts, plan/facts.hpp, spelled as traits): its name, whether
// an elementwise weight can be absorbed into its argument (separable penalties), whether it is an
// indicator (a constraint), whether it is a quadratic that the x-update can absorb in closed form,
// and its strong convexity modulus. The closed-form proxes themselves are lowered in
// src/lower/prox.cpp.
#pragma once

#include "proxgen/dsl/penalty.hpp"
#include "proxgen/plan/facts.hpp"

namespace proxgen::traits {

template <dsl::penalty_kind K>
struct penalty_traits {
    static constexpr plan::PenaltyFacts facts = plan::penalty_facts(K);
    static constexpr const char* name = facts.name;
    static constexpr bool is_indicator = facts.indicator;
    static constexpr bool is_quadratic = facts.quadratic;
    static constexpr double strong_convexity = facts.strong_convexity;
};

/// f(w ⊙ v) has a per-element prox for any w: every penalty but the grouped ones.
template <dsl::penalty_kind K>
inline constexpr bool is_separable = plan::penalty_facts(K).separable;

}  // namespace proxgen::traits
