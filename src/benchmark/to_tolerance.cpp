// Iterations and time to a relative objective gap: the convergence benchmark's measurement, shared
// by bench/convergence/bench_convergence.cpp and `proxgen bench --to-tolerance`.
#include <cmath>

#include "proxgen/benchmark.hpp"
#include "proxgen/error.hpp"

namespace proxgen::benchmark {

namespace {

/// The fastest of a few runs of n iterations: one run of a millisecond varies by 1.5x on a shared
/// machine, and every algorithm (automatic's probes included) is timed alike.
double seconds_of(const MeasuredSolve& run, Options o, int n) {
    o.max_iters = n;
    o.eps_abs = o.eps_rel = 0;
    o.track_objective = false;
    o.callback = nullptr;
    double best = INFINITY, spent = 0;
    for (int i = 0; i < 5 && spent < 0.2; ++i) {
        const double s = run(o).first.solve_seconds;
        best = std::fmin(best, s);
        spent += s;
    }
    return best;
}

}  // namespace

ToTolerance to_tolerance(const MeasuredSolve& run, const Options& opt, double optimum, double shift,
                         int max_iters) {
    if (!std::isfinite(optimum))
        fail("to_tolerance: the optimum f* must be finite, got {} (an unbounded problem has no gap to measure)", optimum);
    ToTolerance m;
    // relative to |f*|; absolute where f* = 0 (a relative gap would divide by zero)
    const double scale = optimum != 0 ? std::abs(optimum) : 1.0;
    auto gap = [&](double f) { return std::isfinite(f) ? (f + shift - optimum) / scale : INFINITY; };

    // 1. one run, the objective measured at every check, stopped once within 1e-4
    Options o = opt;
    o.max_iters = max_iters;
    o.eps_abs = o.eps_rel = 0;
    o.track_objective = true;
    o.callback = [&](const IterationInfo& info) { return std::isnan(info.objective) || gap(info.objective) > 1e-4; };
    const Result r = run(o).first;
    for (const auto& h : r.history) {
        const double g = gap(h.objective);
        if (m.iterations_1e3 < 0 && g <= 1e-3) m.iterations_1e3 = h.iteration;
        if (m.iterations_1e4 < 0 && g <= 1e-4) m.iterations_1e4 = h.iteration;
    }
    // 2. not reached at the checks: where the iterate was infeasible (ADMM's x with a constraint in
    // Ψ) the result a solve returns may still be within; search on fresh solves of n iterations
    auto fresh_gap = [&](int n) {
        Options f = opt;
        f.max_iters = n;
        f.eps_abs = f.eps_rel = 0;
        f.track_objective = false;
        f.callback = nullptr;
        return gap(run(f).second);
    };
    const int step = std::max(1, opt.check_every);
    for (auto [target, count] : {std::pair{1e-3, &m.iterations_1e3}, std::pair{1e-4, &m.iterations_1e4}}) {
        if (*count >= 0) continue;
        int hi = step;
        while (hi < max_iters && fresh_gap(hi) > target) hi = std::min(max_iters, hi * 2);
        if (fresh_gap(hi) > target) continue;
        int lo = hi / 2;  // lo not within (or 0), hi within: bisect on multiples of step
        while (hi - lo > step) {
            const int mid = (lo + hi) / 2 / step * step;
            if (mid <= lo) break;
            (fresh_gap(mid) <= target ? hi : lo) = mid;
        }
        *count = hi;
        m.searched = true;
    }
    m.final_gap = m.iterations_1e4 > 0 ? fresh_gap(m.iterations_1e4) : fresh_gap(max_iters);
    if (m.iterations_1e3 > 0) m.seconds_1e3 = seconds_of(run, opt, m.iterations_1e3);
    if (m.iterations_1e4 > 0) m.seconds_1e4 = seconds_of(run, opt, m.iterations_1e4);

    // 3. the default stopping rule
    Options d = opt;
    d.track_objective = false;
    d.callback = nullptr;
    if (d.max_iters <= 0) d.max_iters = max_iters;
    const auto [rd, f] = run(d);
    m.default_seconds = rd.solve_seconds;
    m.default_gap = gap(f);
    m.default_iterations = rd.iterations;
    m.default_converged = rd.converged;
    return m;
}

}  // namespace proxgen::benchmark
