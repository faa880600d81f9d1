// What the planner knows about a term, as plain constexpr values: the facts of its linear
// operator (LinearFacts), of its penalty (PenaltyFacts) and whether it carries an elementwise
// weight (TermFacts). Every operator's facts come from ONE combinator, its card's `facts`
// (proxgen/catalogue/ops/*.hpp), evaluated by the typed front end at compile time and by the
// run-time planner on IR nodes; the planning rules (plan/decide.hpp, plan/rules/) read nothing
// else. So a typed problem and the same problem built at run time get the same plan by
// construction.
//
// The facts of a linear operator K (of the expression's linear part):
//   identity          the expression is exactly a variable
//   scalar_identity   s · x (+ constants): a multiple of the identity
//   diagonal          K x = d ⊙ x for some image d (diagonal in space)
//   gram_diagonal     KᵀK is diagonal (diagonal K, or a subsampling / gather / move of one)
//   fft_diagonal      diagonal in the DFT basis (circular conv, periodic grad, and sums / scales)
//   dct_diagonal      diagonal in the DCT-II basis (Neumann grad of a multiple of x, sums / scales)
//   grad_only         every path to the variable goes through grad (null space ⊇ constants)
//   has_offset        the expression is affine with a non-zero constant part
//   data_free         built from the variable and grad (along x and y) alone: two such operators
//                     of equal structure are equal, whatever the data (merge_quadratics needs it)
// Numbers (‖K‖ bounds, min |d|) depend on data: each card computes them from a node's data
// (proxgen/catalogue/formula.hpp).
#pragma once

namespace proxgen::catalogue {

struct LinearFacts {
    bool identity = false;
    bool scalar_identity = false;
    bool diagonal = false;
    bool gram_diagonal = false;
    bool fft_diagonal = false;
    bool dct_diagonal = false;
    bool grad_only = false;
    bool has_offset = false;
    bool data_free = false;
};

/// An operator applied to one operand keeps the operand's offset and grad-only-ness and is none of
/// the special kinds unless it says so.
constexpr LinearFacts unary_facts(const LinearFacts& arg) {
    LinearFacts f;
    f.has_offset = arg.has_offset;
    f.grad_only = arg.grad_only;
    return f;
}

/// An operator the spectral solvers do not know, with Gram-diagonality given.
constexpr LinearFacts moving_facts(const LinearFacts& arg, bool gram_diagonal) {
    LinearFacts f = unary_facts(arg);
    f.gram_diagonal = gram_diagonal;
    return f;
}

/// What a penalty is, for the planner.
struct PenaltyFacts {
    bool indicator = false;       ///< a constraint (0 or +inf)
    bool quadratic = false;       ///< the x-update can absorb it in closed form (‖·‖²)
    bool separable = true;        ///< f(w ⊙ v) has a per-element prox for any w (absorb_weights)
    bool interval = false;        ///< a per-pixel interval the closed-form Ω prox handles (nonneg)
    bool rewritable = true;       ///< the rewrite rules may touch its argument (diff_fn's carries the
                                  ///< user's function: left alone)
    double strong_convexity = 0;  ///< modulus of f
    /// f is finite at every argument (no constraint, no domain): a problem of such terms alone has
    /// feasible points, so its stalled residuals never mean infeasible. False where unknown.
    bool finite_everywhere = false;
};

/// A term weight · f(β · w ⊙ K x + c): its penalty, its operator K and whether w is set.
struct TermFacts {
    PenaltyFacts penalty;
    LinearFacts op;
    bool weighted = false;
};

/// What the root of a term's argument is, for the rewrite rules (plan/rules/).
enum class Root { other, offset, scale, mul_elemwise };

}  // namespace proxgen::catalogue
