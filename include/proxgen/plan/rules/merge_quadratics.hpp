// Rule (problem level): quadratics acting on the same operator become one term.
//   α₁‖β₁ K x + c₁‖² + α₂‖β₂ K x + c₂‖²  →  A ‖K x + c‖² + d,
//   A = α₁β₁² + α₂β₂²,  c = (α₁β₁c₁ + α₂β₂c₂)/A,  d = α₁‖c₁‖² + α₂‖c₂‖² − A‖c‖²
// (d keeps the objective's value exact). "The same operator" must be provable from the structure:
// K is built from the variable and grad only, which carry no data (LinearFacts::data_free). Two
// conv(k, x) have one structure whatever their kernels, so they are left apart (merging them would
// need a run-time check and a plan that changes with the data). Weighted quadratics are left apart
// too (their w differ).
//
// The decision is plan::mergeable and the grouping plan::merge_targets (plan/decide.hpp): the
// typed front end groups equal term types, the run-time planner equal IR operators.
#pragma once

#include "proxgen/plan/decide.hpp"

namespace proxgen::ir {
struct Term;
struct Node;
}  // namespace proxgen::ir

namespace proxgen::plan::rules {

struct merge_quadratics {
    /// The data (src/plan/rules.cpp): `into` (the group's first term) becomes the merged term of
    /// itself and t.
    static void merge(ir::Term& into, const ir::Term& t);
    /// merge's derivatives (ir::Term::Tangent): `into`'s tangent becomes the merged term's, from
    /// a and b as they were before the merge.
    static void merge_tangent(ir::Term& into, const ir::Term& a, const ir::Term& b);
    /// Two data-free operators are equal: same structure, same variable.
    static bool same_operator(const ir::Node& a, const ir::Node& b);
};

}  // namespace proxgen::plan::rules
