// Rule: α f(β w ⊙ (s·e) + c)  →  α f((β s) w ⊙ e + c).
// The split operator loses its scalar; ‖K‖ and the Gram matrix no longer carry it.
#pragma once

#include "proxgen/plan/decide.hpp"

namespace proxgen::ir {
struct Term;
}

namespace proxgen::plan::rules {

struct absorb_scale {
    /// The decision (compile time and run time): the argument is s · e.
    static constexpr bool applies(Root root, const PenaltyFacts& p) { return p.rewritable && root == Root::scale; }
    static constexpr bool weighted_after(bool weighted) { return weighted; }
    /// The data (src/plan/rules.cpp): t.expr is s · e; β ← β s.
    static void apply(ir::Term& t);
};

}  // namespace proxgen::plan::rules
