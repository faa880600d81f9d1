// Google Benchmark registration of ProxGen's iterations and of your own kernels beside them, with
// the counters of proxgen/benchmark.hpp (ms per iteration, bytes moved per iteration, GB/s, the
// fraction of the measured memory bandwidth). Link benchmark::benchmark. Example:
// examples/benchmark/compare_with_yours.cpp.
#pragma once

#include <benchmark/benchmark.h>

#include <functional>
#include <string>
#include <utility>

#include "proxgen/benchmark.hpp"

namespace proxgen::benchmark {

/// Registers run(n) (n iterations of your kernel) as a Google Benchmark named `name`: its time is
/// one iteration's (manual time), with counters ms_per_iter, MB_per_iter, GB_per_s and of_triad
/// (the fraction of machine_bandwidth_gbs()). bytes_per_iteration ≤ 0 leaves the byte counters out.
inline ::benchmark::internal::Benchmark* register_iteration(const std::string& name, std::function<void(int)> run,
                                                            double bytes_per_iteration, int short_n = 20,
                                                            int long_n = 220) {
    auto body = [run = std::move(run), bytes_per_iteration, short_n, long_n](::benchmark::State& state) {
        double ms = 0;
        for (auto _ : state) {
            ms = ms_per_iteration(run, short_n, long_n, 1);
            state.SetIterationTime(ms / 1e3);
        }
        state.counters["ms_per_iter"] = ms;
        if (bytes_per_iteration > 0) {
            const double gbs = bytes_per_iteration / (ms / 1e3) / 1e9;
            state.counters["MB_per_iter"] = bytes_per_iteration / 1e6;
            state.counters["GB_per_s"] = gbs;
            state.counters["of_triad"] = gbs / machine_bandwidth_gbs();
        }
    };
    return ::benchmark::RegisterBenchmark(name.c_str(), body)
        ->UseManualTime()
        ->Unit(::benchmark::kMillisecond)
        ->Iterations(3);
}

/// Registers pg::solve of `prob` with `options` as a user runs it (residual checks every
/// check_every, adaptive steps) but for exactly n iterations (eps_abs = eps_rel = 0): the
/// iteration's time, its bytes from iteration_bytes(), and the counters of register_iteration.
template <class P>
::benchmark::internal::Benchmark* register_solve(const std::string& name, const P& prob, Options options = {}) {
    options.eps_abs = options.eps_rel = 0;
    const double bytes = iteration_bytes(prob, options.algorithm);
    auto run = [prob, options](int n) mutable {
        options.max_iters = n;
        proxgen::solve(prob, options);
    };
    return register_iteration(name, std::move(run), bytes);
}

}  // namespace proxgen::benchmark
