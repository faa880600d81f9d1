// What every algorithm card (proxgen/algorithms/*.hpp) shares: when a loop measures its residuals,
// what a measurement holds, and how a runner answers it.
//
// An algorithm card is one header-only class template per algorithm holding its loop — state,
// step sizes and their rules, check cadence, residuals, stopping, residual balancing — over a
// Runner that runs the algorithm's steps: the JIT's compiled pipelines (src/solve) and a generated
// solver's ahead-of-time pipelines (proxgen/aot) instantiate the same card, so the loop is written
// once. Runtime-only: no libHalide, no exceptions of its own (a runner reports a failed step by
// returning false and keeps its error).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace proxgen::algorithms {

/// When a loop measures its residuals: every check_every-th iteration, the last one, and the first
/// when nothing is split (a loop with no dual state has its exact residuals at once).
struct Cadence {
    int check_every = 10;
    int max_iters = 500;
    bool first = false;

    bool at(int it) const { return it % check_every == 0 || it == max_iters || (it == 1 && first); }
    /// No check falls on iterations from..to: they may run in one call.
    bool none_between(int from, int to) const {
        for (int it = from; it <= to; ++it)
            if (at(it)) return false;
        return true;
    }
};

/// Data peaking at this or above keep data_unit's unit 1: a peak need not be known beyond it.
inline constexpr double data_unit_full_peak = 0.5;

/// The unit of the absolute tolerances in the split terms' space (K x, z, the duals' residual):
/// the largest magnitude of the problem's data (its terms' offsets), rounded up to a power of two,
/// at most 1. ε_abs is per element of an image of unit range: where the data peak at 0.01 (an
/// operator scaled by 100 against [0, 1] data), an absolute 1e-4 is 1 % of every value and a solve
/// met it three times above the optimum; there the tolerance shrinks with the data. Data peaking
/// above 1/2 keep the unit 1 (tolerances never loosen), and the rounding keeps the unit the same
/// for data of nearly the same range (batch members, a re-scaled image).
inline double data_unit(double peak) {
    if (!(peak > 0) || !std::isfinite(peak) || peak >= data_unit_full_peak) return 1.0;
    return std::exp2(std::ceil(std::log2(peak)));
}

/// One term's data in K x's space: a term weight · f(β · w ⊙ K x + c) fits K x to −c / (β w), so
/// its peak is max |c_i| / |β w_i| over the n elements of c (w null: 1; elements where β w_i = 0,
/// which fit nothing, are skipped) — or the first value at or above `enough`, where the caller
/// needs to know no more (data_unit: a 17-term problem's 512² data were read value by value, a
/// float64 division each, before its first iteration). The JIT and generated solvers both compute
/// data_unit's peak with it.
inline double term_data_peak(const float* c, std::size_t n, const float* w, double beta,
                             double enough = data_unit_full_peak) {
    double peak = 0;
    for (std::size_t i = 0; i < n && peak < enough; ++i) {
        const double scale = std::abs(beta * (w ? double(w[i]) : 1.0));
        if (scale > 0) peak = std::max(peak, std::abs(double(c[i])) / scale);
    }
    return peak;
}

/// What a loop reads of the user's options.
struct LoopOptions {
    Cadence cadence;
    double eps_abs = 1e-4, eps_rel = 1e-4;
    /// The absolute tolerance's unit in the split terms' space (data_unit).
    double data_unit = 1.0;
};

/// One measurement: the primal and dual residuals and their tolerances √dim·ε_abs + ε_rel·scale.
struct Residuals {
    double primal = NAN, eps_primal = NAN;
    double dual = NAN, eps_dual = NAN;
    /// Both finite (a NaN or an infinity means the iteration diverged).
    bool finite() const { return std::isfinite(primal) && std::isfinite(dual); }
    /// Both within their tolerances, and a tolerance was asked for (ε_abs = ε_rel = 0 runs every
    /// iteration).
    bool met(double eps_abs, double eps_rel) const {
        return (eps_abs > 0 || eps_rel > 0) && primal <= eps_primal && dual <= eps_dual;
    }
};

/// The √dim·ε_abs + ε_rel·‖scale‖ tolerance of a residual over `elements` values.
inline double tolerance(double elements, double eps_abs, double eps_rel, double scale) {
    return std::sqrt(elements) * eps_abs + eps_rel * scale;
}

/// A runner's answer to a measurement.
enum class Verdict {
    go_on,      ///< not converged: the card adapts its steps and continues
    converged,  ///< the tolerances hold (and whatever else the runner requires of a result)
    stop,       ///< stop without converging (likely infeasible or unbounded: the runner says why)
    failed      ///< the runner failed (a diverged iteration): its error is kept by the runner
};

/// Where a loop is: its iteration count and how it ended, and its last measurement.
struct Progress {
    int iterations = 0;
    bool converged = false;
    bool stopped = false;   ///< stopped early: a Verdict::stop or the runner's per-iteration hook
    bool finished = false;  ///< converged, stopped, or max_iters reached
    Residuals last;
};

/// What every card's loop does the same way, for a Card deriving from Loop<Card> with
///   template <class Runner> bool advance(Runner& runner, int allowed)
/// (one iteration, or several in one call, at most `allowed`; false when the runner failed).
template <class Card>
class Loop {
public:
    /// Runs until converged, stopped or max_iters, at most `allowed` more iterations; false when a
    /// step failed (the runner holds the error).
    template <class Runner>
    bool run(Runner& runner, int allowed) {
        while (!progress_.finished && allowed > 0) {
            const int done = progress_.iterations;
            if (!static_cast<Card&>(*this).advance(runner, allowed)) return false;
            allowed -= progress_.iterations - done;
        }
        return true;
    }
    const Progress& progress() const { return progress_; }

protected:
    Loop() = default;
    explicit Loop(const LoopOptions& options) : options_(options) {}
    /// Iteration 0 again.
    void reset_progress() {
        progress_ = Progress{};
        progress_.finished = options_.cadence.max_iters <= 0;
    }
    /// The next iteration is measured.
    bool measured(int it) const { return options_.cadence.at(it); }
    /// n iterations from here may run in one call: the runner blocks n, no check falls among them,
    /// and both `allowed` and max_iters leave room.
    bool block_fits(int n, int allowed) const {
        const int from = progress_.iterations;
        return n > 1 && allowed >= n && from + n <= options_.cadence.max_iters &&
               options_.cadence.none_between(from + 1, from + n);
    }
    /// After a block of n iterations.
    void blocked(int n) {
        progress_.iterations += n;
        progress_.finished = progress_.iterations >= options_.cadence.max_iters;
    }
    /// A check's residuals, asked of the runner; false when it failed. Sets converged / stopped.
    template <class Runner>
    bool checked(Runner& runner, int it, const Residuals& r, Verdict& verdict) {
        progress_.last = r;
        verdict = runner.record(it, r, r.met(options_.eps_abs, options_.eps_rel));
        if (verdict == Verdict::failed) return false;
        progress_.converged = verdict == Verdict::converged;
        progress_.stopped = verdict == Verdict::stop;
        return true;
    }
    /// The end of iteration it: the runner's hook (unless stopped), and whether the loop is done.
    template <class Runner>
    void ended(Runner& runner, int it) {
        progress_.iterations = it;
        if (!progress_.stopped && !runner.after_iteration(it)) progress_.stopped = true;
        progress_.finished = progress_.converged || progress_.stopped || it >= options_.cadence.max_iters;
    }

    LoopOptions options_;
    Progress progress_;
};

}  // namespace proxgen::algorithms
