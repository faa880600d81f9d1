// The type-erased problem handed from the typed front end to the Halide back end. The plan (which
// terms are Ω, which Ψ) has already been decided at compile time; this is just its run-time image:
// the structure (which drives JIT caching) plus the data (images and scalars) bound at solve time.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "proxgen/image.hpp"
#include "proxgen/plan/algorithm.hpp"
#include "proxgen/plan/plan.hpp"

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

/// A user-defined linear operator (proxgen/user_operator.hpp, which needs Halide.h): opaque here so
/// that the public headers stay free of Halide.h.
struct UserOperator;
/// The smooth function of a diff_fn penalty (proxgen/diff_fn.hpp, which needs Halide.h).
struct SmoothFunction;

const char* name(Op op);
const char* name(Penalty p);

/// One node of an affine expression. `image` holds a kernel, weight or constant; `scalar` a scale.
struct Node {
    Op op = Op::variable;
    std::vector<int> shape;       // run-time output shape (Halide order)
    std::vector<Node> args;       // operands
    Image image;                  // conv kernel, mul_elemwise weight, constant image
    float scalar = 1.0f;          // scale factor
    int step_x = 1, step_y = 1;   // subsample steps (structural: part of the signature)
    bool periodic = false;        // grad: periodic boundary (wraps) instead of Neumann (last = 0)
    ConvBoundary boundary = ConvBoundary::circular;  // conv
    /// Structural integers (part of the signature): grad's axes (empty: x and y), crop's x0, y0,
    /// pad's left, top, transpose's permutation, concat's axis, reshape's target shape.
    std::vector<int> ints;
    std::shared_ptr<const UserOperator> user;  // Op::user: the user's forward (and adjoint)
    int image_slot = -1;          // index of the pipeline parameter bound to `image`
    int scalar_slot = -1;         // index of the pipeline parameter bound to `scalar`
};

/// weight · f(beta · arg_weight ⊙ expr + offset)   (for group_norm1 arg_weight weighs groups)
struct Term {
    Penalty penalty = Penalty::sum_squares;
    float weight = 1.0f;           // α
    Node expr;                     // what is left of the argument after the rewrite rules
    float beta = 1.0f;             // absorbed scalar
    Image arg_weight;              // absorbed elementwise weight (empty: none)
    Image offset;                  // absorbed constant (empty: none)
    Image data;                    // poisson counts (empty: none)
    double norm_bound = 1.0;       // bound on ‖K‖ of expr's linear part (from traits; ∞: unknown)
    double constant = 0;           // d: added to the term's value (kept by the merge rule)
    int weight_slot = -1, beta_slot = -1;
    int arg_weight_slot = -1, offset_slot = -1, data_slot = -1;
    std::string text;              // human-readable, for describe()/verbose
    std::shared_ptr<const SmoothFunction> smooth;  // diff_fn: the user's f
};

struct Problem {
    std::vector<int> variable_shape;
    std::vector<Term> omega;       // absorbed into the x-update in closed form
    std::vector<Term> psi;         // split: z_i = K_i x, proxed separately
    double omega_strong_convexity = 0;  // μ such that Ω(x) − μ/2‖x‖² is convex (0: unknown)
    Algorithm algorithm = Algorithm::pock_chambolle;  // the plan was made for this algorithm
    plan::XUpdate x_update = plan::XUpdate::closed_form_prox;
    int image_slots = 0, scalar_slots = 0;
};

/// Numbers every image and scalar slot (pre-order, Ω terms then Ψ terms) and returns the counts.
void assign_slots(Problem& p);
/// Visits every node of every term, pre-order.
void for_each_node(const Problem& p, const std::function<void(const Node&)>& f);
/// Structure only (ops, ranks, steps, penalties): equal signatures share compiled pipelines.
std::string signature(const Problem& p);
/// Throws proxgen::Error if any image holds NaN/Inf or the term weights are invalid.
void validate(const Problem& p);
/// "group_norm1(grad(x))"-style text of an expression.
std::string to_string(const Node& n);
/// The term's text, with its absorbed parameters.
std::string to_string(const Term& t);

}  // namespace proxgen::ir
