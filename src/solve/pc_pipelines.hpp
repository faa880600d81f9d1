// Pock–Chambolle's step pipelines, defined once and used twice: compiled in-process by the JIT
// loop (pock_chambolle.cpp) and emitted ahead of time per target by the generator (src/aot/).
// Schedules come from lower::schedule_output / schedule_blocked, which follow the active
// lower::ScheduleScope (the JIT target outside one).
//
// Two shapes of the iteration:
//  - fused (lower::psi_fusable plans: every Ψ term lies over the variable's pixels and reads only
//    near them): one call per iteration, `step`, whose one Tuple output over the variable's domain
//    holds x⁺ and every Ψ term's y⁺ components, y⁺ recomputed per strip of rows with its halo for
//    the primal step instead of stored and re-read; `check` is the same iteration plus the partial
//    sums of the residual quantities (closed-form x-updates; a spectral x⁺ is finished by the
//    caller, so its residuals come from `residual` after the solve); `iterations(n)` runs n of
//    them per call (lower::psi_blockable plans: temporal blocking).
//  - separate (every other plan): `dual` (y⁺ per Ψ term), then `primal` (x⁺, or the spectral
//    right-hand side), and `residual` (the partial sums, from the state after the step).
#pragma once

#include <optional>
#include <vector>

#include <Halide.h>

#include "../lower/lowering.hpp"
#include "proxgen/ir/ir.hpp"

namespace proxgen::detail {

/// The residual quantities, in the order of the partial sums every check kernel writes:
/// P = (x − x⁺)/τ, Kᵀy⁺, then (D_i = (y_i − y⁺_i)/σ + K_i(x̄ − x⁺), K_i x⁺) per Ψ term; in
/// several variables P and Kᵀy⁺ are one quantity per variable each (P_0, …, P_{n−1}, then Kᵀy⁺'s).
std::vector<std::vector<int>> pc_residual_shapes(const ir::Problem& p);

struct PCPipelines {
    lower::Params params;
    /// One ImageParam per variable each (lower::StateParams).
    lower::StateParams x, x_prev, x_prev2;
    std::vector<Halide::ImageParam> y, y_prev;
    Halide::Param<float> sigma{"sigma"}, tau{"tau"}, theta{"theta"};
    Halide::Param<float> res_sigma{"res_sigma"}, res_tau{"res_tau"}, res_theta{"res_theta"};
    /// Per Ψ term: its dual step is σ·sigma_scale_i (steps::block_preconditioning; 1 without).
    std::vector<Halide::Param<float>> sigma_scale;
    /// The steps of each iteration of iterations(n): level k uses sigma_k, tau_k, theta_k.
    std::vector<Halide::Param<float>> level_sigma, level_tau, level_theta;

    /// Separate steps (every plan): dual: y_next_i per Ψ term (undefined when Ψ is empty);
    /// primal: x_next; residual: the partial sums (pc_residual_shapes) after a step, read from
    /// x = x⁺, x_prev = x, x_prev2 = the x before, y = y⁺, y_prev = y.
    Halide::Pipeline dual, primal, residual;
    /// Fused steps (psi_fusable plans; undefined otherwise): step writes the Tuple {x_next, then
    /// each Ψ term's y_next components (lower::fused_components)} over the variable's domain from
    /// x, x_prev, y; check also writes the partial sums (closed-form x-updates only).
    Halide::Pipeline step, check;
    /// Spectral x-updates only: the data-only part of the right-hand side (lower::
    /// omega_spectral_constant), computed once per solve and read by the steps as omega_constant.
    Halide::Pipeline constant;
    /// Plans with a constraint on a variable itself (lower::has_feasible_copy): x projected onto
    /// those constraints (lower::feasible_state), the solution a generated solver returns.
    Halide::Pipeline feasible;
    std::optional<Halide::ImageParam> omega_constant;

    /// Builds (does not compile) the pipelines.
    explicit PCPipelines(const ir::Problem& p);

    /// Every input of every pipeline, in one fixed order: data images by slot, scalars by slot, x,
    /// x_prev, x_prev2, y_i, y_prev_i, sigma, tau, theta, res_sigma, res_tau, res_theta,
    /// sigma_scale_i, and
    /// omega_constant for spectral x-updates (never ahead of time: those plans are Halide-only).
    /// Ahead-of-time functions take these, then their outputs.
    std::vector<Halide::Argument> arguments() const;

    /// n ≥ 2 fused steps in one call (psi_blockable plans), level k with steps sigma_k, tau_k,
    /// theta_k (k = 1..n): the Tuple {x_n, x_{n−1}, then y_n's components}, the state the next
    /// step reads. Scheduled as overlapping strips of rows, each level computed row by row.
    Halide::Pipeline iterations(const ir::Problem& p, int n);
    /// arguments(), then sigma_k, tau_k, theta_k for k = 1..n (after iterations(p, n)).
    std::vector<Halide::Argument> iteration_arguments() const;

private:
    /// y⁺ of Ψ term i at x̄ from y (unscheduled).
    Halide::Func dual_value(lower::Lowerer& L, std::size_t i, const lower::State& xbar, const lower::Lowered& y,
                            Halide::Expr sigma, lower::Stages& st);
    /// x⁺ (or the spectral right-hand side) per variable from x and the new duals (unscheduled).
    std::vector<Halide::Func> primal_value(lower::Lowerer& L, const lower::State& x,
                                           const std::vector<lower::Lowered>& y, Halide::Expr tau, lower::Stages& st);
    Halide::Pipeline fused(const ir::Problem& p, bool with_check);
};

}  // namespace proxgen::detail
