// Internal interface of the Halide back end: IR nodes → Funcs (forward, adjoint, prox) and the
// hand schedule. Everything here is type-erased; the library compiles it once.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Halide.h>

#include "proxgen/ir/ir.hpp"
#include "../jit/compile.hpp"
#include "../jit/kernel.hpp"
#include "../jit/memory_cache.hpp"

namespace proxgen::lower {

/// The pure Vars, by axis: x (column), y (row), c (channel), k (stacked axis).
const std::vector<Halide::Var>& axes();
/// The first `rank` axes, as Exprs for calls.
std::vector<Halide::Expr> args(int rank);
std::vector<Halide::Var> vars(int rank);

/// Pipeline parameters standing for the problem's data, one per IR slot, shared by every pipeline
/// of a solver: image slot i is the input "data<i>", scalar slot i the input "scalar<i>". They are
/// never set: each call binds its own values (DataArgs), so compiled kernels are shared safely.
struct Params {
    std::vector<Halide::ImageParam> images;
    std::vector<Halide::Param<float>> scalars;
    explicit Params(const ir::Problem& p);
    /// Every image and scalar parameter, in slot order (the inputs a kernel takes first).
    std::vector<Halide::Argument> arguments() const;
};

/// The kernel playing `role` ("pc.dual", "apply.linear", …) for problem p's structure: loaded from
/// the disk cache or compiled by make() (never stored on disk when p embeds process-local code:
/// user operators, diff_fn). make() runs under the Halide compiler lock.
jit::KernelPtr kernel_for(const ir::Problem& p, const std::string& role, const std::function<jit::Source()>& make);

/// Code a kernel key cannot name: user operators' and diff_fn's Halide definitions live in this
/// process, so kernels holding them are never stored on disk.
bool embeds_process_local_code(const ir::Problem& p);

/// The kernel under `key` from the process's memory cache, else kernel_for's disk cache, else
/// compiled by make() (on disk only without process-local code).
jit::KernelPtr cached_kernel(const std::string& key, bool process_local_code, const std::function<jit::Source()>& make);

/// cached_kernel of a pipeline class P (built as P(p, extra...), holding `pipeline` and
/// `arguments()`) playing `role` for p's structure.
template <class P, class... Extra>
jit::KernelPtr cached_kernel(const ir::Problem& p, const std::string& role, Extra... extra) {
    return cached_kernel(role + ":" + ir::signature(p), embeds_process_local_code(p), [&] {
        P pipes(p, extra...);
        return jit::Source{pipes.pipeline, pipes.arguments()};
    });
}

/// The kernels of term_forward (K x, with_offset: K x + c) and term_adjoint (Kᵀy) of p's one Ψ
/// term (proxgen/lower/evaluate.hpp), to bind once and run many times: inputs p's data, the state
/// "x" (one buffer per variable, jit::state_name; the adjoint reads only its extents) and the
/// adjoint's "y"; outputs K x, or Kᵀy per variable.
jit::KernelPtr term_forward_kernel(const ir::Problem& p, bool with_offset);
jit::KernelPtr term_adjoint_kernel(const ir::Problem& p);

/// A (structurally identical) problem's data for one solve: what each Params slot is bound to.
struct DataArgs {
    std::vector<Image> images;   // by image slot (handles sharing the problem's storage)
    std::vector<float> scalars;  // by scalar slot
    explicit DataArgs(const ir::Problem& p);
    /// Binds every "data<i>" / "scalar<i>" input the kernel takes.
    void bind(jit::Call& c) const;
};

/// Rows per parallel strip of the hand CPU schedule (and of square_sums' partial sums).
inline constexpr int kStripRows = 16;

/// A Func with its extents (Exprs: sizes are run-time).
struct Lowered {
    Halide::Func f;
    std::vector<Halide::Expr> extents;
    bool is_zero = false;  // known to be 0 everywhere: lets sums and operators skip work
    bool is_input = false; // reads a buffer: random access costs one load (no recomputation)
    /// computed per strip of rows by the caller's schedule (a staged Func): random access near the
    /// strip costs one load, so operators read it in place instead of staging a copy
    bool staged = false;
    int rank() const { return int(extents.size()); }
};

/// Funcs a pipeline output should compute per strip of rows instead of inline (reused values:
/// padded inputs of convolutions, operands of adjoints, group norms), and Funcs it should compute
/// whole before the output (`roots`): operands read through a wrap-around boundary, whose every
/// strip needs rows from the other end of the image, so per-strip computing would redo them all.
/// A staged Func that a root uses is computed per strip of that root instead.
struct Stages {
    std::vector<Halide::Func> funcs;
    std::vector<Halide::Func> roots;
    /// scatters (always roots too): an update `f(index(r)) += …` over the RDom whose outermost
    /// variable is given; run in parallel over it with atomic adds.
    std::vector<std::pair<Halide::Func, Halide::RVar>> scatters;
    /// staged Funcs whose last axis has this static extent: computed with it unrolled inside the
    /// vector loop (every component of a pixel in one pass), by Func name
    std::map<std::string, int> unrolled_last;
    Halide::Func add(Halide::Func f, int unrolled_last_extent = 0) {
        funcs.push_back(f);
        if (unrolled_last_extent > 0) unrolled_last[f.name()] = unrolled_last_extent;
        return f;
    }
    Halide::Func add_root(Halide::Func f) {
        roots.push_back(f);
        return f;
    }
};

enum class Part { linear, offset };

/// A term's penalty in the generalised prox form α f(a ⊙ z + c), z = K x the split variable:
/// a = β·w (nullopt: 1), c the total constant (nullopt: 0), per-group weights for penalties that
/// weigh groups, the penalty's data (counts, a mask).
struct ProxSpec {
    const ir::Term* term = nullptr;  // the penalty, its structural parameters and code
    Halide::Expr alpha;
    std::optional<Halide::Func> a, c, group_weight, data;
    int rank = 0;        // of the argument
    int group_size = 0;  // > 0: the group axis has this extent for sure (grad's 2): unrolled inline
};

/// The extent of a node's last axis when the structure fixes it (grad stacks 2 components), else 0.
int static_last_extent(const ir::Node& n);

/// A value of every variable of a problem (ir::variable_shapes' order): one Lowered per variable.
using State = std::vector<Lowered>;

/// The parameters standing for one state of a problem (x, x_prev, …): one ImageParam per
/// variable, named jit::state_name(name, j) ("x" alone for one variable), bound by
/// jit::Call::in_state.
struct StateParams {
    std::vector<Halide::ImageParam> vars;
    StateParams(const ir::Problem& p, const std::string& name);
    /// Each variable's input.
    State lowered() const;
    /// Appends every variable's parameter to a kernel's argument list.
    void append_to(std::vector<Halide::Argument>& a) const;
};

/// A pipeline of a problem's data and one input state x: its arguments are the data's, then x's.
struct StatePipeline {
    Params params;
    StateParams x;
    Halide::Pipeline pipeline;
    explicit StatePipeline(const ir::Problem& p) : params(p), x(p, "x") {}
    std::vector<Halide::Argument> arguments() const;
};

/// Lowering of one problem's expressions against its parameters.
class Lowerer {
public:
    /// A problem in one variable of these extents.
    Lowerer(const ir::Problem& p, Params& params, std::vector<Halide::Expr> var_extents)
        : problem_(p), params_(params), var_extents_{std::move(var_extents)} {}
    /// A problem in several variables: each one's extents.
    Lowerer(const ir::Problem& p, Params& params, std::vector<std::vector<Halide::Expr>> var_extents)
        : problem_(p), params_(params), var_extents_(std::move(var_extents)) {}
    /// The extents of a state's variables.
    Lowerer(const ir::Problem& p, Params& params, const State& like);

