// Rule: α f(β w ⊙ (e ± b) + c)  →  α f(β w ⊙ e + c'),  c' = c ± β w ⊙ b.
// The split operator loses its constant; the prox sees a translated argument instead.
// (For group_norm1, w weighs whole groups and stays out of the argument: c' = c ± β b.)
#pragma once

#include "proxgen/plan/decide.hpp"

namespace proxgen::ir {
struct Term;
}

namespace proxgen::plan::rules {

struct absorb_offset {
    /// The decision (compile time and run time): the argument is e ± b.
    static constexpr bool applies(Root root, const PenaltyFacts& p) { return p.rewritable && root == Root::offset; }
    /// What it does to the term's type: the weight image stays as it was.
    static constexpr bool weighted_after(bool weighted) { return weighted; }
    /// What it does to the term's data (src/plan/rules.cpp): t.expr is e ± b; folds ±b into t.offset.
    static void apply(ir::Term& t);
};

}  // namespace proxgen::plan::rules
