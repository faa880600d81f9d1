// The run-time planner: ONE implementation of the rewrite rules' data folding, the Ω/Ψ split, the
// x-update choice and the viability check, for every problem. Both front ends write a problem as a
// Draft (its terms as IR, in source order, before any rule): the typed DSL through
// lower::to_draft (lower/to_ir.hpp), the run-time API (proxgen/runtime.hpp) from its graph. plan()
// normalizes it (plan/normalize.hpp's rules, applied to IR terms), computes each term's facts
// (plan/facts.hpp's combinators on IR nodes), takes the decisions of plan/decide.hpp — the very
// constexpr functions plan_t evaluates at compile time for typed problems — and returns the
// planned ir::Problem the back end runs.
#pragma once

#include <vector>

#include "proxgen/ir/ir.hpp"
#include "proxgen/plan/algorithm.hpp"
#include "proxgen/plan/facts.hpp"

namespace proxgen::plan {

/// A problem as a front end writes it: its terms in source order, before the rewrite rules (each
/// term's expr is its whole argument; weight, beta, arg_weight, offset, data and constant as its
/// penalty constructor set them), and its variables (Node::variable indexes them).
struct Draft {
    std::vector<ir::Variable> variables;
    std::vector<ir::Term> terms;
};

/// The planned problem for algorithm a: terms normalized and merged, sorted into Ω and Ψ (source
/// order within each), x-update chosen, norm bounds, Ω's strong convexity, texts and slots set.
/// Throws proxgen::Error for problems that cannot be planned (no term, no variable, several
/// variables — not solved yet —, a declared variable no term uses, an ADMM / HQS plan whose
/// x-update is singular).
ir::Problem plan(const Draft& draft, Algorithm a);

/// The rewrite rules applied to every term until none applies, then merge_quadratics: the
/// normalized terms, in source order (a merged group sits where its first term was).
std::vector<ir::Term> normalize(std::vector<ir::Term> terms);
/// The rewrite rules applied to one term until none applies.
ir::Term normalize_term(ir::Term t);

// ---- facts and numbers of IR nodes ---------------------------------------------------------------

/// The root of an argument, for the rewrite rules: e ± b, s · e, m ⊙ e or anything else.
Root root_of(const ir::Node& n);
/// The facts of an expression, from plan/facts.hpp's combinators.
LinearFacts linear_facts(const ir::Node& n);
/// The facts of a term.
TermFacts term_facts(const ir::Term& t);
/// An upper bound on ‖K‖₂ of the expression's linear part (‖k‖₁ for a convolution, √(4·axes) for
/// grad, |s|, max|w|, sums and products; may read the node's data).
double norm_bound(const ir::Node& n);
/// For a diagonal operator, a lower bound on min |d| (0 when unknown).
double diagonal_min_abs(const ir::Node& n);
/// The offset node e ± b (IR: sum(e, scale(±1, constant b))).
bool is_offset(const ir::Node& n);

}  // namespace proxgen::plan
