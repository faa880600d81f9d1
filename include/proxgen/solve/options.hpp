// Options of pg::solve. Every step size defaults to 0 = "take it from the plan".
#pragma once

#include <atomic>
#include <functional>
#include <limits>
#include <map>

#include "proxgen/image.hpp"
#include "proxgen/algorithm.hpp"

namespace proxgen {

/// Which kernels run a solve's iterations (docs/architecture.md, "Tiers").
enum class Tier {
    /// Pipelines fused for the problem's whole structure: the fastest iterations, compiled before
    /// the first one unless the kernel cache holds them.
    fused,
    /// Each card's own small kernel (an operator's forward and adjoint, a penalty's dual step, Ω's
    /// step), shared by every structure that holds the card: no compiler for a new structure once
    /// its cards have been seen, slower iterations, the same iterates up to float32 rounding.
    /// Every algorithm, with every x-update but the pixel-block solve of variables coupled per
    /// pixel (an error naming it).
    per_card,
    /// The per-card tier at once while the fused kernels compile on a thread of their own; the
    /// fused runner takes over the state (x, and the x before it or the split z and u; the duals,
    /// the steps and their balancing, the iteration count, the history) when they are ready, and
    /// from the start where the kernel cache holds them. Where the step sizes need norms still to
    /// be estimated on the data, the run starts on the planner's bounds and takes the estimates'
    /// steps when they arrive, on a thread of their own (the iterates then depend on timing). A
    /// solve that ends first waits for the compilation (whose kernels the next solve of the
    /// structure then finds): for short solves of new structures, Tier::per_card. Plans the
    /// per-card tier cannot run: the fused tier.
    automatic,
};

/// What a callback sees after each iteration. Residual fields are NaN on iterations where
/// residuals were not measured (see Options::check_every).
struct IterationInfo {
    int iteration = 0;
    double primal_residual = std::numeric_limits<double>::quiet_NaN();
    double dual_residual = std::numeric_limits<double>::quiet_NaN();
    double eps_primal = std::numeric_limits<double>::quiet_NaN();
    double eps_dual = std::numeric_limits<double>::quiet_NaN();
    double objective = std::numeric_limits<double>::quiet_NaN();  ///< when tracked
};

struct Options {
    /// The algorithm pg::solve and rt::solve(problem, ...) plan the problem for. Once a problem is
    /// planned the plan carries its algorithm, and that one runs: rt::solve(rt::Plan, ...) does not
    /// read this field.
    Algorithm algorithm = Algorithm::pock_chambolle;
    int max_iters = 500;
    /// Stop when both residuals fall below √dim·eps_abs + eps_rel·scale. Both 0: run max_iters.
    double eps_abs = 1e-4, eps_rel = 1e-4;
    /// Residuals (and the objective, when tracked) are measured every check_every iterations
    /// and at the last one.
    int check_every = 10;
    /// Pock–Chambolle and linearized ADMM: iterations fused into one kernel call between residual
    /// checks (temporal blocking). 0: automatic (today 1: the blocked kernels do not yet beat one
    /// fused step per call); n ≥ 1 forces n. The iterates are the same (up to float32 rounding) for every choice.
    int iterations_per_call = 0;
    bool verbose = false;          ///< print the plan and an iteration table to stdout
    bool track_objective = false;  ///< record the objective at every check (verbose implies it)

    // Pock–Chambolle: τ σ ‖K‖² ≤ 1. Defaults: τ = σ = 1/‖K‖ adapted by residual balancing
    // (Goldstein et al. 2015, τσ kept), or with a strongly convex Ω (modulus γ) the accelerated
    // rule of Chambolle & Pock 2011 (Alg. 2) from τ₀ = 5/γ. Given τ or σ: fixed steps.
    double tau = 0, sigma = 0;
    bool accelerate = true;
    /// Pock–Chambolle: block-diagonal preconditioning (Pock & Chambolle 2011, α = 1, per Ψ term):
    /// term i's dual step is σ·max_j‖K_j‖/‖K_i‖ (proxgen/solve/step_rules.hpp). Off by default.
    bool precondition = false;

    // Linearized ADMM: μ ≤ λ/‖K‖². Defaults: λ = 1/‖K‖, μ = λ/‖K‖², both rescaled by residual
    // balancing when adaptive_rho (λ plays 1/ρ). Given λ or μ: fixed steps.
    double lambda = 0, mu = 0;

    // ADMM and HQS: the penalty ρ (0: from the problem's scale, see docs/algorithms.md).
    double rho = 0;
    /// ADMM, L-ADMM: residual balancing of ρ (Boyd et al. 2011, §3.4.1); Pock–Chambolle: of τ/σ
    /// (automatic steps without acceleration). false: the initial steps stay fixed.
    bool adaptive_rho = true;
    double hqs_growth = 1.5;      ///< HQS: ρ ← ρ·growth every hqs_every iterations ...
    int hqs_every = 20;
    double hqs_max_ratio = 1e5;   ///< ... up to ρ₀·max_ratio; HQS stops only once there
    double cg_tol = 1e-3;         ///< CG x-update: residual reduction from the warm start
    int cg_max_iters = 50;

    /// Initial x (warm start); empty: start from 0. Must have the variable's shape; for a problem
    /// in several variables, the flat stack of them all (the variables one after another in their
    /// order, each x-fastest: what Result::x holds), or use x0_by_name.
    Image x0;
    /// Initial value of variables by name (problems built at run time, any number of variables):
    /// each in its variable's shape; a variable not named starts at 0. Not together with x0.
    std::map<std::string, Image> x0_by_name;
    /// Called after every iteration, on the thread that runs the iterations; return false to stop
    /// early. Under Algorithm::automatic: from the first iteration after the probes, on the chosen
    /// candidate's own thread (its run began as a probe there).
    std::function<bool(const IterationInfo&)> callback;
    /// A flag another thread (or a signal handler: a lock-free atomic) sets to stop the solve after
    /// its current iteration, Status::interrupted; x is the iterate reached. Read without a lock, on
    /// whichever threads run iterations, so it stops what a callback cannot reach: Algorithm::
    /// automatic's probes, every member of rt::solve_batch (those not started yet start no more),
    /// while members still run side by side. Must outlive the solve.
    const std::atomic<bool>* stop = nullptr;
    /// The kernels that run the iterations (Tier).
    Tier tier = Tier::fused;
};

/// Throws proxgen::Error naming the first option out of its range ("Options: cg_max_iters must be
/// an integer from 1 to 2147483647, got 0") or a non-finite x0, before anything is compiled. Every
/// solve calls it; the ranges and sentences are proxgen/check/rules.hpp's, which the command line,
/// Python and the generated solvers apply too.
void check_options(const Options& opt);

}  // namespace proxgen
