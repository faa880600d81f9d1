// The kinds of IR nodes and penalties, and conv's boundary: small enums shared by the typed DSL
// (dsl::penalty_kind is ir::Penalty), the planner's facts (plan/facts.hpp) and the IR itself,
// kept apart so that none of them includes the others.
#pragma once

namespace proxgen::ir {

enum class Op {
    variable, constant, conv, grad, mul_elemwise, scale, sum, subsample,
    // the wider catalogue (docs/operators.md)
    crop, pad, transpose, reshape, concat, uneven_subsample, mul_color, pxwise_matmul, warp, user
};
enum class Penalty {
    sum_squares, norm1, group_norm1, nonneg, poisson, sum_entries,
    masked_nonneg, box, huber, patch_nlm, diff_fn
};

/// Boundary of a convolution: circular (ProxImaL conv, FFT-diagonal), zero outside, or the edge
/// pixel replicated (ProxImaL conv_nofft).
enum class ConvBoundary { circular, zero, replicate };

}  // namespace proxgen::ir
