// What the planner knows about a term, as plain constexpr values: the facts of its linear
// operator (LinearFacts), of its penalty (PenaltyFacts) and whether it carries an elementwise
// weight (TermFacts). Every operator's facts come from ONE combinator here (conv_facts(child,
// boundary), ...), evaluated by the typed front end at compile time (traits/linear_traits.hpp)
// and by the run-time planner on IR nodes (plan/planner.hpp, linear_facts(ir::Node)); the planning
// rules (plan/decide.hpp, plan/rules/) read nothing else. So a typed problem and the same problem
// built at run time get the same plan by construction.
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
// Numbers (‖K‖ bounds, min |d|) depend on data and live with the IR (plan/planner.hpp).
#pragma once

#include "proxgen/ir/kinds.hpp"

namespace proxgen::plan {

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

// ---- one combinator per operator ------------------------------------------------------------

constexpr LinearFacts variable_facts() {
    return {.identity = true, .scalar_identity = true, .diagonal = true, .gram_diagonal = true,
            .fft_diagonal = true, .dct_diagonal = true, .grad_only = false, .has_offset = false, .data_free = true};
}

/// An operator applied to one operand keeps the operand's offset and grad-only-ness and is none of
/// the special kinds unless it says so.
constexpr LinearFacts unary_facts(const LinearFacts& arg) {
    LinearFacts f;
    f.has_offset = arg.has_offset;
    f.grad_only = arg.grad_only;
    return f;
}

/// Only the circular convolution is diagonal in the DFT; zero and replicate boundaries break it,
/// and no convolution commutes with the DCT in general.
constexpr LinearFacts conv_facts(const LinearFacts& arg, ir::ConvBoundary boundary) {
    LinearFacts f = unary_facts(arg);
    f.fft_diagonal = boundary == ir::ConvBoundary::circular && arg.fft_diagonal;
    return f;
}

/// The spectral solvers know grad along x and y only (`xy`): periodic is DFT-diagonal on a
/// DFT-diagonal operand, Neumann DCT-diagonal on a multiple of the variable.
constexpr LinearFacts grad_facts(const LinearFacts& arg, bool periodic, bool xy) {
    LinearFacts f = unary_facts(arg);
    f.fft_diagonal = xy && periodic && arg.fft_diagonal;
    f.dct_diagonal = xy && !periodic && arg.scalar_identity;
    f.grad_only = true;
    f.data_free = xy && arg.data_free;
    return f;
}

constexpr LinearFacts mul_elemwise_facts(const LinearFacts& arg) {
    LinearFacts f = unary_facts(arg);
    f.diagonal = arg.diagonal;
    f.gram_diagonal = arg.diagonal;
    return f;
}

constexpr LinearFacts scale_facts(const LinearFacts& arg) {
    LinearFacts f = unary_facts(arg);
    f.scalar_identity = arg.scalar_identity;
    f.diagonal = arg.diagonal;
    f.gram_diagonal = arg.gram_diagonal;
    f.fft_diagonal = arg.fft_diagonal;
    f.dct_diagonal = arg.dct_diagonal;
    return f;
}

constexpr LinearFacts sum_facts(const LinearFacts& a, const LinearFacts& b) {
    LinearFacts f;
    f.scalar_identity = a.scalar_identity && b.scalar_identity;
    f.diagonal = a.diagonal && b.diagonal;
    f.gram_diagonal = f.diagonal;
    f.fft_diagonal = a.fft_diagonal && b.fft_diagonal;
    f.dct_diagonal = a.dct_diagonal && b.dct_diagonal;
    f.grad_only = a.grad_only && b.grad_only;
    f.has_offset = a.has_offset || b.has_offset;
    return f;
}

/// e ± b: the linear part is e's.
constexpr LinearFacts offset_facts(const LinearFacts& arg) {
    LinearFacts f = arg;
    f.identity = false;
    f.data_free = false;
    f.has_offset = true;
    return f;
}

/// An operator the spectral solvers do not know, with Gram-diagonality given.
constexpr LinearFacts moving_facts(const LinearFacts& arg, bool gram_diagonal) {
    LinearFacts f = unary_facts(arg);
    f.gram_diagonal = gram_diagonal;
    return f;
}

/// SᵀS is a 0/1 mask: Gram-diagonal when the operand is diagonal.
constexpr LinearFacts subsample_facts(const LinearFacts& arg) { return moving_facts(arg, arg.diagonal); }
/// (C A)ᵀ(C A) = Aᵀ (0/1 mask) A: diagonal when A is.
constexpr LinearFacts crop_facts(const LinearFacts& arg) { return moving_facts(arg, arg.diagonal); }
/// PᵀP = I for a zero padding, a permutation or a reshape: the Gram matrix is the operand's.
constexpr LinearFacts pad_facts(const LinearFacts& arg) { return moving_facts(arg, arg.gram_diagonal); }
constexpr LinearFacts transpose_facts(const LinearFacts& arg) { return moving_facts(arg, arg.gram_diagonal); }
constexpr LinearFacts reshape_facts(const LinearFacts& arg) { return moving_facts(arg, arg.gram_diagonal); }
/// SᵀS = diag(how many output pixels read each input pixel).
constexpr LinearFacts uneven_subsample_facts(const LinearFacts& arg) { return moving_facts(arg, arg.diagonal); }
constexpr LinearFacts warp_facts(const LinearFacts& arg) { return moving_facts(arg, false); }
/// Per-pixel matrices: block-diagonal Gram matrices, not diagonal.
constexpr LinearFacts mul_color_facts(const LinearFacts& arg) { return moving_facts(arg, false); }
constexpr LinearFacts pxwise_matmul_facts(const LinearFacts& arg) { return moving_facts(arg, false); }
/// Nothing is known about a user's operator: the conservative facts (CG x-update for ADMM / HQS).
constexpr LinearFacts user_facts(const LinearFacts& arg) { return moving_facts(arg, false); }

/// [A; B]ᵀ[A; B] = AᵀA + BᵀB.
constexpr LinearFacts concat_facts(const LinearFacts& a, const LinearFacts& b) {
    LinearFacts f;
    f.gram_diagonal = a.gram_diagonal && b.gram_diagonal;
    f.grad_only = a.grad_only && b.grad_only;
    f.has_offset = a.has_offset || b.has_offset;
    return f;
}

// ---- penalties ------------------------------------------------------------------------------

struct PenaltyFacts {
    ir::Penalty kind = ir::Penalty::sum_squares;
    const char* name = "";
    bool indicator = false;       ///< a constraint (0 or +inf)
    bool quadratic = false;       ///< the x-update can absorb it in closed form
    bool separable = true;        ///< f(w ⊙ v) has a per-element prox for any w (absorb_weights)
    bool interval = false;        ///< a per-pixel interval the closed-form Ω prox handles (nonneg)
    bool rewritable = true;       ///< the rewrite rules may touch its argument (diff_fn's carries the
                                  ///< user's function: left alone)
    double strong_convexity = 0;  ///< modulus of f
};

/// The facts of each penalty (the closed-form proxes themselves are lowered in src/lower/prox.cpp).
constexpr PenaltyFacts penalty_facts(ir::Penalty p) {
    using P = ir::Penalty;
    switch (p) {
    case P::sum_squares: return {.kind = p, .name = "sum_squares", .quadratic = true, .strong_convexity = 2.0};  // ∇²‖v‖² = 2I
    case P::norm1: return {.kind = p, .name = "norm1"};
    case P::group_norm1: return {.kind = p, .name = "group_norm1", .separable = false};
    case P::nonneg: return {.kind = p, .name = "nonneg", .indicator = true, .interval = true};
    // a domain (e >= 0) but finite inside it: not an indicator
    case P::poisson: return {.kind = p, .name = "poisson_norm"};
    case P::sum_entries: return {.kind = p, .name = "sum_entries"};
    case P::masked_nonneg: return {.kind = p, .name = "masked_nonneg", .indicator = true};
    case P::box: return {.kind = p, .name = "box", .indicator = true};
    // quadratic only near 0: the x-update cannot absorb it
    case P::huber: return {.kind = p, .name = "huber"};
    case P::patch_nlm: return {.kind = p, .name = "patch_nlm", .separable = false};
    case P::diff_fn: return {.kind = p, .name = "diff_fn", .rewritable = false};
    }
    return {};
}

/// A term weight · f(β · w ⊙ K x + c): its penalty, its operator K and whether w is set.
struct TermFacts {
    PenaltyFacts penalty;
    LinearFacts op;
    bool weighted = false;
};

/// What the root of a term's argument is, for the rewrite rules (plan/rules/).
enum class Root { other, offset, scale, mul_elemwise };

}  // namespace proxgen::plan