    /// K x (Part::linear: constants read as 0) or the constant part c (Part::offset: x read as 0);
    /// a variable node reads its own variable's value in xs.
    Lowered forward(const ir::Node& n, const State& xs, Part part, Stages& st);
    /// The same for a problem in one variable.
    Lowered forward(const ir::Node& n, const Lowered& x, Part part, Stages& st);
    /// Kᵀ y per variable: nullopt for a variable the expression does not read.
    std::vector<std::optional<Halide::Func>> adjoint_state(const ir::Node& n, const Lowered& y, Stages& st);
    /// Kᵀ y in the variable's space (a problem in one variable); nullopt when the expression has
    /// no linear part.
    std::optional<Halide::Func> adjoint(const ir::Node& n, const Lowered& y, Stages& st);
    /// The parameters of the problem's data slots.
    const Params& params() const { return params_; }
    /// Extents of a node's output (from the variables' extents).
    std::vector<Halide::Expr> extents(const ir::Node& n);
    /// The extents of the variable (a problem in one variable) or of variable j.
    const std::vector<Halide::Expr>& variable_extents() const;
    const std::vector<Halide::Expr>& variable_extents(int j) const { return var_extents_.at(std::size_t(j)); }
    int variable_count() const { return int(var_extents_.size()); }

    Halide::Expr weight(const ir::Term& t) { return params_.scalars[t.weight_slot]; }
    /// The term's prox parameters; its constant c combines the absorbed offset and the constant
    /// part left inside the expression (xs is only used for its extents).
    ProxSpec prox_spec(const ir::Term& t, const State& xs, Stages& st);
    ProxSpec prox_spec(const ir::Term& t, const Lowered& x, Stages& st) { return prox_spec(t, State{x}, st); }
    /// The argument of f at x: a ⊙ (K x + c_inner) + c (for the objective and residuals).
    Halide::Func term_argument(const ir::Term& t, const State& xs, Stages& st);
    /// The same from the term's prox_spec (for a caller that reads the spec too).
    Halide::Func term_argument(const ir::Term& t, const ProxSpec& f, const State& xs, Stages& st);
    Halide::Func term_argument(const ir::Term& t, const Lowered& x, Stages& st) {
        return term_argument(t, State{x}, st);
    }
    const ir::Problem& problem() const { return problem_; }
    /// When set, the spectral Ω prox's right-hand side reads its constant part (data only) from
    /// this image, computed once per solve by omega_spectral_constant, instead of applying the Ω
    /// operators' adjoints to the data at every iteration.
    std::optional<Halide::ImageParam> omega_constant;

private:
    const ir::Problem& problem_;
    Params& params_;
    std::vector<std::vector<Halide::Expr>> var_extents_;
};

/// sums[j] += scale · back[j] at variable j's axes for each variable back has (Lowerer::
/// adjoint_state's result; an undefined scale: none).
void add_adjoint(std::vector<Halide::Expr>& sums, const std::vector<std::optional<Halide::Func>>& back,
                 const Lowerer& L, const Halide::Expr& scale = Halide::Expr());
/// Σ_i K_iᵀ y_i over terms per variable (0 where no term reads a variable), each of the
/// variable's rank and extents.
std::vector<Halide::Expr> adjoint_sums(Lowerer& L, const std::vector<ir::Term>& terms, const std::vector<Lowered>& y,
                                       Stages& st);

/// A Func reading an ImageParam (or Buffer-backed input) with its run-time extents.
Lowered input(const Halide::ImageParam& p);
Lowered zeros(const std::vector<Halide::Expr>& extents);
Lowered constant_like(float value, const std::vector<Halide::Expr>& extents);

/// argmin_z α f(a ⊙ z + c) + ρ/2 ‖z − v‖², elementwise where a = 0 (then z = v).
Halide::Func prox(const ProxSpec& f, const Lowered& v, Halide::Expr rho, Stages& st);

/// Closed-form x-update of the Ω terms: argmin_x Ω(x) + 1/(2τ) ‖x − v‖². Identity when Ω is empty.
/// Condat–Vũ's gradient-step terms (plan::gradient_terms) are not part of it.
Halide::Func omega_prox(Lowerer& L, const Lowered& v, Halide::Expr tau, Stages& st);
/// The same per variable of a problem in several variables (each Ω term reads one variable: the
/// planner sends coupling terms to Ψ), unscheduled: one Func per variable, "x_next" / "x_next_v<j>".
std::vector<Halide::Func> omega_update_state(Lowerer& L, const State& v, Halide::Expr tau, Stages& st);

/// Σ over `terms` (quadratics α‖a ⊙ A x + c‖², a = β w) of Aᵀ(factor · α a ⊙ (c + a ⊙ A x)) per
/// variable (0 where none reads it): with factor 2 the terms' gradient at x — Condat–Vũ's ∇h —,
/// with −2 its negative, the absorbed quadratics' part of ADMM's CG residual.
std::vector<Halide::Expr> quadratic_gradient(Lowerer& L, const std::vector<const ir::Term*>& terms, const State& x,
                                             float factor, Stages& st);

/// The constraints a feasible copy of x projects onto: an indicator of a variable itself (after the
/// rewrite rules, of β w ⊙ x + c), whose projection is its card's prox, elementwise.
bool projects_onto(const ir::Term& t);
/// Some term of p is such a constraint.
bool has_feasible_copy(const ir::Problem& p);
/// Per variable, x projected onto each such constraint on it in turn, x kept bit for bit where it
/// satisfies one. The indicator cards are intervals per pixel, and clamps to intervals in turn reach
/// their intersection when it is not empty. Unscheduled; "x_feasible" / "x_feasible_v<j>".
std::vector<Halide::Func> feasible_state(Lowerer& L, const State& x, Stages& st);

/// The spectral Ω prox's data-only constant part is computed once per solve (omega_spectral_constant,
/// Lowerer::omega_constant): spectral plans in one variable (in several, each spectral block computes
/// its own in its right-hand side).
inline bool spectral_constant_precomputed(const ir::Problem& p) {
    return plan::spectral(p.x_update) && p.variables.size() <= 1;
}
/// Right-hand side of the spectral Ω prox (PC / L-ADMM with fft / dct x-updates):
/// (I + 2τ Σ α β² AᵀA) x = result; the caller solves it with a spectral::GramSolver.
Halide::Func omega_spectral_rhs(Lowerer& L, const Lowered& v, Halide::Expr tau, Stages& st);
/// g = Σ 2αβ Aᵀ(a ⊙ c) over the Ω quadratics: the right-hand side above is v − τ g (0 when no Ω
/// term has a constant part). An output over the variable's domain, scheduled.
Halide::Func omega_spectral_constant(Lowerer& L);

/// The x-update output of PC / L-ADMM at v with step τ: the closed-form Ω prox, or the right-hand
/// side of the spectral one (finished by SpectralGram::omega_step), scheduled as "x_next".
Halide::Func omega_step(Lowerer& L, const Lowered& v, Halide::Expr tau, Stages& st);
/// The same, unscheduled (for a fused kernel that schedules its own outputs).
Halide::Func omega_update(Lowerer& L, const Lowered& v, Halide::Expr tau, Stages& st);

/// Hand CPU schedule of an output: strips of rows in parallel, vectorized along x, the staged
/// Funcs computed per strip; a last axis of known small extent (grad's 2 components) is unrolled
/// inside the vector loop so one pass computes every component of a pixel. Call once per output
/// Func, before compiling.
void schedule_output(Halide::Func out, int rank, const Stages& st, int unrolled_last_extent = 0);
/// Several outputs of one pipeline (a problem's variables), of these ranks: each in strips as above;
/// st's staged Funcs, which several of them may read, computed whole first. One output: schedule_output.
void schedule_outputs(const std::vector<Halide::Func>& outs, const std::vector<int>& ranks, const Stages& st);
/// The staged Funcs and roots of st placed relative to `out`'s strip loop `strip` (part of
/// schedule_output; also used by schedule_square_sums).
void schedule_stages(Halide::Func out, const Halide::Var& strip, const Stages& st);
/// Schedule of an n-iteration (temporally blocked) output of rank ≥ 2: strips of `rows` rows in
/// parallel; every Func of st (each level's steps) is computed row by row as the strip advances,
/// in a sliding window of the few rows its consumers still need, so a level's values are consumed
/// from cache and only the strip's first rows recompute a halo of the n levels' reach. `fold`: the
/// rows kept per Func (a power of two ≥ the rows its consumers read around the current one).
void schedule_blocked(Halide::Func out, int rank, const Stages& st, int rows, int fold);

/// The operand of a wrap-around read: a computed operand is computed whole first (see Stages).
Halide::Func wrapped_operand(const Lowered& in, Stages& st);
/// A Func of rank r with new values for the first two axes.
Halide::Expr at(const Halide::Func& f, int rank, Halide::Expr x, Halide::Expr y);

// ---- fusion (src/lower/fusion.cpp) ------------------------------------------------------------

/// The domain a fused kernel's one Tuple output covers: the variable's shape, or the shape that
/// every variable of a problem in several variables shares (each variable is one Tuple element);
/// empty when the variables differ in shape.
std::vector<int> fusion_domain(const ir::Problem& p);
/// How a Ψ term's output lies over the fusion domain in a fused kernel (one Tuple output over
/// the domain): 1 when it has the domain's shape, S when it adds a stacked last axis
/// of static extent S (grad's components), 0 when it does not fit (then the steps run as separate
/// pipelines). Structural: the same for every problem of one signature.
int fused_components(const ir::Problem& p, const ir::Term& t);
/// Whether every operator of n and its prox read their operands only near each output pixel (no
/// wrap-around, no scatter, no Func computed over the whole image first), so that a fused kernel
/// computes them per strip of rows with a small halo.
bool local_term(const ir::Term& t);
/// Every Ψ term fits a fused kernel (fused_components > 0, local_term) and Ψ is not empty; one
/// variable; no gradient-step term (Condat–Vũ runs separate steps).
bool psi_fusable(const ir::Problem& p);
/// The same for a problem in several variables of one shape (fusion_domain) whose x-update is
/// closed-form per variable: its fused kernel writes every variable's next value as one more Tuple
/// element (linearized ADMM).
bool psi_fusable_state(const ir::Problem& p);
/// The Ψ terms' outputs can also be chained over n iterations in one call (temporal blocking):
/// psi_fusable, a closed-form Ω x-update, and only pointwise and small-stencil Funcs (their
/// strips slide row by row).
bool psi_blockable(const ir::Problem& p);
/// The Tuple elements of one Ψ term's value v (rank of the variable, or one more) over the
/// variable's domain: v itself, or its components along the last axis.
std::vector<Halide::Expr> components(const Halide::Func& v, int var_rank, int count);

/// Partial sums of squares of several quantities (Funcs with extents; quantities of any shape),
/// reduced inside a pipeline: out(lane, yo, q) = Σ of q's squares over columns ≡ lane (mod the
/// vector width), rows of strip yo (kStripRows rows) and every further axis, accumulated in
/// float64 (stored as float32: each partial is a sum of positive terms, so rounding it once costs
/// 6e-8 relative). total_square_sums adds the partials in C++: a few hundred numbers per strip
/// column, never a whole image.
inline constexpr int kSquareSumLanes = 16;
struct SquareSums {
    Halide::Func out;
    std::vector<Halide::Func> accumulators;  // per quantity: acc(lane, yo)
    std::vector<std::vector<Halide::RDom>> domains;  // per quantity, per update: columns / lanes, rows, further axes
};
SquareSums square_sums(const std::vector<Lowered>& quantities);
/// The same for inner products: quantity q sums first ⊙ second (two Funcs of one shape). A partial
/// may then be negative, so the total's rounding is 6e-8 of the partials' magnitudes rather than of
/// the total itself.
SquareSums product_sums(const std::vector<std::pair<Lowered, Lowered>>& quantities);
/// Schedules the partial sums as their own loop nest: strips in parallel, the quantities' staged
/// Funcs (st) computed per strip.
void schedule_square_sums(const SquareSums& s, const Stages& st);
/// Schedules them inside the strips of `out` (scheduled by schedule_output, rank ≥ 2): the
/// quantities read the Funcs staged per strip of `out` while they are in cache (compute_with).
void schedule_square_sums_with(const SquareSums& s, Halide::Func out);
/// Extents of the partial sums' output for quantities of these (run-time) shapes.
std::vector<int> square_sums_shape(const std::vector<std::vector<int>>& shapes);
/// Σ per quantity of the partials (float64).
std::vector<double> total_square_sums(const Image& partials);

/// The JIT target used for every pipeline (host features).
const Halide::Target& jit_target();

/// How schedule_output schedules: the hand CPU schedule (vector width of the target), the hand GPU
/// schedule (gpu_tile) when the target has a GPU feature, or nothing at all (an autoscheduler
/// schedules the whole pipeline afterwards; outputs only get estimates).
enum class ScheduleKind { cpu, gpu, none };

/// While alive, schedule_output schedules for `target` instead of the JIT target (ahead-of-time
/// generation: one process builds the same pipelines for several targets). Not thread-safe across
/// threads building pipelines at once; scopes nest.
class ScheduleScope {
public:
    ScheduleScope(const Halide::Target& target, bool autoschedule);
    ~ScheduleScope();
    ScheduleScope(const ScheduleScope&) = delete;
    ScheduleScope& operator=(const ScheduleScope&) = delete;

private:
    const ScheduleScope* outer_;
    Halide::Target target_;
    ScheduleKind kind_;
    friend ScheduleKind schedule_kind();
    friend const Halide::Target& schedule_target();
};
/// The target and schedule kind schedule_output uses now (the JIT target and cpu outside a scope).
const Halide::Target& schedule_target();
ScheduleKind schedule_kind();

/// Hand GPU schedule of an output: 16×16 (x, y) thread blocks over the first two axes, the other
/// axes as serial loops inside each thread; staged Funcs computed at the root with the same tiles
/// (their update definitions too) so each is one kernel launch.
void schedule_output_gpu(Halide::Func out, int rank, const Stages& st);
/// The staged Funcs and roots of st, each its own GPU kernel (part of schedule_output_gpu).
void schedule_stages_gpu(const Stages& st);

}  // namespace proxgen::lower
