// The per-card tier: a problem's steps run as many small kernels, one per card, instead of the
// fused pipelines compiled for its whole structure. A card's kernel is keyed by the card, its
// structural parameters and its operands' ranks only — not by the expression around it — so the
// kernels of a structure never seen before are those of earlier problems (the kernel cache, in
// memory and on disk) and a new structure's first iterations need no compiler once its cards have
// been seen. Slower per iteration than the fused tier (every node's output is stored and read
// again), the same iterates up to float32 rounding.
//
//  - PerCardOperator: an expression's K x, its constant part and Kᵀ y, node by node: each node runs
//    the kernel of a problem holding that node alone over variables standing for its operands.
//  - PerCardPCRunner (per_card_pc.hpp): the Pock–Chambolle card's runner over those operators,
//    each Ψ term's dual step as the kernel of a problem holding that term alone over a variable
//    standing for its operator's output, and the primal step as the kernel of Ω alone; run, and
//    handed to the fused runner under Tier::automatic, by pock_chambolle.cpp.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "../jit/kernel.hpp"
#include "../lower/lowering.hpp"

#include "proxgen/image.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/solve/options.hpp"
#include "proxgen/solve/result.hpp"

namespace proxgen::detail {

/// One expression of a problem, applied node by node. Every node's kernels are bound once to
/// buffers the operator keeps (its output, what its adjoint passes down): applying it allocates
/// nothing. Not movable (the kernels hold its buffers' addresses); not for two threads at once.
class PerCardOperator {
public:
    /// expr: an expression over p's variables (its variable nodes index p.variables).
    PerCardOperator(const ir::Problem& p, const ir::Node& expr);
    PerCardOperator(const PerCardOperator&) = delete;
    PerCardOperator& operator=(const PerCardOperator&) = delete;

    /// K x: the linear part (constants read as 0) at the variables' values, one image per
    /// variable of p. The result is the operator's own buffer, valid until the next call.
    const Image& linear(const std::vector<Image>& xs);
    /// The constant part (the expression at x = 0); empty when the expression holds no constant.
    const Image& constant() const { return constant_; }
    /// out_j += (Kᵀ y)_j for every variable j the expression reads (out: one image per variable).
    void adjoint_add(const Image& y, std::vector<Image>& out);

    /// The problem holding node n alone, its operands replaced by variables of their shapes (the
    /// problem whose kernels apply n).
    static ir::Problem alone(const ir::Node& n);

private:
    struct Step {
        enum class Kind { variable, constant, card } kind = Kind::card;
        int variable = -1;          // variable: which of the problem's
        bool reads_variable = false;  // its value depends on x (else its linear part is 0)
        Image value;                // card: its output; constant: its image
        Image back;                 // what the adjoint passes down to it (card and variable steps)
        std::vector<int> operands;  // card: the operands' steps (earlier in steps_)
        std::vector<int> shape;
        ir::Problem alone;          // card: the node over its operands' stand-ins
        std::unique_ptr<lower::DataArgs> data;
        jit::Call forward, adjoint;
    };
    int add(const ir::Node& n);
    void bind(Step& s);

    std::vector<Step> steps_;  // operands before the nodes that read them; the expression last
    std::vector<Image> inputs_;  // the variables' values the forward kernels read (shared buffers)
    std::vector<Image> zeros_;   // a 0 image per step whose linear part is 0 (read as an operand)
    Image constant_, zero_out_;
};

/// A stand-in for an operand or an operator's output: variable `index` of this shape.
ir::Node stand_in(int index, const std::vector<int>& shape, std::string name);
/// Term t of p alone, over a variable standing for its expression's output (the problem whose
/// kernels give its dual step and its value): the constant part of the expression (`inner`, may be
/// empty) joins the term's offset, scaled as the prox reads it.
ir::Problem term_alone(const ir::Problem& p, const ir::Term& t, const Image& inner);

/// The objective of p (as objective_ir) in the per-card tier: each term's value by the kernel of
/// the term alone at its operator's output, computed node by node.
class PerCardObjective {
public:
    explicit PerCardObjective(const ir::Problem& p);
    /// f(x); compile_seconds gains the time spent compiling a term's kernel missing from the caches.
    double operator()(const Image& x, double& compile_seconds);

private:
    const ir::Problem& p_;
    std::deque<PerCardOperator> ops_;  // per term, Ω then Ψ
    std::vector<ir::Problem> alone_;
};

/// Why the per-card tier cannot run p's plan ("" when it can).
std::string per_card_unsupported(const ir::Problem& p);

/// Whether a solve of p under tier t runs per card at all (its norm estimates and objective too):
/// Tier::per_card, or Tier::automatic where the per-card tier can run the plan.
inline bool runs_per_card(const ir::Problem& p, Tier t) {
    return t == Tier::per_card || (t == Tier::automatic && per_card_unsupported(p).empty());
}

/// Tests: Tier::automatic switches to the fused tier exactly after this iteration (waiting for its
/// kernels there; never before: not even where they are cached); 0, the default: when they are
/// ready.
void force_tier_switch(int iteration);

}  // namespace proxgen::detail
