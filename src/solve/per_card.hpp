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

#include <chrono>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../jit/compile.hpp"
#include "../jit/kernel.hpp"
#include "../jit/memory_cache.hpp"
#include "../lower/lowering.hpp"
#include "engine.hpp"

#include "proxgen/error.hpp"
#include "proxgen/image.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/solve/options.hpp"
#include "proxgen/solve/result.hpp"

namespace proxgen::detail {

/// Buffers the operators and runners of one owner (a runner, an estimate, an objective) share,
/// where each would have allocated its own: one image per shape (and slot) instead of one per node
/// and term — a 17-term 512² problem allocated 85 MB of them before its first iteration, in fresh
/// pages that cost more than the iteration. Filled while the owner is built (not for two threads at
/// once); the images outlive it in the handles that share them.
class SharedBuffers {
public:
    /// A zero image, only read: a variable's stand-in until the first apply, the output of an
    /// operand that reads no variable, a buffer bound before its first value arrives.
    const Image& zeros(const std::vector<int>& shape) { return get(shape, -1); }
    /// Scratch `slot` (≥ 0) of this shape: written and read within one call of one operator (an
    /// adjoint's intermediate), which the owner makes one operator after another.
    const Image& scratch(const std::vector<int>& shape, int slot) { return get(shape, slot); }
    /// The owner's scratch of this shape for what each term's step writes and its operator's
    /// adjoint then reads, one term after another (never one of an operator's slots).
    const Image& term_scratch(const std::vector<int>& shape) { return get(shape, -2); }

private:
    const Image& get(const std::vector<int>& shape, int slot) {
        auto [it, fresh] = images_.try_emplace({shape, slot});
        if (fresh) it->second = Image(shape);
        return it->second;
    }
    std::map<std::pair<std::vector<int>, int>, Image> images_;
};

/// Whether an operator's K x stays valid after its owner applies the next operator (the runners
/// that keep each term's K x) or is read before that (a Gram, an objective: then the nodes' outputs
/// are the owner's scratch too).
enum class PerCardOutputs { kept, read_at_once };

/// One expression of a problem, applied node by node. Every node's kernels are bound once to
/// buffers the operator keeps (its output, what its adjoint passes down; the scratch among them
/// its owner's SharedBuffers): applying it allocates nothing. Not movable (the kernels hold its
/// buffers' addresses); not for two threads at once, nor two operators of one owner.
class PerCardOperator {
public:
    /// expr: an expression over p's variables (its variable nodes index p.variables); shared: the
    /// owner's, for the buffers that stay zero, are replaced before they are read, or are scratch.
    PerCardOperator(const ir::Problem& p, const ir::Node& expr, SharedBuffers& shared,
                    PerCardOutputs outputs = PerCardOutputs::kept);
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
    void bind_adjoint(Step& s);
    void bind_operands(const Step& s, jit::Call& c);

