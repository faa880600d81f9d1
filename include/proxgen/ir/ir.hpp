// The type-erased problem handed from the front ends to the back end: the structure (which drives
// JIT caching) plus the data (images and scalars) bound at solve time. Both front ends (the typed
// DSL and proxgen/runtime.hpp) write a problem's terms as IR, and ONE planner (plan/planner.hpp)
// rewrites and sorts them into the planned Problem below (Ω and Ψ).
//
// The IR is the floor: it knows kinds (ir/kinds.hpp), slots and shapes, and includes nothing above
// it — no catalogue, no front end, no Halide. What a node's fields mean is its card's business
// (proxgen/catalogue/ops/*.hpp).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proxgen/image.hpp"
#include "proxgen/ir/kinds.hpp"
#include "proxgen/algorithm.hpp"

namespace proxgen::ir {

/// One node of an affine expression.
struct Node {
    const OpKind* op = nullptr;   // what the node is (its card)
    std::vector<int> shape;       // run-time output shape (Halide order)
    std::vector<Node> args;       // operands
    Image image;                  // the node's data image (kernel, weight, constant, ...), if its kind holds one
    float scalar = 1.0f;          // a scale factor, if its kind holds one
    /// Structural integers, part of the signature; their meaning is the card's (conv's boundary,
    /// subsample's steps, grad's boundary and axes, crop's window, ...).
    std::vector<int> ints;
    std::shared_ptr<const Opaque> code;  // a user operator's functions (part of the structure)
    int image_slot = -1;          // index of the pipeline parameter bound to `image`
    int scalar_slot = -1;         // index of the pipeline parameter bound to `scalar`
    /// A variable: which of Problem::variables; -1 for every other node.
    int variable = -1;
    /// A variable: its name; a node holding data: the named input (run-time front end, rt::input /
    /// rt::parameter) its image or scale factor comes from ("": anonymous data). Not structure.
    std::string name;
    /// ‖K‖ of this node alone when it was computed from data the node no longer holds (warp,
    /// uneven_subsample); 0 when the card derives its bound from the node's data.
    double norm_factor = 0;

