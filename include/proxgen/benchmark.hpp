// Benchmarking as a user feature: time a problem's iteration as pg::solve runs it,
// beside a kernel of your own, in one Google Benchmark binary, with the counters that say how close
// each is to the machine: ms per iteration, the bytes an iteration must move, GB/s, and the fraction
// of the memory bandwidth measured in the same process.
//
//   #include <proxgen/google_benchmark.hpp>     // link ProxGen::proxgen and benchmark::benchmark
//   auto prob = pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x));
//   pg::benchmark::register_solve("proxgen/pc", prob, {});
//   pg::benchmark::register_iteration("mine/pc", [&](int n) { my_kernel.run(n); }, 8.0 * 4 * W * H);
//   int main(int argc, char** argv) { benchmark::Initialize(&argc, argv); benchmark::RunSpecifiedBenchmarks(); }
//
// ms per iteration is (time of 220 iterations − time of 20) / 200, the least disturbed of each, so
// per-call set-up (planning, binding, a cached compilation) cancels. This header's measuring
// functions need no Google Benchmark; proxgen/google_benchmark.hpp adds register_solve and
// register_iteration (inline there, so that ProxGen's library does not link Google Benchmark).
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <utility>
#include <string>

#include "proxgen/typed/solve.hpp"

namespace proxgen::benchmark {

/// STREAM's triad a[i] = b[i] + s·c[i] on `threads` threads (0: the hardware's) over three arrays
/// of doubles of `bytes_per_array` each, best of `repeats` passes after a warm-up, in GB/s counted
/// as STREAM counts (24 bytes per element; the write-allocate read is not counted).
double triad_bandwidth_gbs(int threads = 0, std::size_t bytes_per_array = std::size_t(128) << 20, int repeats = 10);

/// The triad bandwidth measured once per process (the first call measures; later calls return it).
double machine_bandwidth_gbs();

/// The process's peak resident set size in bytes (VmHWM; getrusage where /proc is missing).
std::size_t peak_rss_bytes();

/// Milliseconds per iteration of run(n) (which runs n iterations) as (time of long_n − time of
/// short_n) / (long_n − short_n), each the least disturbed of `repeats` runs.
double ms_per_iteration(const std::function<void(int)>& run, int short_n = 20, int long_n = 220, int repeats = 3);

/// The bytes one iteration of the planned problem must move between memory and the cores: each
/// state image read once and written once, and each data image read once, 4 bytes a sample (what a
/// perfectly fused iteration moves; a lower bound). State per algorithm, N the variable's samples
/// and M_i those of split term i's K_i x: Pock–Chambolle x, x̄ (3N) and a dual per split term
/// (2 M_i); linearized ADMM and ADMM x (2N), z_i and u_i (4 M_i); HQS x (2N), z_i (2 M_i). The
/// x-update's own work (a transform, CG steps) is not counted.
double iteration_bytes(const ir::Problem& planned);

/// The same for a typed problem planned for `algorithm`.
template <class P>
double iteration_bytes(const P& prob, Algorithm algorithm) {
    return iteration_bytes(detail::plan_for(detail::normalized(prob), algorithm));
}

/// The state an algorithm keeps for the planned problem, in bytes (x, and per split term its dual,
/// or its z and u): what a solve cannot do with less memory than.
double state_bytes(const ir::Problem& planned);

template <class P>
double state_bytes(const P& prob, Algorithm algorithm) {
    return state_bytes(detail::plan_for(detail::normalized(prob), algorithm));
}

/// Iterations and time to a relative objective gap (f − f*)/|f*| (the convergence benchmark,
/// docs/performance.md). -1 / NaN: not reached within max_iters.
struct ToTolerance {
    int iterations_1e3 = -1, iterations_1e4 = -1;
    /// Result::solve_seconds of a fresh, untracked solve of exactly that many iterations (kernels
    /// cached): the fastest of up to five such solves (as many as fit in 0.2 s)
    double seconds_1e3 = std::numeric_limits<double>::quiet_NaN();
    double seconds_1e4 = std::numeric_limits<double>::quiet_NaN();
    /// With the default stopping rule (opt's tolerances as given, max_iters as given).
    int default_iterations = 0;
    double default_seconds = 0, default_gap = 0;
    bool default_converged = false;
    /// The gap after the measuring run (at iterations_1e4, or at max_iters when not reached).
    double final_gap = 0;
    /// Found by fresh solves of n iterations rather than from the objective tracked at the checks
    /// (the iterate was infeasible there, while the result a solve returns is a feasible copy).
    bool searched = false;
};
/// A solve for to_tolerance: the result and its objective (pg::objective of the result).
using MeasuredSolve = std::function<std::pair<Result, double>(const Options&)>;
/// Measures `opt.algorithm` on a problem: solve(o) solves it with options o. The gap is measured
/// at the solver's own checks (every opt.check_every iterations, with o.track_objective set; the
/// objective the history holds, plus `shift`), so the counts are multiples of check_every. opt
/// keeps its step options; its tolerances and max_iters are used for the default-rule run.
ToTolerance to_tolerance(const MeasuredSolve& solve, const Options& opt, double optimum, double shift, int max_iters);
}  // namespace proxgen::benchmark