    std::vector<Step> steps_;  // operands before the nodes that read them; the expression last
    std::vector<Image> inputs_;  // the variables' values the forward kernels read (shared buffers)
    std::vector<Image> zeros_;   // a 0 image per step whose linear part is 0 (read as an operand; shared)
    Image constant_, zero_out_;
    bool adjoint_bound_ = false;
};

/// A stand-in for an operand or an operator's output: variable `index` of this shape.
ir::Node stand_in(int index, const std::vector<int>& shape, std::string name);
/// Term t alone, over a variable standing for its expression's output (the problem whose
/// kernels give its dual step and its value): the constant part of the expression (`inner`, may be
/// empty) joins the term's offset, scaled as the prox reads it.
ir::Problem term_alone(const ir::Term& t, const Image& inner);

/// The objective of p (as objective_checked: the caller has validated p and x's shape) in the
/// per-card tier: each term's value by the kernel of the term alone at its operator's output,
/// computed node by node.
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

/// Whether PerCardObjective can evaluate p: every term applies node by node.
bool objective_runs_per_card(const ir::Problem& p);

/// Whether a solve of p under tier t runs per card at all (its norm estimates and objective too):
/// Tier::per_card, or Tier::automatic where the per-card tier can run the plan.
inline bool runs_per_card(const ir::Problem& p, Tier t) {
    return t == Tier::per_card || (t == Tier::automatic && per_card_unsupported(p).empty());
}

/// Tests: Tier::automatic switches to the fused tier exactly after this iteration (waiting for its
/// kernels there; never before: not even where they are cached); 0, the default: when they are
/// ready.
void force_tier_switch(int iteration);
/// The iteration force_tier_switch set (0: none).
int forced_tier_switch();

// ---- Tier::automatic, for every algorithm with a per-card runner: the fused kernels compile on a
// thread of their own; per card until they are ready, fused from the start where they are
// cached. A solve that ends first waits for the compilation (its kernels are then cached for the
// next solve): a compilation cannot be cancelled, and one still running when the process exits
// would outlive LLVM's state.

/// Whether a kernel set comes from a cache, set once by the thread building it: true when it is
/// loaded, false at its first kernel that no cache holds (jit::CompileWatch), or when it fails.
class CacheVerdict {
public:
    CacheVerdict() : decided_(verdict_.get_future()) {}
    void set(bool cached) {
        std::call_once(once_, [&] { verdict_.set_value(cached); });
    }
    std::future<bool>& decided() { return decided_; }

private:
    std::promise<bool> verdict_;
    std::future<bool> decided_;
    std::once_flag once_;
};

/// The fused kernels `Kernels` of p (built as Kernels(p), cached under key), compiling on a thread
/// of their own, telling `verdict` whether they came from a cache; where they must be compiled,
/// after `head` is given (null: at once). p, verdict and head must outlive the future (whose
/// destructor waits).
template <class Kernels>
std::future<void> compile_in_background(const ir::Problem& p, std::string key, CacheVerdict& verdict,
                                        const HeadStart* head) {
    return std::async(std::launch::async, [&p, key = std::move(key), &verdict, head] {
        const jit::CompileWatch watch([&verdict, head] {
            verdict.set(false);
            if (head) head->wait();
        });
        double seconds = 0;
        try {
            jit::cached_as<Kernels>(key, [&] { return std::make_shared<Kernels>(p); }, seconds);
        } catch (...) {
            verdict.set(false);  // (the fused runner fails again where it takes over)
            throw;
        }
        verdict.set(true);
    });
}

/// Whether the fused tier runs from the start: its kernels came from a cache (loading them takes
/// milliseconds, compiling them seconds: the wait ends at the first kernel no cache holds, or
/// after a short grace where another thread is building the same set) and no switch is forced.
bool fused_from_the_start(CacheVerdict& verdict, int switch_at);

/// What a per-card run watches besides its loop: the fused kernels compiling beside it (null:
/// Tier::per_card, never switched), the iteration a test forces the switch at (0: none), and
/// Tier::automatic's quick start (its head start to give, and the tight norms where p has bounds).
struct TierStart {
    std::future<void>* fused = nullptr;
    int switch_at = 0;
    QuickStart* quick = nullptr;
    PendingNorms* norms() const { return quick && quick->norms ? &*quick->norms : nullptr; }
    /// The plan the fused runner takes over with: the tight one (waiting for it) where p had bounds.
    const ir::Problem& fused_plan(const ir::Problem& p) const { return norms() ? norms()->tight() : p; }
};

/// Runs loop's iterations with the per-card runner r until the loop finishes (false) or the fused
/// tier is to take over (true: `fused` ready, or iteration switch_at when a test forces it, waiting
/// for the kernels there; fused null: never). Where the run started on the planner's bounds,
/// retune(tight plan) moves the loop's steps to the tight norms' before the first iteration after
/// they arrive, and before a switch at the latest (the fused runner starts from them).
template <class Loop, class Runner, class Retune>
bool iterate_until_switch(Loop& loop, Runner& r, const TierStart& start, const char* algorithm, Retune&& retune) {
    PendingNorms* const norms = start.norms();
    bool retuned = norms == nullptr;
    auto switch_now = [&] {
        if (!start.fused) return false;
        if (start.switch_at > 0) return loop.progress().iterations >= start.switch_at;
        return start.fused->wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    };
    while (!loop.progress().finished && !switch_now()) {
        if (!retuned && norms->ready(loop.progress().iterations)) {
            retune(norms->tight());
            retuned = true;
        }
        const bool ran = loop.run(r, 1);
        if (start.quick) start.quick->head.given();
        if (!ran) fail("{} (per card): a step failed", algorithm);
    }
    if (start.quick) start.quick->head.given();
    if (loop.progress().finished) return false;
    if (!retuned) retune(norms->tight());
    start.fused->wait();  // (a forced switch; a failed compilation fails again in the fused runner)
    return true;
}

/// A solve in the tier opt.tier asks for: per_card(p, opt, warm, start) — start.fused null for
/// Tier::per_card, the fused kernels `Kernels` (cached under key()) compiling beside it for
/// Tier::automatic, which runs fused(p, opt, warm) where they load at once, as Tier::fused does
/// (with the tight norms, waiting for them, where p holds the planner's bounds and `norms` brings them).
template <class Kernels, class Key, class PerCard, class Fused>
Result solve_in_tier(const ir::Problem& p, const Options& opt, const Result* warm, QuickStart* quick, Key key,
                     PerCard per_card, Fused fused) {
    if (opt.tier == Tier::per_card) return per_card(p, opt, warm, TierStart{});
    if (opt.tier == Tier::automatic && per_card_unsupported(p).empty()) {
        CacheVerdict verdict;
        std::future<void> compiling =
            compile_in_background<Kernels>(p, key(), verdict, quick ? &quick->head : nullptr);
        const int switch_at = forced_tier_switch();
        if (!fused_from_the_start(verdict, switch_at))
            return per_card(p, opt, warm, TierStart{&compiling, switch_at, quick});  // (compiling's destructor waits)
    }
    if (quick) quick->head.given();
    return fused(quick && quick->norms ? quick->norms->tight() : p, opt, warm);  // (given first: they wait for it)
}

/// What the fused runner takes over from the per-card one: its iterate and duals as a warm start
/// (no steps: the loop keeps its own, with its balancing, iteration count and the history), and
/// the solve's options without a start of their own.
struct Handoff {
    Result warm;
    Options options;
    Handoff(const ir::Problem& p, const Options& opt, const Image& x, std::vector<Image> duals);
};

}  // namespace proxgen::detail
