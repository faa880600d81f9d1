// The run-time planner: ONE implementation of the rewrite rules' data folding, the Ω/Ψ split, the
// x-update choice and the viability check, for every problem. Both front ends write a problem as a
// Draft (its terms as IR, in source order, before any rule): the typed front end through
// typed::to_draft (typed/to_ir.hpp), the run-time API (proxgen/runtime.hpp) from its graph. plan()
// normalizes it (the rules of plan/rules/, applied to IR terms), computes each term's facts (each
// node's card's combinator), takes the decisions of plan/decide.hpp — the very constexpr functions
// plan_t evaluates at compile time for typed problems — and returns the planned ir::Problem the
// back end runs.
#pragma once

#include <vector>

#include "proxgen/ir/ir.hpp"
#include "proxgen/algorithm.hpp"
#include "proxgen/catalogue/formula.hpp"
#include "proxgen/plan/decide.hpp"

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
/// The facts of an expression, from its nodes' cards.
LinearFacts linear_facts(const ir::Node& n);
/// The facts of a term.
TermFacts term_facts(const ir::Term& t);
/// An Ω term of a plan that the x-update steps along the gradient of (Condat–Vũ's smooth part h,
/// decide.hpp's gradient_step) rather than proxes: no prox lowers it.
bool gradient_step(const ir::Problem& p, const ir::Term& t);
/// Those terms of p (Condat–Vũ's smooth part h; empty for every other plan), in Ω's order.
std::vector<const ir::Term*> gradient_terms(const ir::Problem& p);
/// Some Ω term of p is such a term.
bool has_gradient_steps(const ir::Problem& p);
/// An upper bound on ‖K‖₂ of the expression's linear part, from its nodes' cards (‖k‖₁ for a
/// convolution, √(4·axes) for grad, |s|, max|w|, sums and products; reads the nodes' data).
double norm_bound(const ir::Node& n);
/// norm_bound(n) is ‖K‖₂ itself (each card says when its bound is exact: on the variable, mostly);
/// where it is not, the solvers estimate ‖K‖ on the data (src/solve/norm_estimate.cpp).
bool norm_bound_exact(const ir::Node& n);
/// For a diagonal operator, a lower bound on min |d| (0 when unknown).
double diagonal_min_abs(const ir::Node& n);
/// The same two bounds as C++ code over a generated solver's data slots (src/aot).
catalogue::Code norm_bound_code(const ir::Node& n);
catalogue::Code diagonal_min_abs_code(const ir::Node& n);
/// Ω's strong convexity μ from its quadratics of diagonal operators: Σ 2α (β min|w| min|d|)².
double strong_convexity(const ir::Problem& p);
catalogue::Code strong_convexity_code(const ir::Problem& p);

}  // namespace proxgen::plan
