// The three step pipelines of Pock–Chambolle (dual step, primal step, residuals), defined once and
// used twice: compiled in-process by the JIT loop (pock_chambolle.cpp) and emitted ahead of time
// per target by the generator (src/aot/). Schedules come from lower::schedule_output, which follows
// the active lower::ScheduleScope (the JIT target outside one).
#pragma once

#include <vector>

#include <Halide.h>

#include "../lower/lowering.hpp"
#include "proxgen/ir/ir.hpp"

namespace proxgen::detail {

struct PCPipelines {
    lower::Params params;
    Halide::ImageParam x, x_prev, x_prev2;
    std::vector<Halide::ImageParam> y, y_prev;
    Halide::Param<float> sigma{"sigma"}, tau{"tau"}, theta{"theta"};
    Halide::Param<float> res_sigma{"res_sigma"}, res_tau{"res_tau"}, res_theta{"res_theta"};
    /// dual: y_next_i per Ψ term (undefined when Ψ is empty); primal: x_next;
    /// residual: primal residual, Kᵀy, then (dual residual_i, K_i x) per Ψ term.
    Halide::Pipeline dual, primal, residual;

    /// Builds (does not compile) the pipelines.
    explicit PCPipelines(const ir::Problem& p);

    /// Every input of every pipeline, in one fixed order shared by the three: data images by slot,
    /// scalars by slot, x, x_prev, x_prev2, y_i, y_prev_i, sigma, tau, theta, res_sigma, res_tau,
    /// res_theta. Ahead-of-time functions take these, then their outputs.
    std::vector<Halide::Argument> arguments() const;

    /// n ≥ 2 iterations (dual then primal step, n times) in one pipeline with fixed steps σ, τ, θ
    /// (the non-accelerated rule), each step's outputs computed at the root. Outputs x_n, x_{n−1},
    /// x_{n−2}, then y_n and y_{n−1} per Ψ term: the state the residual pipeline reads.
    Halide::Pipeline iterations(const ir::Problem& p, int n);

private:
    std::vector<Halide::Func> dual_step(lower::Lowerer& L, const lower::Lowered& x, const lower::Lowered& x_prev,
                                        const std::vector<lower::Lowered>& y);
    Halide::Func primal_step(lower::Lowerer& L, const lower::Lowered& x, const std::vector<lower::Lowered>& y);
};

}  // namespace proxgen::detail
