// Internal: what the algorithms share — the JIT cache, state buffers, norms, the stopping rule,
// the verbose table. Each algorithm (pock_chambolle.cpp, ladmm.cpp) builds its step pipelines
// once per problem structure and runs its loop in C++.
#pragma once

#include <limits>
#include <functional>
#include <future>
#include <optional>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <Halide.h>

#include "../jit/compile.hpp"
#include "../jit/memory_cache.hpp"
#include "../lower/lowering.hpp"
#include "proxgen/algorithms/loop.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/solve/options.hpp"
#include "proxgen/solve/result.hpp"
#include "proxgen/solve/step_rules.hpp"

namespace proxgen::detail {

using jit::cached_as;

using lower::kernel_for;

/// Builds the Halide pipelines of type P for p once, on the first call (only kernels missing
/// from the caches need them).
template <class P>
class LazyPipelines {
public:
    explicit LazyPipelines(const ir::Problem& p) : p_(p) {}
    P& operator*() {
        if (!pipes_) pipes_ = std::make_unique<P>(p_);
        return *pipes_;
    }
    P* operator->() { return &**this; }
    /// A jit::Source for one of P's pipelines, taking P::arguments().
    std::function<jit::Source()> source(Halide::Pipeline P::*which) {
        return [this, which] { return jit::Source{(**this).*which, (**this).arguments()}; };
    }

private:
    const ir::Problem& p_;
    std::unique_ptr<P> pipes_;
};

double norm2(const Image& a);                     // ‖a‖₂ in float64
double squared_norm2(const Image& a);             // ‖a‖₂² in float64
double norm2_diff(const Image& a, const Image& b);  // ‖a − b‖₂

/// ‖K‖ of one Ψ term estimated on its data: Lanczos on KᵀK with an a-posteriori residual bound,
/// × 1.003 (norm_estimate.cpp); cached per structure and data. `ceiling`: the bound the caller
/// keeps unless the estimate is below it (where it cannot end below, it stops early above it).
double power_iteration_norm(const ir::Problem& p, const ir::Term& t, bool per_card = false,
                            double ceiling = std::numeric_limits<double>::infinity());
/// KᵀK v for one term t of p (built, not compiled), over p's data arguments: one output per
/// variable. The JIT builds it on a problem holding t alone; a generated solver's init on its whole
/// plan (the norm-estimate card, proxgen/algorithms/norm_estimate.hpp, applies it).
struct GramOfTerm {
    lower::Params params;
    lower::StateParams v;
    Halide::Pipeline pipe;
    GramOfTerm(const ir::Problem& p, const ir::Term& t);
    explicit GramOfTerm(const ir::Problem& single) : GramOfTerm(single, single.psi.front()) {}
    /// p's data arguments, then v (per variable).
    std::vector<Halide::Argument> arguments() const;
};
/// ‖[K_1; …; K_n]‖ of all Ψ operators, or of these, estimated the same way.
double stacked_norm_estimate(const ir::Problem& p);
double stacked_norm_estimate(const ir::Problem& p, const std::vector<const ir::Term*>& terms,
                             bool per_card = false, double ceiling = std::numeric_limits<double>::infinity());
/// The Ψ terms (and the Ω terms, with_omega) grouped by the variables they read: two terms share a
/// group when a chain of these terms couples their variables. Σ K_iᵀK_i and the Hessians add up
/// within a group only (block-diagonal over groups), so the stacked operator's norm and the
/// curvature are the largest group's. One variable: one group. Groups in the order of their first
/// variable; the terms in problem order (Ω before Ψ).
std::vector<std::vector<const ir::Term*>> coupled_blocks(const ir::Problem& p, bool with_omega);
struct NormEstimates {
    ir::Problem problem;          ///< with each Ψ and Ω term's norm_bound tightened where estimated
    std::vector<bool> estimated;  ///< per Ψ term: its norm_bound is an estimate (below the bound)
    double stacked = 0;           ///< ‖[K_1; …; K_n]‖ as the step rules use it
    bool stacked_estimated = false;
};
/// Tight norms: each Ψ term's bound, where it is missing or not exact, replaced by the estimate
/// when that is smaller (each Ω term's too, where it has a bound that is not exact); the stacked
/// norm estimated when two or more operators are not multiples of the identity.
NormEstimates estimate_norms(const ir::Problem& p, bool per_card = false);
/// Empties the process's cache of norm estimates (keyed by term and data): the next estimate_norms
/// computes every estimate again (tests compare estimates made different ways).
void forget_norm_estimates();
/// p with estimate_norms's bounds, and psi_norm set.
ir::Problem with_norm_bounds(const ir::Problem& p, bool per_card = false);

/// The head start a new structure's first per-card iteration has under Tier::automatic over the
/// work beside it (compiling the fused kernels, estimating the tight norms): that work waits until
/// the first iteration is made (given()), or a second at most, so that the first iteration has the
/// cores to itself (on 2 cores an LLVM thread beside it doubled it).
class HeadStart {
public:
    HeadStart() : given_(promise_.get_future().share()) {}
    void given() {
        std::call_once(once_, [&] { promise_.set_value(); });
    }
    void wait() const { given_.wait_for(std::chrono::seconds(1)); }

private:
    std::promise<void> promise_;
    std::shared_future<void> given_;
    std::once_flag once_;
};

/// The tight norms of a solve that starts at once on the planner's bounds (Tier::automatic, where
/// the per-card tier starts a new structure: at 512² the estimates took 0.1–0.9 s before the first
/// iteration). They are made on a thread of their own from a copy of the plan, after the head
/// start; the algorithm's loop takes them where they arrive (its steps move by the factors between
/// the two rules: a step change at an iteration boundary, which the methods' convergence allows)
/// and the fused runner that takes over starts from them. A failed estimate's error is raised where
/// they are taken.
class PendingNorms {
public:
    /// Starts estimating the norms of `planned` (per card) once `head` is given; throws
    /// std::system_error where no thread can start.
    PendingNorms(const ir::Problem& planned, const HeadStart& head);
    PendingNorms(const PendingNorms&) = delete;
    PendingNorms& operator=(const PendingNorms&) = delete;
    /// Whether the tight problem is there (never waits; a test's forced iteration decides where set).
    bool ready(int iterations_done);
    /// The plan with its tight norms (with_norm_bounds's): waits for them.
    const ir::Problem& tight();

private:
    std::future<ir::Problem> future_;
    std::optional<ir::Problem> tight_;
};

/// What Tier::automatic's quick start of a new structure shares between the solve and its tiers.
struct QuickStart {
    HeadStart head;
    std::optional<PendingNorms> norms;  ///< where the solve starts on the planner's bounds
    QuickStart() = default;
    QuickStart(const QuickStart&) = delete;
    QuickStart& operator=(const QuickStart&) = delete;
    ~QuickStart() { head.given(); }  // (before norms' thread is joined: it may be waiting for it)
};
/// Whether a solve of p could start on the planner's bounds while its tight norms are estimated:
/// something is estimated (tight norms on, a bound that is not exact, a stacked operator of two or
/// more general terms), every step rule has a bound to start from (each Ψ term's, each gradient
/// step's: a user operator without one is estimated first), and the thread may start another
/// (not under jit::SerialKernels, not within NormsAtTheStart).
bool starts_on_bounds(const ir::Problem& p);
/// p with the planner's bounds only (estimate_norms without estimates), and psi_norm set.
ir::Problem with_planner_bounds(const ir::Problem& p);
/// Tests: the tight norms of a solve started on bounds are taken after exactly this many iterations
/// (0: before the first, as if the solve had waited for them); nullopt, the default: when ready.
void force_tight_norms_after(std::optional<int> iterations);
/// While alive on this thread, solves do not start on bounds (Algorithm::automatic's probes: their
/// rates decide the choice, which must not depend on when an estimate arrived).
class NormsAtTheStart {
public:
    NormsAtTheStart();
    ~NormsAtTheStart();
    NormsAtTheStart(const NormsAtTheStart&) = delete;
    NormsAtTheStart& operator=(const NormsAtTheStart&) = delete;
    static bool active();

private:
    bool previous_;
};

/// Swaps two lists of images element by element. Kernels are bound to the addresses of the
/// images, so double buffers must swap contents, never the vectors holding them.
inline void swap_each(std::vector<Image>& a, std::vector<Image>& b) {
    for (std::size_t i = 0; i < a.size(); ++i) std::swap(a[i], b[i]);
}

/// Initial x: opt.x0 (checked), the warm result's x, or zeros.
Image initial_x(const ir::Problem& p, const Options& opt, const Result* warm);
/// The adapted step sizes of a warm start made by the same algorithm on the same structure
/// (n of them), else nullptr: the continuation then restarts from the default steps.
const std::vector<double>* warm_steps(const ir::Problem& p, const Result* warm, std::size_t n);
/// Shapes of the Ψ terms' outputs, one per term.
std::vector<std::vector<int>> psi_shapes(const ir::Problem& p);
/// ‖K‖ bound of the stacked Ψ operators: p.psi_norm when set, else the largest coupled_blocks group's √Σ‖K_i‖².
double stacked_norm_bound(const ir::Problem& p);
/// Number of elements of all Ψ outputs (m) and of x (n), for the √dim·ε_abs tolerances.
std::size_t psi_elements(const ir::Problem& p);

/// The x-update of this plan goes through a transform (fft / dct).
inline bool spectral(const ir::Problem& p) { return plan::spectral(p.x_update); }

class PerCardObjective;

/// Shared bookkeeping of the loop: timing, history, stopping, callback, verbose table.
class Monitor {
public:
    Monitor(const ir::Problem& p, const Options& opt, Result& r);
    bool should_check(int it) const;
    /// Records a measurement; returns true when the tolerances are met. Throws proxgen::Error on
    /// NaN/Inf residuals (divergence), naming the step that produced non-finite values: the x-update
    /// when x has any, else `other_step` (the dual or split step).
    bool record(int it, const algorithms::Residuals& r, const Image& x, const char* other_step);
    /// After a check that did not converge: true when the residuals show the problem is likely
    /// infeasible (Status::likely_infeasible) or, with the objective falling while x grows,
    /// unbounded (Status::unbounded); the solve should stop.
    bool likely_infeasible();
    /// The objective of what a solve stopped at x would return (x projected onto its own
    /// constraints): the tracked one when the last record() was at x, else computed.
    double returned_objective(const Image& x);
    /// HQS's test for an unbounded problem, whose residuals never stall while its growing penalty
    /// shrinks every step: true (Status::unbounded, with a sentence) when the objective falls along
    /// the ray from x in the direction of step (its last steps' sum) at the same rate 100 and 1000
    /// times max(1, ||x||) out, as no convex function bounded below does that far out. (Probes a
    /// number of steps out fooled it where a bounded problem's steps were small: its fall went on
    /// linearly as far as 1000 tiny steps reach.)
    bool unbounded_along(const Image& x, const Image& step, int it);
    /// Reads Options::stop, then calls the user's callback; returns false to stop.
    bool after_iteration(int it);
    void finish(int it, bool converged, bool stopped);
    /// The iterations' clock starts now (after a runner's set-up: kernels loaded or compiled).
    void start_clock() { start_ = std::chrono::steady_clock::now(); }

private:
    /// The objective at x (float64); the JIT compilation it may need is counted as compilation,
    /// not as iteration time.
    double objective_at(const Image& x);
    /// JIT compilation inside the loop counts as compilation, not as iteration time.
    void count_compilation(double seconds);

