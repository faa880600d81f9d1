// The type-erased problem handed from the front ends to the Halide back end: the structure (which
// drives JIT caching) plus the data (images and scalars) bound at solve time. Both front ends (the
// typed DSL and proxgen/runtime.hpp) write a problem's terms as IR, and ONE planner
// (plan/planner.hpp) rewrites and sorts them into the planned Problem below (Ω and Ψ).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "proxgen/image.hpp"
#include "proxgen/ir/kinds.hpp"
#include "proxgen/plan/algorithm.hpp"
#include "proxgen/plan/plan.hpp"

namespace proxgen::ir {

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
    /// Op::variable: which of Problem::variables (0 for the one variable of today's problems).
    int variable = 0;
    /// Op::variable: the variable's name; a node holding data: the named input (run-time front
    /// end, rt::input / rt::parameter) its image or scale factor comes from ("": anonymous data).
    /// Not structure.
    std::string name;
    /// warp, uneven_subsample: ‖K‖ of this node alone, computed when the node was built from data
    /// that the IR no longer holds (0 for the other operators, whose bound the planner derives).
    double norm_factor = 0;
};

/// One unknown of a problem.
struct Variable {
    std::string name;
    std::vector<int> shape;
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
    std::vector<int> variable_shape;  // the shape of the problem's variable (problems in one variable)
    std::vector<Variable> variables;  // every variable, in order of first use (Node::variable indexes it)
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
