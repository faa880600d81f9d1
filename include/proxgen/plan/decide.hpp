// The planning decisions, as constexpr functions of term facts (proxgen/catalogue/facts.hpp: each
// card gives its own): where each term
// goes (Ω, absorbed by the x-update, or Ψ, split and proxed), how the x-update is computed, whether
// the plan is viable, and which quadratics merge. plan_t evaluates them at compile time on the
// facts of a typed problem's terms (plan/plan.hpp); the run-time planner evaluates them on the
// facts of IR terms (plan/planner.hpp). This file is the only place these rules are written.
#pragma once

#include <cstddef>

#include "proxgen/catalogue/facts.hpp"
#include "proxgen/algorithm.hpp"

namespace proxgen::plan {

using catalogue::LinearFacts;
using catalogue::PenaltyFacts;
using catalogue::Root;
using catalogue::TermFacts;

/// What one term's facts mean for the x-update, whatever the other terms.
struct TermRule {
    /// PC and L-ADMM absorb what has a per-pixel closed-form joint prox: a quadratic of a diagonal
    /// operator, or a constraint e ≥ 0 on one (an interval per pixel).
    bool closed_form = false;
    /// A quadratic whose prox needs a transform (FFT / DCT) rather than a per-pixel formula.
    bool spectral_quadratic = false;
    // Gram contributions (ADMM / HQS): an Ω quadratic adds Aᵀ W² A (weights break frequency
    // diagonality), a Ψ term adds KᵀK (its weights live in the prox).
    bool gram_diagonal = false;
    bool fft_diagonal = false;
    bool dct_diagonal = false;
    bool grad_only = false;
};

constexpr TermRule term_rule(const TermFacts& t) {
    const PenaltyFacts& p = t.penalty;
    const LinearFacts& k = t.op;
    const bool weights_matter = p.quadratic && t.weighted;
    TermRule r;
    r.closed_form = k.diagonal && (p.quadratic || p.interval);
    r.spectral_quadratic = p.quadratic && !t.weighted && !k.diagonal && (k.fft_diagonal || k.dct_diagonal);
    r.gram_diagonal = k.gram_diagonal && (!weights_matter || k.diagonal);
    r.fft_diagonal = k.fft_diagonal && !weights_matter;
    r.dct_diagonal = k.dct_diagonal && !weights_matter;
    r.grad_only = k.grad_only;
    return r;
}

/// A term of a problem in several variables (stacked into one x) whose blocks one solve couples
/// (ADMM / HQS with a term that reads two or more variables): one that couples variables is
/// neither diagonal nor Gram-diagonal on the stack, and no transform solves the stack (no operator
/// counts as transform-diagonal), so that solve is CG. (Blocks no term couples are planned each
/// on its own: plan::plan.) The typed front end's compile-time plan applies it to every term of a
/// problem in several variables, as a check of what types can tell.
constexpr TermFacts separate_variables(TermFacts t, bool couples) {
    t.op.fft_diagonal = t.op.dct_diagonal = false;
    if (couples) t.op.diagonal = t.op.gram_diagonal = t.op.identity = t.op.scalar_identity = false;
    return t;
}

/// The plan of a whole problem (its normalized terms) for one algorithm.
struct Decision {
    /// PC / L-ADMM: when a quadratic such as ‖k ⊛ x − b‖² is diagonal in a transform, its exact prox
    /// (one transform pair per iteration) beats splitting it; Ω then holds every unweighted
    /// quadratic diagonal in that basis, and constraints move to Ψ (their joint prox is no longer
    /// closed form).
    bool spectral_prox = false;
    /// The basis: DCT when every non-diagonal spectral quadratic is DCT-diagonal, else FFT.
    bool spectral_dct = false;
    /// ADMM / HQS solve (Σ Gram blocks) x = rhs; it is singular for sure when every operator goes
    /// through grad (constant images are in the null space).
    bool all_grad = false;
    bool viable = true;
    XUpdate x_update = XUpdate::closed_form_prox;
};

/// The decision for `terms` (any range of TermFacts: a std::array at compile time, a std::vector at
/// run time) under algorithm a.
template <class Terms>
constexpr Decision decide(const Terms& terms, Algorithm a) {
    bool any_spectral = false, spectral_dct = true, all_grad = true, all_gram = true, all_dct = true, all_fft = true;
    for (const TermFacts& t : terms) {
        const TermRule r = term_rule(t);
        any_spectral = any_spectral || r.spectral_quadratic;
        spectral_dct = spectral_dct && (!r.spectral_quadratic || r.dct_diagonal);
        all_grad = all_grad && r.grad_only;
        all_gram = all_gram && r.gram_diagonal;
        all_dct = all_dct && r.dct_diagonal;
        all_fft = all_fft && r.fft_diagonal;
    }
    Decision d;
    // (Condat–Vũ steps along those quadratics' gradient instead: no transform per iteration)
    d.spectral_prox = linearized(a) && !gradient_steps(a) && any_spectral;
    d.spectral_dct = spectral_dct;
    d.all_grad = all_grad;
    d.viable = linearized(a) || !all_grad;
    d.x_update = d.spectral_prox  ? (d.spectral_dct ? XUpdate::dct : XUpdate::fft)
                 : linearized(a) ? XUpdate::closed_form_prox
                 : all_gram      ? XUpdate::elementwise
                 : all_dct       ? XUpdate::dct
                 : all_fft       ? XUpdate::fft
                                 : XUpdate::cg;
    return d;
}

/// Condat–Vũ's smooth part: a quadratic whose prox has no per-pixel closed form, which its
/// x-update steps along the gradient of (it stays in Ω, but no prox lowers it).
constexpr bool gradient_step(const TermFacts& t, Algorithm a) {
    return gradient_steps(a) && t.penalty.quadratic && !term_rule(t).closed_form;
}

/// Term t goes to Ω (absorbed by the x-update) under the problem's decision d; otherwise to Ψ.
/// ADMM and HQS absorb every quadratic into a linear solve; PC and L-ADMM what has a closed-form
/// prox (per pixel, or in the spectral basis of the decision); Condat–Vũ what has a per-pixel one
/// and every other quadratic (gradient_step).
constexpr bool absorbed(const TermFacts& t, Algorithm a, const Decision& d) {
    const TermRule r = term_rule(t);
    if (!linearized(a)) return t.penalty.quadratic;
    if (gradient_step(t, a)) return true;
    if (d.spectral_prox) return t.penalty.quadratic && !t.weighted && (d.spectral_dct ? r.dct_diagonal : r.fft_diagonal);
    return r.closed_form;
}

/// merge_quadratics' decision: an unweighted quadratic (sum_squares) of a data-free operator
/// (catalogue/facts.hpp) may merge with another one on an equal operator.
constexpr bool mergeable(const TermFacts& t) { return t.penalty.quadratic && !t.weighted && t.op.data_free; }

/// merge_quadratics' grouping: for terms 0..n-1 in order, writes out[i] = the index of the output
/// term that term i becomes (part of): a mergeable term joins the first earlier mergeable term on
/// the same operator, every other term starts its own. Returns the number of output terms.
/// `is_mergeable(i)` and `same_operator(i, j)` are callables (types at compile time, IR at run time).
template <class Mergeable, class Same, class Out>
constexpr std::size_t merge_targets(std::size_t n, Mergeable is_mergeable, Same same_operator, Out& out) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i) {
        bool joined = false;
        // the first such j is its group's first term (equal operators are transitive)
        for (std::size_t j = 0; j < i && !joined && is_mergeable(i); ++j)
            if (is_mergeable(j) && same_operator(j, i)) {
                out[i] = out[j];
                joined = true;
            }
        if (!joined) out[i] = count++;
    }
    return count;
}

}  // namespace proxgen::plan
