// Linearized ADMM's step pipelines, defined once and used twice: compiled in-process by the JIT
// loop (ladmm.cpp) and emitted ahead of time per target by the generator (src/aot/). Schedules
// follow the active lower::ScheduleScope (the JIT target outside one).
//
// Two shapes of the iteration:
//  - fused (lower::psi_fusable plans with a closed-form x-update, or psi_fusable_state ones in
//    several variables of one shape): one call per iteration, `fused(p, false)`, whose Tuple
//    output over the variable's domain holds x⁺ (per variable), then per Ψ term z⁺'s and u⁺'s
//    components; K x − z + u and x⁺ are recomputed per strip of rows with their halos.
//    `fused(p, true)` also writes the residual partial sums (split_residual_shapes);
//    `iterations(p, n)` runs n of them per call (lower::psi_blockable plans).
//  - separate (every other plan): `x_step` (K, Kᵀ and the Ω prox, or the spectral right-hand
//    side), then the split's `zu_step` and `residual` (split_steps.hpp).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <Halide.h>

#include "split_steps.hpp"

namespace proxgen::detail {

/// The pipelines (built, not compiled); every one takes arguments(), then its outputs.
struct LADMMPipelines {
    lower::Params params;
    lower::StateParams x;  // one ImageParam per variable
    Halide::Param<float> lambda{"lambda"}, mu{"mu"};
    /// The next fused kernel reads u as u_scale·u (residual balancing rescales the scaled dual
    /// when λ changes: folded into the next pass over u instead of a pass of its own).
    Halide::Param<float> u_scale{"u_scale"};
    /// Separate steps: x⁺ per variable from x, z, u.
    Halide::Pipeline x_step;
    std::unique_ptr<SplitPipelines> split;
    /// Spectral x-updates: the data-only part of the right-hand side, once per solve (as PC's).
    Halide::Pipeline constant;
    std::optional<Halide::ImageParam> omega_constant;

    explicit LADMMPipelines(const ir::Problem& p);

    /// One iteration per call: the Tuple {x⁺ per variable, z_i⁺ components, u_i⁺ components per
    /// term} over the fusion domain; with_check: also the partial sums (split_residual_shapes).
    Halide::Pipeline fused(const ir::Problem& p, bool with_check);
    /// n ≥ 2 fused iterations per call with fixed λ, μ: the Tuple of the last one.
    Halide::Pipeline iterations(const ir::Problem& p, int n);

    /// Every input of every pipeline, in one order: data images by slot, scalars by slot, x (per
    /// variable), z_i, z_prev_i, u_i, rho (unused here), lambda, mu, u_scale, and omega_constant
    /// for spectral x-updates (never ahead of time: those plans are Halide-only).
    std::vector<Halide::Argument> arguments() const;
    Halide::Pipeline zu_step() const { return split->zu_step; }
    Halide::Pipeline residual() const { return split->residual; }

private:
    /// One fused iteration's values: x⁺ per variable (staged), and per Ψ term z⁺ and u⁺ from
    /// K x⁺ + s·u.
    struct Level {
        lower::State x;
        std::vector<lower::Lowered> z, u;
    };
    /// v = x − (μ/λ) Σ K_iᵀ(K_i x − z_i + s·u_i), per variable; with `stage` (one variable), K x − z
    /// + s u is computed per strip (the adjoint reads it at neighbouring pixels) with its components
    /// unrolled.
    lower::State x_arg(lower::Lowerer& L, const lower::State& xin, const std::vector<lower::Lowered>& z,
                       const std::vector<lower::Lowered>& u, Halide::Expr scale, lower::Stages& st, bool stage) const;
    Level level(lower::Lowerer& L, const lower::State& xin, const std::vector<lower::Lowered>& z,
                const std::vector<lower::Lowered>& u, Halide::Expr scale, lower::Stages& st, bool stage_zu,
                bool stage_w = true) const;
    /// The Tuple {x per variable, z_i components, u_i components per term} over the fusion domain.
    static std::vector<Halide::Expr> elements(const ir::Problem& p, const Level& l);
};

}  // namespace proxgen::detail
