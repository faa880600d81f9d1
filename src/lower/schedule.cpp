// The hand CPU schedule shared by every step pipeline. Measured on the 2-core AVX-512 VM, TV
// denoise 512² (PC dual step): strips of 16 rows in parallel + 16-wide vectors ran fastest of
// strip heights {4, 8, 16, 32, 64}; staged values per strip stay in L2.
#include "lowering.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "proxgen/error.hpp"

namespace proxgen::lower {

using namespace Halide;

const Target& jit_target() {
    static const Target t = get_jit_target_from_environment();
    return t;
}

namespace {
thread_local const ScheduleScope* current_scope = nullptr;
}

ScheduleScope::ScheduleScope(const Target& target, bool autoschedule)
    : outer_(current_scope), target_(target),
      kind_(autoschedule ? ScheduleKind::none : target.has_gpu_feature() ? ScheduleKind::gpu : ScheduleKind::cpu) {
    current_scope = this;
}

ScheduleScope::~ScheduleScope() { current_scope = outer_; }

const Target& schedule_target() { return current_scope ? current_scope->target_ : jit_target(); }
ScheduleKind schedule_kind() { return current_scope ? current_scope->kind_ : ScheduleKind::cpu; }

// Not measured on a GPU yet (no device was available when it was written): 16×16 blocks are the
// usual starting point for memory-bound stencils; each staged Func becomes its own kernel so that
// no block recomputes a neighbour's halo.
namespace {
template <class S>
void gpu_tiles(S&& stage, int rank) {
    const auto& ax = axes();
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    if (rank >= 2) stage.gpu_tile(ax[0], ax[1], xo, yo, xi, yi, 16, 16, TailStrategy::GuardWithIf);
    else stage.gpu_tile(ax[0], xo, xi, 64, TailStrategy::GuardWithIf);
}
}  // namespace

void schedule_output_gpu(Func out, int rank, const Stages& st) {
    gpu_tiles(out, rank);
    schedule_stages_gpu(st);
}

void schedule_stages_gpu(const Stages& st) {
    auto tile = [](auto&& stage, int r) { gpu_tiles(stage, r); };
    std::vector<Func> staged = st.roots;
    staged.insert(staged.end(), st.funcs.begin(), st.funcs.end());
    for (Func f : staged) {
        f.compute_root();
        tile(f, f.dimensions());
        for (int u = 0; u < f.num_update_definitions(); ++u) {
            Stage s = f.update(u);
            tile(s, f.dimensions());
        }
    }
}

void schedule_output(Func out, int rank, const Stages& st, int unrolled_last_extent) {
    if (schedule_kind() == ScheduleKind::none) return;
    if (schedule_kind() == ScheduleKind::gpu) {
        schedule_output_gpu(out, rank, st);
        return;
    }
    const auto& ax = axes();
    const int vec = schedule_target().natural_vector_size<float>();
    const int strip = kStripRows;
    Var yo("yo"), yi("yi"), xo("xo"), xi("xi");
    if (rank == 1) {  // a flattened expression (reshape): vectors along its only axis
        out.vectorize(ax[0], vec, TailStrategy::GuardWithIf);
        for (const auto* list : {&st.funcs, &st.roots})
            for (Func f : *list) f.compute_root();
        for (auto [f, rv] : st.scatters) f.update().atomic().parallel(rv);
        return;
    }
    const bool unroll = unrolled_last_extent > 0 && rank >= 3;
    out.split(ax[1], yo, yi, strip, TailStrategy::GuardWithIf)
        .split(ax[0], xo, xi, vec, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{xi};
    if (unroll) order.push_back(ax[rank - 1]);
    order.push_back(xo);
    order.push_back(yi);
    for (int d = 2; d < rank - (unroll ? 1 : 0); ++d) order.push_back(ax[d]);
    order.push_back(yo);
    out.reorder(order).vectorize(xi).parallel(yo);
    if (unroll) out.bound(ax[rank - 1], 0, unrolled_last_extent).unroll(ax[rank - 1]);
    schedule_stages(out, yo, st);
}

void schedule_outputs(const std::vector<Func>& outs, const std::vector<int>& ranks, const Stages& st) {
    PROXGEN_INTERNAL_ASSERT(!outs.empty() && outs.size() == ranks.size());
    if (outs.size() == 1) {
        schedule_output(outs.front(), ranks.front(), st);
        return;
    }
    // Several outputs (one per variable) may read one staged value: every staged Func is computed
    // whole, once, before them (scheduled with the first output), each output in its own strips.
    Stages shared;
    shared.roots = st.roots;
    shared.roots.insert(shared.roots.end(), st.funcs.begin(), st.funcs.end());
    shared.scatters = st.scatters;
    for (std::size_t i = 0; i < outs.size(); ++i) schedule_output(outs[i], ranks[i], i == 0 ? shared : Stages{});
}

namespace {

/// A Func computed inside a strip: vectorized along x; a staged Func with a static last axis
/// computes every component of a vector of pixels in one pass (the axis unrolled inside).
void vectorize_staged(Func f, const Stages& st, int vec) {
    const auto& ax = axes();
    const auto u = st.unrolled_last.find(f.name());
    const int r = f.dimensions();
    if (u == st.unrolled_last.end() || r < 3) {
        f.vectorize(ax[0], vec, TailStrategy::GuardWithIf);
        return;
    }
    Var xo(f.name() + "_xo"), xi(f.name() + "_xi");
    std::vector<VarOrRVar> order{xi, ax[r - 1], xo};
    for (int d = 1; d < r - 1; ++d) order.push_back(ax[d]);
    f.bound(ax[r - 1], 0, u->second)
        .split(ax[0], xo, xi, vec, TailStrategy::GuardWithIf)
        .reorder(order)
        .vectorize(xi)
        .unroll(ax[r - 1]);
}

/// An update pure in the image's axes that sums over a reduction domain (a convolution's taps)
/// keeps its vector of sums in registers across the taps: each tap's add waits for the last one
/// (4 cycles), so one vector per iteration ran a 5×5 convolution at 512² at a sixth of its
/// arithmetic rate. Four vectors per iteration keep four chains in flight. (Taps outside x instead
/// store and reload the sums at every tap: measured no faster.)
Stage vectorize_update(Func f, int u, int vec) {
    const auto& ax = axes();
    Stage s = f.update(u);
    const std::vector<Expr> lhs = f.update_args(u);
    bool pure = int(lhs.size()) == f.dimensions();
    for (std::size_t d = 0; pure && d < lhs.size(); ++d) {
        const auto* v = lhs[d].as<Internal::Variable>();
        pure = v && v->name == ax[d].name();
    }
    const bool taps = pure && !f.rvars(u).empty();
    s.vectorize(ax[0], taps ? 4 * vec : vec, TailStrategy::GuardWithIf);
    return s;
}

}  // namespace

void schedule_stages(Func out, const Var& yo, const Stages& st) {
    const auto& ax = axes();
    const int vec = schedule_target().natural_vector_size<float>();
    const int strip = kStripRows;

    // Roots: whole, in parallel strips. A staged Func goes into the strips of its one consumer
    // root (the smallest root calling it, when the roots calling it are nested), into the
    // output's strips when no root calls it, and is computed whole too when both the output
    // (past the roots) and a root, or two unrelated roots, read it.
    auto whole = [&](Func f, const std::string& tag) {
        Var ro(f.name() + tag + "_yo"), ri(f.name() + tag + "_yi");
        f.compute_root()
            .split(ax[1], ro, ri, strip, TailStrategy::GuardWithIf)
            .vectorize(ax[0], vec, TailStrategy::GuardWithIf)
            .parallel(ro);
        return ro;
    };
    std::vector<std::map<std::string, Internal::Function>> called_by_root;
    std::vector<Var> root_strip;
    std::set<std::string> root_names;
    for (Func r : st.roots) {
        root_strip.push_back(whole(r, ""));
        called_by_root.push_back(Internal::find_transitive_calls(r.function()));
        // updates pure in x and y (a convolution's taps) run like the pure definition; scatters
        // are scheduled below
        const bool scatter = std::any_of(st.scatters.begin(), st.scatters.end(),
                                         [&](const auto& s) { return s.first.name() == r.name(); });
        for (int u = 0; u < r.num_update_definitions() && !scatter; ++u)
            vectorize_update(r, u, vec).parallel(ax[1]);
        root_names.insert(r.name());
    }
    // what the output reads without going through a root
    std::set<std::string> outside;
    std::vector<Internal::Function> todo{out.function()};
    while (!todo.empty()) {
        const Internal::Function f = todo.back();
        todo.pop_back();
        for (const auto& [name, callee] : Internal::find_direct_calls(f))
            if (!root_names.count(name) && outside.insert(name).second) todo.push_back(callee);
    }
    for (Func f : st.funcs) {
        std::vector<std::size_t> owners;
        for (std::size_t i = 0; i < st.roots.size(); ++i)
            if (called_by_root[i].count(f.name())) owners.push_back(i);
        if (owners.empty()) {
            f.compute_at(out, yo);
            vectorize_staged(f, st, vec);
        } else {
            std::size_t inner = owners[0];
            for (std::size_t i : owners)
                if (called_by_root[i].size() < called_by_root[inner].size()) inner = i;
            bool nested = true;  // every other owner calls the innermost one
            for (std::size_t i : owners)
                if (i != inner && !called_by_root[i].count(st.roots[inner].name())) nested = false;
            if (outside.count(f.name()) || !nested) whole(f, "_shared");
            else f.compute_at(st.roots[inner], root_strip[inner]).vectorize(ax[0], vec, TailStrategy::GuardWithIf);
        }
        for (int u = 0; u < f.num_update_definitions(); ++u)
            vectorize_update(f, u, vec);
    }
    // scatters: their update runs over the reduction domain, in parallel with atomic adds
    for (auto [f, rv] : st.scatters) f.update().atomic().parallel(rv);
}

}  // namespace proxgen::lower

namespace proxgen::lower {

namespace {
int fold_rows(int fold) {
    if (const char* s = std::getenv("PROXGEN_FOLD_ROWS"); s && std::atoi(s) >= 2) return std::atoi(s);
    return fold;
}
}  // namespace

void schedule_blocked(Func out, int rank, const Stages& st, int rows, int fold) {
    if (schedule_kind() != ScheduleKind::cpu) {
        // GPUs and autoschedulers: every level a kernel of its own, as one-step pipelines
        schedule_output(out, rank, st);
        return;
    }
    PROXGEN_INTERNAL_ASSERT(rank >= 2 && st.roots.empty() && st.scatters.empty());
    const auto& ax = axes();
    const int vec = schedule_target().natural_vector_size<float>();
    Var yo("yo"), yi("yi"), xo("xo"), xi("xi");
    out.split(ax[1], yo, yi, rows, TailStrategy::GuardWithIf).split(ax[0], xo, xi, vec, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{xi, xo, yi};
    for (int d = 2; d < rank; ++d) order.push_back(ax[d]);
    order.push_back(yo);
    out.reorder(order).vectorize(xi).parallel(yo);
    // store_at the strip, compute_at the row: Halide's sliding window then computes each row of a
    // level once per strip, and folds its storage to the rows still read
    // The fold: the rows of a level its consumers still read while the next row is produced
    // (bounded stencils only: psi_blockable); a power of two makes the wrap a mask. Halide checks
    // the fold at run time (halide_error_code_fold_factor_too_small).
    for (Func f : st.funcs) {
        f.store_at(out, yo).compute_at(out, yi).fold_storage(axes()[1], fold_rows(fold));
        vectorize_staged(f, st, vec);
    }
}

}  // namespace proxgen::lower
