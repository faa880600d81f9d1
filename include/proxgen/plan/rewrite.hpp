// Which rewrite rule applies next to a term (plan/rules/): one constexpr decision on the root of its
// argument and its penalty's facts, evaluated by the run-time planner on IR terms and by the typed
// front end on term types (proxgen/typed/normalize.hpp).
#pragma once

#include "proxgen/plan/rules/absorb_offset.hpp"
#include "proxgen/plan/rules/absorb_scale.hpp"
#include "proxgen/plan/rules/absorb_weights.hpp"
#include "proxgen/plan/rules/merge_quadratics.hpp"

namespace proxgen::plan {

enum class Rewrite { none, absorb_offset, absorb_scale, absorb_weights };

/// The rule to apply next to a term whose argument has this root (none: the term is normalized).
constexpr Rewrite next_rewrite(Root root, const PenaltyFacts& p) {
    if (rules::absorb_offset::applies(root, p)) return Rewrite::absorb_offset;
    if (rules::absorb_scale::applies(root, p)) return Rewrite::absorb_scale;
    if (rules::absorb_weights::applies(root, p)) return Rewrite::absorb_weights;
    return Rewrite::none;
}

constexpr bool weighted_after(Rewrite r, bool weighted) {
    switch (r) {
    case Rewrite::absorb_offset: return rules::absorb_offset::weighted_after(weighted);
    case Rewrite::absorb_scale: return rules::absorb_scale::weighted_after(weighted);
    case Rewrite::absorb_weights: return rules::absorb_weights::weighted_after(weighted);
    case Rewrite::none: break;
    }
    return weighted;
}

}  // namespace proxgen::plan
