// proxgen bench PROBLEM_FILE: the problem's iteration timed as pg::solve runs it (default options,
// residual checks, adaptive steps; exactly N iterations), per algorithm: ms per iteration as
// (t(long) − t(short)) / (long − short), the bytes an iteration must move, GB/s and the fraction of
// the memory bandwidth measured in the same process (proxgen/benchmark.hpp, docs/performance.md).
// With --to-tolerance: iterations and time to a relative objective gap of 1e-3 and 1e-4 and to the
// default stopping rule (benchmark::to_tolerance), f* given or from long runs of every algorithm.
#include <chrono>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include <proxgen/benchmark.hpp>
#include <proxgen/ir/ir.hpp>

#include "commands.hpp"

namespace proxgen::cli {

namespace {

int to_tolerance(const BenchOptions& o, const rt::Problem& problem, const std::vector<Algorithm>& algorithms) {
    std::vector<Algorithm> plannable;
    for (Algorithm a : algorithms) {
        try {
            rt::plan(problem, a);
            plannable.push_back(a);
        } catch (const Error& e) {
            fmt::print("{:<8} not plannable: {}\n", short_name(a), e.what());
        }
    }
    if (plannable.empty()) throw Stop(bad_input, "no algorithm can plan this problem");
    double optimum = o.optimum;
    if (o.optimum_given && !std::isfinite(optimum))
        throw Stop(bad_input, fmt::format("--optimum {}: the optimum f* must be a finite number", optimum));
    if (!o.optimum_given) {
        // f* from long runs: the lowest objective any algorithm reaches (a float32 run; the
        // benchmark of bench/ uses a float64 reference instead)
        optimum = INFINITY;
        for (Algorithm a : plannable) {
            Options opt;
            opt.algorithm = a;
            opt.eps_abs = opt.eps_rel = 0;
            opt.max_iters = o.optimum_iters;
            const Result r = rt::solve(problem, opt);
            // the lowest objective of a run that found the problem unbounded is no optimum
            if (r.status == Status::unbounded)
                throw Stop(not_converged, fmt::format("{} finds the problem unbounded below ({}); there is no optimum to "
                                                      "measure gaps against", short_name(a), r.message));
            optimum = std::min(optimum, rt::objective(problem, r));
        }
        if (!std::isfinite(optimum)) throw Stop(bad_input, "no long run reached a finite objective");
    }
    fmt::print("problem: {}\noptimum f* = {:.10g} ({}); gaps {}\n", problem.to_string(), optimum,
               o.optimum_given ? "given" : fmt::format("the lowest objective after {} iterations of each algorithm", o.optimum_iters),
               optimum != 0 ? "(f - f*) / |f*|" : "f - f* (absolute: f* = 0)");
    fmt::print("{:<8} {:>8} {:>8} {:>10} {:>10} {:>13} {:>10} {:>10}\n", "algo", "it_1e-3", "it_1e-4", "ms_1e-3",
               "ms_1e-4", "default_its", "default_ms", "def_gap");
    for (Algorithm a : plannable) {
        Options opt;
        opt.algorithm = a;
        opt.max_iters = o.max_iters;
        Options first = opt;
        first.max_iters = 1;
        rt::solve(problem, first);  // compiles or loads the kernels outside the measurements
        const benchmark::ToTolerance m = benchmark::to_tolerance(
            [&](const Options& opts) {
                Result r = rt::solve(problem, opts);
                const double f = rt::objective(problem, r);
                return std::pair{std::move(r), f};
            },
            opt, optimum, 0.0, o.max_iters);
        auto its = [](int n) { return n < 0 ? std::string("-") : std::to_string(n); };
        fmt::print("{:<8} {:>8} {:>8} {:>10.2f} {:>10.2f} {:>13} {:>10.2f} {:>10.1e}\n", short_name(a),
                   its(m.iterations_1e3), its(m.iterations_1e4), 1e3 * m.seconds_1e3, 1e3 * m.seconds_1e4,
                   its(m.default_iterations) + (m.default_converged ? "" : " (max)"), 1e3 * m.default_seconds,
                   m.default_gap);
    }
    fmt::print("(iterations at the residual checks, every 10; ms: a fresh solve of that many iterations, kernels "
               "cached; -: not within --max-iters)\n");
    return ok;
}

}  // namespace

int bench(const BenchOptions& o) {
    if (o.short_iters < 0 || o.long_iters <= o.short_iters)
        throw Stop(bad_input, fmt::format("--short {} and --long {}: need 0 <= short < long", o.short_iters, o.long_iters));
    if (o.repeats < 1) throw Stop(bad_input, fmt::format("--repeats {}: need at least 1", o.repeats));
    const std::vector<Algorithm> algorithms = algorithms_named(o.algorithm);
    if (algorithms.size() == 1 && algorithms.front() == Algorithm::automatic)
        throw Stop(bad_input, "-a auto chooses the algorithm when solving, by probing each candidate; bench measures "
                              "algorithms by name: give one (pc, ladmm, admm, hqs) or all");
    const rt::Problem problem = load_problem(o.problem, load_bindings(o.data));
    if (o.to_tolerance) return to_tolerance(o, problem, algorithms);
    const double triad = benchmark::machine_bandwidth_gbs();
    fmt::print("problem: {}\nSTREAM triad: {:.1f} GB/s; ms/iter = (t({}) - t({})) / {}, least of {} runs\n",
               problem.to_string(), triad, o.long_iters, o.short_iters, o.long_iters - o.short_iters, o.repeats);
    fmt::print("{:<8} {:>10} {:>12} {:>10} {:>9} {:>12}\n", "algo", "ms/iter", "MB/iter", "GB/s", "of_triad",
               "first solve s");
    int measured = 0;
    for (Algorithm a : algorithms) {
        std::optional<rt::Plan> planned;
        try {
            planned = rt::plan(problem, a);
        } catch (const Error& e) {
            fmt::print("{:<8} not plannable: {}\n", short_name(a), e.what());
            continue;
        }
        Options opt;
        opt.eps_abs = opt.eps_rel = 0;
        opt.max_iters = 1;
        const auto t0 = std::chrono::steady_clock::now();
        rt::solve(*planned, opt);  // compiles or loads the kernels: not part of the iteration's time
        const double first = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double ms = benchmark::ms_per_iteration(
            [&](int n) {
                opt.max_iters = n;
                rt::solve(*planned, opt);
            },
            o.short_iters, o.long_iters, o.repeats);
        const double bytes = benchmark::iteration_bytes(planned->ir());
        const double gbs = bytes / (ms / 1e3) / 1e9;
        fmt::print("{:<8} {:>10.3f} {:>12.2f} {:>10.2f} {:>9.2f} {:>12.2f}\n", short_name(a), ms, bytes / 1e6, gbs,
                   gbs / triad, first);
        if (ms <= 0)
            fmt::print("{:<8} (the long run was not slower than the short one: timing noise; raise --long)\n", "");
        ++measured;
    }
    if (measured == 0) throw Stop(bad_input, "no algorithm can plan this problem");
    return ok;
}

}  // namespace proxgen::cli