    int rank() const { return int(shape.size()); }
    bool is_variable() const { return variable >= 0; }
};

/// One unknown of a problem.
struct Variable {
    std::string name;
    std::vector<int> shape;
};

/// weight · f(beta · arg_weight ⊙ expr + offset)   (for penalties that weigh groups, arg_weight
/// weighs groups)
struct Term {
    const PenaltyKind* penalty = nullptr;
    float weight = 1.0f;           // α
    Node expr;                     // what is left of the argument after the rewrite rules
    float beta = 1.0f;             // absorbed scalar
    Image arg_weight;              // absorbed elementwise weight (empty: none)
    Image offset;                  // absorbed constant (empty: none)
    Image data;                    // the penalty's data: poisson counts, a mask (empty: none)
    /// Penalty parameters that are structure (schatten's p, ...): part of the signature.
    std::vector<int> ints;
    double norm_bound = 1.0;       // bound on ‖K‖ of expr's linear part (∞: unknown)
    double constant = 0;           // d: added to the term's value (kept by the merge rule)
    int weight_slot = -1, beta_slot = -1;
    int arg_weight_slot = -1, offset_slot = -1, data_slot = -1;
    /// The named inputs (run-time front end) arg_weight and data come from ("": anonymous).
    std::string arg_weight_name, data_name;
    std::string text;              // human-readable, for describe()/verbose
    std::shared_ptr<const Opaque> code;  // a diff_fn's smooth function (part of the structure)
    /// Forward-mode derivative of the term's data with respect to one named input or parameter
    /// (rt::gradient's planning map), carried along by the rewrite rules; empty unless asked for.
    /// A node's data depends on the value when the node holds it by that name (n.name): an image
    /// pixel by pixel (derivative 1), a scale factor with derivative 1.
    struct Tangent {
        std::string of;                     // the named value
        double weight = 0, beta = 0;        // dα, dβ
        double constant = 0;                // dd along the direction of all ones (an image's)
        Image arg_weight, offset;           // dw, dc per pixel (empty: 0)
    };
    std::optional<Tangent> tangent;
};

struct Problem {
    std::vector<int> variable_shape;  // the state's shape (state_shape: one variable's, or the flat stack's)
    std::vector<Variable> variables;  // every variable, in order of first use (Node::variable indexes it)
    std::vector<Term> omega;       // absorbed into the x-update in closed form
    std::vector<Term> psi;         // split: z_i = K_i x, proxed separately
    double omega_strong_convexity = 0;  // μ such that Ω(x) − μ/2‖x‖² is convex (0: unknown)
    /// ‖[K_1; …; K_n]‖ of the Ψ operators as the step rules use it, set by the solver (estimated on
    /// the data where √Σ‖K_i‖² is loose); 0: not set, √Σ norm_bound² is used.
    double psi_norm = 0;
    Algorithm algorithm = Algorithm::pock_chambolle;  // the plan was made for this algorithm
    /// The x-update; several variables: spectral when a block is (blocks says which), cg when one
    /// solve couples the blocks.
    plan::XUpdate x_update = plan::XUpdate::closed_form_prox;
    /// Several variables: each variable's block of the x-update (empty for one variable). A
    /// spectral block's kernel output is its right-hand side, solved by that block's transform.
    std::vector<plan::XUpdate> blocks;
    int image_slots = 0, scalar_slots = 0;
};

// ---- the state of a problem in several variables ----------------------------------------------
// The algorithms iterate on one image x. With one variable it is the variable itself; with several
// it is one flat image holding the variables one after the other (each in its own layout, x
// fastest), which the host-side loops treat like any image, and which every step kernel reads and
// writes as one buffer per variable (jit::Call::in_state / out_state).

/// Every variable's shape, in Problem::variables order.
std::vector<std::vector<int>> variable_shapes(const Problem& p);
/// The shape of the state x: the variable's for one variable, {Σ elements} for several.
std::vector<int> state_shape(const Problem& p);
/// Variable j's block of the x-update (one variable: the x-update).
plan::XUpdate block_update(const Problem& p, int j);
/// The variables (indices into Problem::variables) an expression reads, ascending.
std::vector<int> variables_of(const Node& n);
/// The variables' values of a flat state (copies), in Problem::variables order; one variable: x.
std::vector<Image> split_state(const Problem& p, const Image& x);
std::vector<Image> split_state(const std::vector<Variable>& variables, const Image& x);
/// The flat state of the variables' values (shapes checked by the caller); one variable: that image.
Image join_state(const Problem& p, const std::vector<Image>& values);

/// The kind's name ("?" for a node without one).
std::string_view name(const Node& n);
std::string_view name(const Term& t);

/// Numbers every image and scalar slot (pre-order, Ω terms then Ψ terms) and returns the counts.
void assign_slots(Problem& p);
/// Visits every node of an expression, or of every term, pre-order.
void for_each_node(const Node& n, const std::function<void(const Node&)>& f);
void for_each_node(const Problem& p, const std::function<void(const Node&)>& f);
/// Structure only (kinds, ranks, structural ints, penalties): equal signatures share compiled
/// pipelines.
std::string signature(const Problem& p);
/// One term's part of it: its penalty, data layout and expression.
std::string signature(const Term& t);
/// Throws proxgen::Error if any image holds NaN/Inf or the term weights are invalid.
void validate(const Problem& p);
/// "group_norm1(grad(x))"-style text of an expression.
std::string to_string(const Node& n);
/// The term's text, with its absorbed parameters.
std::string to_string(const Term& t);
/// The same with the names the run-time front end gave its inputs ("conv(kernel[9x9], x)") where
/// to_string writes letters (k, b, w): a problem as its user built it (rt::Problem::to_string).
std::string to_string_named(const Term& t);
/// For a kind's text (OpKind::text): a data node's label — its input's name inside
/// to_string_named when it has one, else the letter ("k", "b", "w").
std::string data_label(const Node& n, const char* letter);

}  // namespace proxgen::ir
