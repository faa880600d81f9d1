// The sentences of ProxGen's compile-time errors, in one place. The typed DSL gives them as
// static_assert messages (string literals: hence macros); the run-time front end
// (proxgen/runtime.hpp) throws the same sentence as a proxgen::Error when it finds the same mistake
// while building a node. Tests match them from here (failtests match their text).
//
// Run-time-only errors (sizes, data) are written once, in the cards (proxgen/catalogue/) and proxgen/check/rules.hpp.
#pragma once

// ---- variables and expressions ----
#define PROXGEN_MSG_VARIABLE_RANK "a variable is 2-D (width, height) or 3-D (width, height, channels)"
#define PROXGEN_MSG_SUM_SAME_RANK                                                                     \
    "the operands of + and - must have the same rank (e.g. x + grad(x) mixes an image with a stack of " \
    "images)"
#define PROXGEN_MSG_CONV_BOUNDARY "conv's boundary is pg::circular, pg::zero_boundary or pg::replicate"
#define PROXGEN_MSG_GRAD_BOUNDARY "grad's boundary is pg::neumann or pg::periodic"
#define PROXGEN_MSG_GRAD_MAX_RANK "grad adds an axis, and the result would exceed ProxGen's maximum rank of 4"
#define PROXGEN_MSG_GRAD_AXES \
    "grad's axes must be distinct axes of its operand (0 = x, 1 = y, 2 = the third axis)"
#define PROXGEN_MSG_RESHAPE_RANK "reshape's rank must be between 1 and 4"
#define PROXGEN_MSG_MERGE_LAST_AXES_RANK "merge_last_axes needs at least three axes (e.g. grad of a colour image)"
#define PROXGEN_MSG_CONCAT_SAME_RANK "concat, vstack and hstack join operands of the same rank"
#define PROXGEN_MSG_MUL_COLOR_RANK "mul_color transforms the channels of a W x H x 3 colour image (rank 3)"
#define PROXGEN_MSG_PXWISE_MATMUL_RANK \
    "pxwise_matmul multiplies the channel vector of a W x H x N expression (rank 3)"

// ---- penalties ----
/// "<penalty> takes a linear or affine expression of a variable" (penalty a string literal).
#define PROXGEN_MSG_TAKES_EXPRESSION(penalty) penalty " takes a linear or affine expression of a variable"
#define PROXGEN_MSG_WEIGHTED_TAKES_EXPRESSION \
    "weighted penalties take a linear or affine expression of a variable"
#define PROXGEN_MSG_GROUP_NORM1_NEEDS_GROUP_AXIS                                                    \
    "group_norm1 groups over the last axis, so its argument needs a group axis (rank >= 3), e.g. " \
    "group_norm1(grad(x))"
#define PROXGEN_MSG_WEIGHTED_GROUP_NORM1_NEEDS_GROUP_AXIS \
    "weighted_group_norm1 groups over the last axis, so its argument needs a group axis"
#define PROXGEN_MSG_PATCH_NLM_RANK "patch_nlm denoises an image: a W x H or W x H x C expression"

// ---- problems ----
#define PROXGEN_MSG_SUM_OF_PENALTIES                                                            \
    "a problem is a sum of penalties: wrap the expression in a penalty such as sum_squares(...) " \
    "before adding it"
#define PROXGEN_MSG_SOLVE_TAKES_PROBLEM \
    "pg::solve takes a problem: a penalty such as sum_squares(x - b) or a sum of penalties"
#define PROXGEN_MSG_NO_TERMS "a problem needs at least one penalty term"
#define PROXGEN_MSG_NO_VARIABLE "this problem has no variable: every term is a constant"
#define PROXGEN_MSG_SINGULAR_X_UPDATE                                                                 \
    "ADMM and HQS solve the x-update as a linear system, which is singular when every term applies " \
    "grad (constant images are in its null space): add a term such as sum_squares(x - b) or use "    \
    "pock_chambolle / ladmm"
