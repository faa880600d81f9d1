// Internal: the steps every split algorithm with z_i = K_i x shares (ADMM, linearized ADMM, HQS):
//   (z⁺, u⁺) = (prox_{Ψ,ρ}(K x + u), K x + u − z⁺)        one pipeline, a Tuple output per term
//   residual partial sums (split_residual_shapes)         one pipeline, run every check
// and the C++ state around them (double-buffered z and u, the residual sums; the residuals and
// tolerances from them are the algorithm cards', proxgen/algorithms/split.hpp).
#pragma once

#include "proxgen/algorithms/split.hpp"
#include "proxgen/solve/step_rules.hpp"

#include <vector>

#include "engine.hpp"
#include "fused_state.hpp"

namespace proxgen::detail {

/// The residual quantities whose squares every split residual kernel sums (lower::SquareSums), in
/// order: Kᵀ(z − z_prev), Kᵀu, then (K_i x − z_i, K_i x, z_i) per Ψ term; in several variables
/// Kᵀ(z − z_prev) and Kᵀu are one quantity per variable each.
std::vector<std::vector<int>> split_residual_shapes(const ir::Problem& p);

/// ADMM's x-update operator applied to v: G v = Σ_Ω 2α Aᵀ(a² ⊙ A v) + ρ Σ_Ψ KᵀK v (x: the
/// variables' lowered inputs, which the Ω terms' prox specs read), per variable over lower::args of
/// its rank.
std::vector<Halide::Expr> split_gram(lower::Lowerer& L, const ir::Problem& p, const lower::State& x,
                                     const lower::State& v, const Halide::Expr& rho, lower::Stages& st);
/// The same for a problem in one variable.
Halide::Expr split_gram(lower::Lowerer& L, const ir::Problem& p, const lower::Lowered& x, const lower::Lowered& v,
                        const Halide::Expr& rho, lower::Stages& st);
/// Its right-hand side: −Σ_Ω 2α Aᵀ(a ⊙ c) + ρ Σ_Ψ K_iᵀ(z_i − u_i), per variable.
std::vector<Halide::Expr> split_rhs(lower::Lowerer& L, const ir::Problem& p, const lower::State& x,
                                    const std::vector<lower::Lowered>& z, const std::vector<lower::Lowered>& u,
                                    const Halide::Expr& rho, lower::Stages& st);
Halide::Expr split_rhs(lower::Lowerer& L, const ir::Problem& p, const lower::Lowered& x,
                       const std::vector<lower::Lowered>& z, const std::vector<lower::Lowered>& u,
                       const Halide::Expr& rho, lower::Stages& st);

/// Ψ term i's (z, u)-update, the step ADMM, HQS and linearized ADMM share: v = K_i at + scale·u_i
/// (u_i alone where scale is undefined), z⁺ = prox(v) at penalty rho with the prox's data read at
/// `spec_at`, u⁺ = v − z⁺. With `stage`, z⁺ and u⁺ are computed per strip (a fused x-update reads
/// them at neighbouring pixels), by components where the term has more axes than the variable.
struct SplitTerm {
    lower::Lowered v, z, u;
};
SplitTerm split_term(lower::Lowerer& L, const ir::Problem& p, std::size_t i, const lower::State& at,
                     const lower::State& spec_at, const lower::Lowered& u, const Halide::Expr& scale,
                     const Halide::Expr& rho, lower::Stages& st, bool stage);

/// The (z, u)-update's outputs, one Tuple (z_i⁺, u_i⁺) per Ψ term: z_i⁺ = prox(K_i x + u_i),
/// u_i⁺ = K_i x + u_i − z_i⁺, each scheduled as an output.
std::vector<Halide::Func> split_zu_outputs(lower::Lowerer& L, const ir::Problem& p, const lower::State& x,
                                           const std::vector<lower::Lowered>& u, const Halide::Expr& rho);

/// The Ψ term whose split copy z_i is the returned solution, −1 when x is: x's only constraint is
/// split as a term on x itself (one variable), so z_i satisfies it exactly where x may miss it by
/// the primal residual (the objective counts such a miss as infeasible).
int split_solution_term(const ir::Problem& p);

/// Pipelines of the (z, u)-update and the residuals for the Ψ terms of p (built, not compiled).
struct SplitPipelines {
    std::vector<Halide::ImageParam> z, z_prev, u;
    Halide::Param<float> rho{"rho"};
    Halide::Pipeline zu_step, residual;
    /// x is the variables' input parameters, shared with the algorithm's x-update pipeline.
    SplitPipelines(const ir::Problem& p, lower::Lowerer& L, const lower::StateParams& x);
    /// z_i, z_prev_i, u_i (per Ψ term) and rho: the inputs these pipelines add.
    std::vector<Halide::Argument> arguments() const;
};

/// ρ's residual balancing (proxgen/algorithms/split.hpp).
using algorithms::ResidualBalancing;

/// The split variables z_i and scaled duals u_i with their double buffers and residual outputs.
class SplitState {
public:
    SplitState(const ir::Problem& p, const Result* warm, Algorithm a);
    /// Binds z_i, z_prev_i, u_i and rho (the penalty of the last update()/check()) to a kernel's
    /// inputs; the binding follows the state's swaps.
    void bind(jit::Call& c) const;
    /// The (z, u)-update and residual kernels, their inputs bound by the caller (this state's
    /// through bind()); the outputs are bound here.
    /// zu_at_extrapolated: the same (z, u) kernel bound to HQS's extrapolated x̂ instead of x.
    void set_kernels(jit::Call zu_step, jit::Call residual, jit::Call zu_at_extrapolated = {});
    /// (z, u) ← prox step at the x the zu kernel is bound to (x̂ with at_extrapolated), with
    /// penalty ρ; with keep_dual = false (HQS) u stays 0.
    void update(double rho, bool keep_dual, bool at_extrapolated = false);
    /// HQS keeps u = 0, its multiplier is ρ(K x − z), which the (z, u) step leaves in u_next: the
    /// residual kernel reads u there, so that ε_dual's relative part scales with it as ADMM's does
    /// with ρ‖Kᵀu‖ (without it ε_dual is √n ε_abs alone, which ρ‖Kᵀ(z − z_prev)‖ at a large ρ
    /// seldom meets). Call after set_kernels.
    void measure_implicit_dual();
    /// Runs the residual kernel with penalty ρ (its sums then read by totals(); the residuals and
    /// tolerances from them are the cards', algorithms::split_residuals).
    void measure(double rho);
    /// The last residual sums (the residual kernel's or a fused check kernel's, this state's z, u
    /// already advanced past that step), for x's size.
    algorithms::SplitSums totals(const Image& x) const;