    const ir::Problem& problem_;
    const Options& opt_;
    Result& result_;
    IterationInfo last_;
    bool track_;
    bool check_constraints_;             // has_unprojected_constraints: converged needs them met
    bool may_be_infeasible_;             // a term has a constraint or a domain (not finite_everywhere)
    bool violated_at_tolerance_ = false;  // the last check met the tolerances, x not the constraints
    bool interrupted_ = false;           // Options::stop ended the loop
    int stalled_checks_ = 0;
    double stall_reference_ = 0;
    const Image* last_x_ = nullptr;  // the x of the last record(), valid until the next iteration
    Image stall_x_;                  // x where the current stall began (unbounded or infeasible?)
    std::chrono::steady_clock::time_point start_;
    /// The per-card tier's objective (Options::tier), built at its first use.
    std::shared_ptr<PerCardObjective> per_card_objective_;
};

/// objective_ir, adding the seconds spent compiling its pipeline (0 when cached) to compile_seconds.
double objective_ir(const ir::Problem& p, const Image& x, double& compile_seconds);
/// objective_ir without checking p's data (ir::validate) and x's shape: for callers that have
/// (a solve validates its problem once, not at every check; the per-card objective its terms).
double objective_checked(const ir::Problem& p, const Image& x, double& compile_seconds);

using lower::StatePipeline;

/// Pipeline that evaluates every term's summand (Ω then Ψ, float64, the card's: its sum is the
/// penalty's value) at an input x.
struct TermValues : StatePipeline {
    explicit TermValues(const ir::Problem& p);
};

/// Pipeline that projects an input x onto the constraints lower::projects_onto names (lower::
/// feasible_state): one output per variable.
struct FeasibleCopy : StatePipeline {
    explicit FeasibleCopy(const ir::Problem& p);
};
/// x projected onto the constraints of p on a variable itself (a new image), or x itself (shared)
/// when p has none; compilation seconds are added to compile_seconds.
Image feasible_copy(const ir::Problem& p, const Image& x, double& compile_seconds);
/// A Ψ constraint a feasible copy cannot reach (an indicator of an operator's output), whose
/// satisfaction Monitor::record checks before it calls a solve converged. (Ω's constraints hold by
/// construction: the x-update's prox satisfies them exactly.)
bool unprojected_constraint(const ir::Term& t);
/// The term's penalty is +inf somewhere (a constraint, a domain, or not known to be finite).
bool restricts_domain(const ir::Term& t);

/// The algorithms' solves (their rows' AlgorithmRow::solve): `quick` non-null under Tier::automatic
/// where the per-card tier can start (p holds the planner's bounds where quick->norms is set).
Result pock_chambolle(const ir::Problem& p, const Options& opt, const Result* warm, QuickStart* quick);
Result linearized_admm(const ir::Problem& p, const Options& opt, const Result* warm, QuickStart* quick);
/// ADMM or HQS (p.algorithm): the quadratic x-update family.
Result quadratic_split(const ir::Problem& p, const Options& opt, const Result* warm, QuickStart* quick);
/// ω: the curvature scale of the problem's smooth terms, Ω or Ψ: 2αβ² max|w|² ‖K‖² for a
/// quadratic, αβ² mean(1/max(b, 1)) ‖K‖² for a Poisson likelihood (its b/e² at e = b), summed
/// over the terms of each coupled_blocks group, the largest group's sum.
double curvature_scale(const ir::Problem& p);
/// L of Condat–Vũ's ∇h: Σ α β² ‖A‖² c over its gradient-step terms (c: 2 max|w|², the card's
/// curvature), 0 for every other plan.
double smooth_lipschitz(const ir::Problem& p);
/// ρ (ADMM, HQS; 1/λ of L-ADMM; σ₀ of PC): opt.rho, else ρ₀ = ω/‖K‖², where ρKᵀK and the smooth
/// part weigh alike (1 when nothing is smooth). Measured at 64²: deblurring is fastest for fixed ρ
/// in [0.03, 0.1] (ω/‖K‖² = 0.22; the former √ω/‖K‖ = 0.47 took twice the iterations), Poisson
/// deblurring for ρ ≈ 3e-4 … 1e-3, where ρ = 1 was 8× slower (docs/algorithms.md).
double admm_rho(const ir::Problem& p, const Options& opt);
/// The same from step_inputs(p, opt) (which holds what it reads).
double admm_rho(const steps::Inputs& in, const Options& opt);
/// "DCT solve (exact: ...)"-style text for describe().
std::string x_update_description(const ir::Problem& p);

/// Default step sizes as the algorithms use them (describe() prints the same numbers).
/// What the step rules (proxgen/solve/step_rules.hpp, shared with generated solvers) read of a
/// planned problem and its options.
steps::Inputs step_inputs(const ir::Problem& p, const Options& opt);
/// The rules' steps for p, with an Error when the requested ones would make the iteration diverge.
/// With opt.precondition and two or more Ψ terms, scales (when given) receives each term's dual
/// step factor (steps::block_preconditioning; otherwise all 1).
steps::PockChambolle pc_steps(const ir::Problem& p, const Options& opt, std::vector<double>* scales = nullptr);
steps::LinearizedADMM ladmm_steps(const ir::Problem& p, const Options& opt);
/// Whether linearized ADMM balances its residuals (λ and μ scaled together; not when either is given).
bool ladmm_balances(const ir::Problem& p, const Options& opt);

}  // namespace proxgen::detail
