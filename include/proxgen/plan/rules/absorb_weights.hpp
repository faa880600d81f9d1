// Rule: α f(β w ⊙ (m ⊙ e) + c)  →  α f(β (w ⊙ m) ⊙ e + c)   for separable f
// (norm1(mul_elemwise(w, x)) becomes weighted_norm1(w, x): a weighted prox, no split operator).
// group_norm1 is not separable per element, so its weights stay in the operator.
#pragma once

#include "proxgen/plan/decide.hpp"

namespace proxgen::ir {
struct Term;
}

namespace proxgen::plan::rules {

struct absorb_weights {
    /// The decision (compile time and run time): the argument is m ⊙ e and f is separable.
    static constexpr bool applies(Root root, const PenaltyFacts& p) {
        return p.rewritable && root == Root::mul_elemwise && p.separable;
    }
    /// The term is weighted afterwards.
    static constexpr bool weighted_after(bool) { return true; }
    /// The data (src/plan/rules.cpp): t.expr is m ⊙ e; w ← w ⊙ m.
    static void apply(ir::Term& t);
};

}  // namespace proxgen::plan::rules
