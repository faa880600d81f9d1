// proxgen bench PROBLEM_FILE: the problem's iteration timed as pg::solve runs it (default options,
// residual checks, adaptive steps; exactly N iterations), per algorithm: ms per iteration as
// (t(long) − t(short)) / (long − short), the bytes an iteration must move, GB/s and the fraction of
// the memory bandwidth measured in the same process (proxgen/benchmark.hpp, docs/performance.md).
#include <chrono>
#include <optional>

#include <fmt/format.h>

#include <proxgen/benchmark.hpp>
#include <proxgen/ir/ir.hpp>

#include "commands.hpp"

namespace proxgen::cli {

int bench(const BenchOptions& o) {
    if (o.short_iters < 0 || o.long_iters <= o.short_iters)
        throw Stop(bad_input, fmt::format("--short {} and --long {}: need 0 <= short < long", o.short_iters, o.long_iters));
    if (o.repeats < 1) throw Stop(bad_input, fmt::format("--repeats {}: need at least 1", o.repeats));
    const std::vector<Algorithm> algorithms = algorithms_named(o.algorithm);
    const rt::Problem problem = load_problem(o.problem, load_bindings(o.data));
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
