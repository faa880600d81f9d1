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

#include <cmath>

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

/// What a loop reads of the user's options.
struct LoopOptions {
    Cadence cadence;
    double eps_abs = 1e-4, eps_rel = 1e-4;
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

}  // namespace proxgen::algorithms
