// Internal: the pieces every algorithm's reverse step is built from (docs/gradients.md).
//
// A reverse step is a few Halide pipelines; each output is a Tuple over one domain (the variable's
// or a Ψ term's), computed by the hand schedule (lower::schedule_output) with its own Stages, whose
// elements are either the adjoint of a state image or a per-element quantity whose destination is
// a step size, a scalar data slot or an image data slot (summed by Stage::Run in C++). Gradients with
// respect to operators' data (a kernel's taps) are reductions over the image: separate outputs
// summed in parallel strips (Reduction).
//
// The derivatives come from the cards: a penalty's prox_vjp (PenaltyLowering::prox_vjp), an
// operator's adjoint (the forward's exact transpose) and its data_vjp.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Halide.h>

#include "../lower/card_lowering.hpp"
#include "../lower/lowering.hpp"
#include "../jit/kernel.hpp"
#include "proxgen/ir/ir.hpp"

namespace proxgen::gradients {

using Halide::Expr;
using Halide::Func;
using lower::Lowered;
using lower::Stages;

/// Which of the planned problem's data slots need gradients.
struct Request {
    std::vector<bool> image, scalar;  // by slot
    bool any() const;
    /// For kernel cache roles: which slots (structure).
    std::string key() const;
    /// A slot inside the expression (a node's data) is requested.
    bool in_tree(const ir::Node& n) const;
};

/// Where a per-element quantity goes.
struct Target {
    enum Kind { step, scalar_slot, image_slot, group_slot } kind;
    int index = 0;  // step index (in the algorithm's step list) or slot
};

/// One Tuple output of a stage: elements computed over one domain in one loop nest.
struct Output {
    Func f;
    std::vector<Expr> elements;
    int rank = 0;
    std::vector<int> shape;  // the domain (run time)
    Stages st;
    /// element i: a named state image ("" for a quantity) or a quantity's target
    std::vector<std::string> image_names;
    std::vector<Target> targets;
    void image(const std::string& name, Expr e) {
        elements.push_back(std::move(e));
        image_names.push_back(name);
        targets.push_back({});
    }
    void quantity(Target t, Expr e) {
        elements.push_back(std::move(e));
        image_names.push_back("");
        targets.push_back(t);
    }
};

/// A sum over the image of contributions to one slot (an operator's data: kernel taps, a scale).
struct Reduction {
    bool scalar = false;           // a scalar slot (no data axes)
    int slot = 0;
    std::vector<int> data_shape;   // the slot image's (empty for a scalar)
    std::vector<int> out_shape;    // the domain summed over
    Func partials;                 // (data axes..., lane, strip)
};

/// A compiled stage: its kernel and what each output element is.
struct Stage {
    jit::KernelPtr kernel;
    std::vector<std::vector<std::string>> image_names;  // per output, per element
    std::vector<std::vector<Target>> targets;
    std::vector<std::vector<int>> shapes;                // per output
    std::vector<Reduction> reductions;                    // outputs after the Tuple outputs
    bool defined() const { return kernel != nullptr; }
};

/// Builds a stage: outputs, then reductions, compiled as one pipeline taking `arguments`.
class StageBuilder {
public:
    std::vector<Output> outputs;
    std::vector<Reduction> reductions;
    /// Schedules and packs everything into a Pipeline.
    Halide::Pipeline pipeline();
    /// Shapes and targets for the runner (call after pipeline()).
    Stage describe(jit::KernelPtr k) const;
};

/// The accumulated gradients with respect to the planned problem's slots and the steps.
struct Accumulator {
    std::vector<std::vector<double>> image;  // by image slot (empty when not requested)
    std::vector<double> scalar;             // by scalar slot
    std::vector<double>* steps = nullptr;   // this iteration's step gradients (may be null)
};

/// Named images and floats a stage binds by name (its inputs, and its state-image outputs).
struct Bindings {
    std::map<std::string, Image*> images;
    std::map<std::string, const float*> floats;
    void image(const std::string& name, Image& img) { images[name] = &img; }
    void image(const std::string& name, const Image& img) { images[name] = const_cast<Image*>(&img); }
    void value(const std::string& name, const float& v) { floats[name] = &v; }
};

/// Binds a kernel's inputs: the problem's data, then every other input by name from b (an
/// unbound one is an internal error naming it).
void bind_inputs(jit::Call& c, const jit::Kernel& k, const Bindings& b, const lower::DataArgs& data);

/// Runs a stage: binds the data, every named input and output, and float (per run: states are
/// passed around); the quantity and reduction outputs are allocated once; after each run the
/// quantities are added to their targets.
class StageRun {
public:
    StageRun() = default;
    explicit StageRun(const Stage& s);
    bool defined() const { return stage_ != nullptr && stage_->defined(); }
    void run(const Bindings& b, const lower::DataArgs& data, Accumulator& acc);
    /// Bytes of the buffers it holds.
    std::size_t bytes() const;

private:
    const Stage* stage_ = nullptr;
    std::vector<std::vector<Image>> quantities_;  // per output, per element (empty for state images)
    std::vector<Image> partials_;
};

/// Runs one kernel with data and bindings (forward steps of the algorithms' own pipelines);
/// outputs are bound in order from `outputs`.
void run_kernel(const jit::KernelPtr& k, const Bindings& b, const lower::DataArgs& data, const std::vector<Image*>& outputs);

// ---- building blocks (src/grad/backward.cpp) ---------------------------------------------------

/// The derivative of the generalised prox z = argmin_z α f(a z + c) + ρ/2‖z − v‖² (lower::prox)
/// for an upstream gradient g of z: gv over v's domain, and per element the parts of ∂/∂α, ∂/∂a,
/// ∂/∂c, ∂/∂ρ (and the card's ∂/∂data, ∂/∂(group weight) as each element's share).
struct ProxVJP {
    Func gv;
    Expr z;  // the prox's value
    Expr dalpha, da, dc, drho;
    std::optional<Expr> ddata, dweight_share;
};
ProxVJP prox_vjp(const lower::ProxSpec& f, const Lowered& v, Expr rho, const Lowered& g, Stages& st);

/// Adds a Ψ or Ω term's prox-parameter gradients (per element, at the term's pure axes) to an
/// output: α, β, the argument weight (or group weight), the offset, the penalty's data; `inner`
/// is the constant part the operator keeps (nullopt: none), c = a·inner + offset.
void add_term_params(Output& out, lower::Lowerer& L, const Request& req, const ir::Term& t, Expr dalpha, Expr da,
                     Expr dc, const std::optional<Expr>& ddata, const std::optional<Expr>& dweight_share,
                     const std::optional<Expr>& inner);

/// The constant part of a term's operator (its K(0)), nullopt when it has none.
std::optional<Lowered> inner_constant(lower::Lowerer& L, const ir::Term& t, const Lowered& x, Stages& st);

/// ⟨g, K(x)⟩'s derivative with respect to every requested data slot inside term expression n,
/// times `coefficient`, added to the reductions (kernels, scales) or as per-element quantities of
/// `out` (elementwise weights, when `out` has n's output domain... else a reduction too).
/// Each call builds its own Funcs: `make_operand` and `make_upstream` return fresh Lowereds.
struct DataTerm {
    Expr coefficient;
    std::function<Lowered(Stages&)> operand;   // x, in the variable's space
    std::function<Lowered(Stages&)> upstream;  // g, in n's output space
};
void add_data_vjp(StageBuilder& b, lower::Lowerer& L, const Request& req, const ir::Node& n,
                  const std::vector<DataTerm>& terms);

/// The Ω terms of a PC / L-ADMM x-update x⁺ = argmin Ω(x) + 1/(2τ)‖x − v‖² (closed form):
/// u = (∂x⁺/∂v)ᵀ gx per pixel (0 where an interval constraint binds), and in `out` the constraint
/// terms' gradients where they bind.
Expr omega_closed_form_u(lower::Lowerer& L, const Lowered& v, const Lowered& gx, Expr tau, Stages& st, Output* out,
                         const Request& req);
/// The Ω quadratics' parameter gradients for an x-update whose optimality reads
/// ∇Ω(x⁺) + (terms without Ω's data) = 0, given u = H⁻¹ gx: −κ ∂_θ⟨u, ∇Ω(x⁺)⟩ per element, with
/// κ = τ for the prox of PC / L-ADMM and 1 for ADMM's x-update. Quadratics only.
void add_omega_params(StageBuilder& b, lower::Lowerer& L, const Request& req, const std::function<Lowered()>& u,
                      const std::function<Lowered()>& x_next, Expr kappa);
/// The Ω quadratics' operator-data gradients (reductions): −2κα[data_vjp(A, u, a r) + data_vjp(A, x⁺, a s)].
void add_omega_data(StageBuilder& b, lower::Lowerer& L, const Request& req, const std::function<Lowered()>& u,
                    const std::function<Lowered()>& x_next, Expr kappa);

/// Whether any requested slot sits inside an Ω or Ψ operator (a reduction stage is needed).
bool wants_operator_data(const ir::Problem& p, const Request& req);

/// An ImageParam read as a Lowered with the given name (the pipelines' inputs).
Lowered in(const Halide::ImageParam& p);

/// Every penalty of the problem has a prox derivative; else an Error naming the term.
void check_differentiable(const ir::Problem& p);

}  // namespace proxgen::gradients