    // ---- fused kernels (linearized ADMM): one Tuple output {x, z_i components, u_i components}
    /// Binds the next z_i and u_i (each term's components: lower::fused_components) as outputs
    /// first, first + 1, …; returns the index after them.
    int bind_fused_outputs(jit::Call& c, int first, int var_rank);
    /// After a fused kernel wrote the next z and u: they become the state (z_prev: the previous z);
    /// with keep_dual = false (HQS) u stays, the next u left where the residual kernel reads it.
    void advance_fused(bool keep_dual = true);
    /// Runs a fused kernel (its outputs bound by bind_fused_outputs) with penalty ρ, then
    /// advance_fused(keep_dual).
    void run_fused(jit::Call& c, double rho, bool keep_dual);
    /// The partial sums a check kernel writes (split_residual_shapes).
    Image& sums() { return sums_.partials; }
    /// u ← u · factor (when ρ changes, the scaled dual u = y/ρ must follow).
    void rescale_dual(double factor);
    std::vector<Image> duals() const;
    /// The returned solution: x, or its split copy z_i (split_solution_term).
    const Image& solution(const Image& x) const;
    const std::vector<Image>& z() const { return z_; }

private:
    const ir::Problem& problem_;
    std::vector<std::vector<int>> shapes_;
    std::vector<Image> z_, u_, z_next_, u_next_;
    std::vector<std::vector<Image>> z_views_, u_views_, z_next_views_, u_next_views_;  // fused outputs
    SquareSumsOutput sums_;
    float rho_ = 0;
    jit::Call zu_, residual_, zu_extrapolated_;
};

}  // namespace proxgen::detail
