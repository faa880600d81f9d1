// Time to accuracy: for each canonical problem (problems/canonical_problems.hpp) at 512² and 1024²,
// every algorithm with its default steps:
//   ms_per_iter   time per iteration (a 100-iteration solve, JIT cached beforehand; includes the
//                 per-solve set-up, e.g. FFT plans, amortized over the 100)
//   iters_to_1e-4 iterations until the objective is within 1e-4 (relative) of the optimum
//   s_to_1e-4     the time of a fresh, untracked solve of exactly that many iterations
//   hand_ms, ratio  (TV denoise, PC and L-ADMM) the hand-written Halide iteration, same run
// The optimum is the best objective of a long ADMM run (2000 iterations) and of every run here.
// Poisson objectives are compared as deviances (tests/test_canonical.cpp says why).
// Run: build/bench/proxgen_bench --benchmark_filter=Canonical
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <map>

#include "canonical_problems.hpp"
#include "handwritten_tv.hpp"

namespace pg = proxgen;
using pg::bench::Canonical;

namespace {

constexpr int kMaxIters = 4000;

/// Best objective seen per (problem, size); seeded by a long ADMM run.
double& optimum(Canonical kind, int W) {
    static std::map<std::pair<int, int>, double> best;
    auto [it, fresh] = best.try_emplace({int(kind), W}, 0.0);
    if (fresh) {
        it->second = pg::bench::with_problem(kind, W, [&](const auto& prob, const auto&, const pg::Image& start) {
            pg::Options opt;
            opt.algorithm = pg::Algorithm::admm;
            opt.max_iters = 2000;
            opt.eps_abs = opt.eps_rel = 0;
            opt.x0 = start;
            return pg::objective(prob, pg::solve(prob, opt)) + pg::bench::objective_shift(kind, start);
        });
    }
    return it->second;
}

double handwritten_ms(int W, pg::Algorithm alg) {
    pg::bench::HandwrittenTV hw(pg::reference::make_denoise(W).b.buffer(), pg::bench::kDenoiseTV);
    const float step = 1.0f / std::sqrt(8.0f);
    auto iterate = [&](int n) {
        for (int k = 0; k < n; ++k) {
            if (alg == pg::Algorithm::pock_chambolle) hw.pc_iteration(step, step, 1.0f);
            else hw.ladmm_iteration(step, step / 8.0f);
        }
    };
    iterate(5);
    const auto t0 = std::chrono::steady_clock::now();
    iterate(50);
    return 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 50;
}

void BM_Canonical(benchmark::State& state, Canonical kind, pg::Algorithm alg) {
    const int W = int(state.range(0));
    double& best = optimum(kind, W);
    pg::bench::with_problem(kind, W, [&](const auto& prob, const auto&, const pg::Image& start) {
        const double shift = pg::bench::objective_shift(kind, start);
        pg::Options opt;
        opt.algorithm = alg;
        opt.eps_abs = opt.eps_rel = 0;
        opt.x0 = start;
        opt.max_iters = 100;
        opt.check_every = 100;
        pg::solve(prob, opt);  // JIT compile + warm up
        double per_iter = 0;
        for (auto _ : state) {
            const pg::Result r = pg::solve(prob, opt);
            per_iter = 1e3 * r.solve_seconds / r.iterations;
            state.SetIterationTime(r.solve_seconds);
        }
        // iterations to 1e-4: objective checked every 10 iterations, stop once within
        pg::Options track = opt;
        track.max_iters = kMaxIters;
        track.check_every = 10;
        track.track_objective = true;
        track.callback = [&](const pg::IterationInfo& info) {
            return std::isnan(info.objective) || info.objective + shift > best + 1e-4 * std::abs(best);
        };
        const pg::Result tracked = pg::solve(prob, track);
        const double reached = pg::objective(prob, tracked) + shift;
        best = std::min(best, reached);
        const bool ok = reached <= best + 1e-4 * std::abs(best);
        double seconds = NAN;
        if (ok) {
            pg::Options timed = opt;
            timed.max_iters = tracked.iterations;
            timed.check_every = tracked.iterations;
            seconds = pg::solve(prob, timed).solve_seconds;
        }
        state.counters["ms_per_iter"] = per_iter;
        state.counters["iters_to_1e-4"] = ok ? tracked.iterations : NAN;
        state.counters["s_to_1e-4"] = seconds;
        state.counters["objective"] = reached;
        if (kind == Canonical::denoise && alg != pg::Algorithm::admm && alg != pg::Algorithm::hqs) {
            const double hand = handwritten_ms(W, alg);
            state.counters["hand_ms"] = hand;
            state.counters["ratio"] = per_iter / hand;
        }
        return 0;
    });
}

void register_all() {
    for (Canonical kind : {Canonical::denoise, Canonical::deconv, Canonical::poisson})
        for (pg::Algorithm alg : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm,
                                  pg::Algorithm::hqs})
            benchmark::RegisterBenchmark(
                (std::string("Canonical/") + pg::bench::name(kind) + "/" + pg::name(alg)).c_str(),
                [kind, alg](benchmark::State& st) { BM_Canonical(st, kind, alg); })
                ->Arg(512)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
}

const bool registered = (register_all(), true);

}  // namespace
