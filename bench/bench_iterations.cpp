// ms per iteration of the generated solver as a user gets it — pg::solve with default options
// (residual checks every check_every, adaptive or accelerated steps, automatic iterations per
// call) — against the hand-written Halide baseline of the same iteration, in one run:
//   PC and L-ADMM TV denoising, PC TV deconvolution (+ nonneg), at 512², 1024², 2048²; ADMM and
//   HQS denoising at the same sizes and their deconvolution at 512².
// A time per iteration is (time of 220 iterations − time of 20) / 200, so compilation, set-up
// and the first residual checks cancel; both solves run to max_iters (tolerances 0: the checks
// still run, the steps still adapt). ProxGen and the baseline alternate within every repetition
// (interleaved: machine load hits both alike); each column is the median over the repetitions.
//
// Rows: `proxgen` (default options), `proxgen_n1` (Options::iterations_per_call = 1: one
// iteration per kernel call), `baseline` (the hand-written fused iteration, one per call) and,
// for denoising, `baseline_x4` (4 iterations per call). Counters: ms per iteration of each and
// ratio = proxgen / baseline (bound, docs/performance.md: ≤ 1.25), fused = proxgen / baseline
// at 2048² where fusion is automatic (bound: ≤ 0.6).
//
// Run: build/bench/proxgen_bench --benchmark_filter=Iteration   (PROXGEN_BENCH_REPS=n, default 5)
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include <proxgen/proxgen.hpp>

#include "canonical_problems.hpp"

#if __has_include("baseline.hpp")
#include "baseline.hpp"
#define PROXGEN_HAVE_BASELINE 1
#else
#include "handwritten_tv.hpp"
#define PROXGEN_HAVE_BASELINE 0
#endif

namespace pg = proxgen;
using pg::bench::Canonical;

namespace {

constexpr int kShort = 20, kLong = 220;

using Clock = std::chrono::steady_clock;

double seconds(const std::function<void()>& f) {
    const auto t0 = Clock::now();
    f();
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

int repetitions() {
    const char* r = std::getenv("PROXGEN_BENCH_REPS");
    return r ? std::max(1, std::atoi(r)) : 5;
}

/// A hand-written iteration: runs n iterations from its initial state.
struct Baseline {
    std::function<void(int)> run_from_start;
    std::function<double()> cg_steps_per_iteration;  // of the last run
    explicit operator bool() const { return bool(run_from_start); }
};

#if PROXGEN_HAVE_BASELINE
Baseline make_baseline(Canonical kind, pg::Algorithm alg, int W, int per_call) {
    namespace hb = pg::bench;
    const auto b = kind == Canonical::denoise ? pg::reference::make_denoise(W).b : pg::reference::make_deconv(W).b;
    const pg::Image k = kind == Canonical::denoise ? pg::Image() : pg::reference::make_deconv(W).kernel;
    hb::TVProblem prob;
    prob.b = b.buffer();
    if (!k.empty()) prob.kernel = k.buffer();
    prob.alpha = kind == Canonical::denoise ? pg::bench::kDenoiseTV : pg::bench::kDeconvTV;
    hb::Steps s;
    s.tau = s.sigma = 1 / std::sqrt(8.0f);
    s.lambda = 1 / std::sqrt(8.0f);
    s.mu = s.lambda / 8;
    s.rho = 1;  // ADMM / HQS: the per-iteration work of the DCT solve does not depend on rho (CG's does)
    const auto a = alg == pg::Algorithm::pock_chambolle ? hb::BaselineAlgorithm::pock_chambolle
                   : alg == pg::Algorithm::ladmm        ? hb::BaselineAlgorithm::ladmm
                   : alg == pg::Algorithm::admm         ? hb::BaselineAlgorithm::admm
                                                        : hb::BaselineAlgorithm::hqs;
    std::shared_ptr<hb::Baseline> base;
    try {
        base = hb::make_baseline(a, prob, s, per_call);
    } catch (const std::invalid_argument&) {
        return {};
    }
    return {[base](int n) {
                base->reset();
                base->run(n);
            },
            [base] { return base->cg_steps_per_iteration(); }};
}
#else
// Until bench/baselines/baseline.hpp lands: the older hand-written TV iterations (denoising only, one per call).
Baseline make_baseline(Canonical kind, pg::Algorithm alg, int W, int per_call) {
    if (kind != Canonical::denoise || per_call != 1) return {};
    auto hw = std::make_shared<pg::bench::HandwrittenTV>(pg::reference::make_denoise(W).b.buffer(),
                                                         pg::bench::kDenoiseTV);
    const float step = 1.0f / std::sqrt(8.0f);
    return {[hw, alg, step](int n) {
                hw->reset();
                for (int i = 0; i < n; ++i) {
                    if (alg == pg::Algorithm::pock_chambolle) hw->pc_iteration(step, step, 1.0f);
                    else hw->ladmm_iteration(step, step / 8.0f);
                }
            },
            [] { return 0.0; }};
}
#endif

/// ms per iteration from one (short, long) pair of runs.
double per_iteration_ms(const std::function<void(int)>& run) {
    const double t_short = seconds([&] { run(kShort); });
    const double t_long = seconds([&] { run(kLong); });
    return 1e3 * (t_long - t_short) / (kLong - kShort);
}

void BM_Iteration(benchmark::State& state, Canonical kind, pg::Algorithm alg) {
    const int W = int(state.range(0));
    pg::bench::with_problem(kind, W, [&](const auto& prob, const auto&, const pg::Image& start) {
        double cg_per_iteration = 0;  // ProxGen's, in its last run
        auto solver = [&](int per_call) {
            return [&, per_call](int n) {
                pg::Options opt;
                opt.algorithm = alg;
                opt.max_iters = n;
                opt.eps_abs = opt.eps_rel = 0;  // run n iterations; checks and step adaptation as by default
                opt.iterations_per_call = per_call;
                opt.x0 = start;
                const pg::Result r = pg::solve(prob, opt);
                cg_per_iteration = r.iterations > 0 ? double(r.cg_iterations) / r.iterations : 0.0;
            };
        };
        const auto proxgen = solver(0), proxgen_n1 = solver(1);
        const Baseline base = make_baseline(kind, alg, W, 1), base4 = make_baseline(kind, alg, W, 4);
        proxgen(kShort);  // compile (or load) the kernels, touch the pages
        proxgen_n1(kShort);
        if (base) base.run_from_start(kShort);
        if (base4) base4.run_from_start(kShort);
        std::vector<double> pg_ms, pg1_ms, hw_ms, hw4_ms;
        for (auto _ : state) {
            for (int r = 0, reps = repetitions(); r < reps; ++r) {
                pg_ms.push_back(per_iteration_ms(proxgen));
                if (base) hw_ms.push_back(per_iteration_ms(base.run_from_start));
                pg1_ms.push_back(per_iteration_ms(proxgen_n1));
                if (base4) hw4_ms.push_back(per_iteration_ms(base4.run_from_start));
            }
            state.SetIterationTime(median(pg_ms) / 1e3);
        }
        state.counters["proxgen_ms"] = median(pg_ms);
        if (cg_per_iteration > 0) {  // CG x-updates: steps per iteration over kLong iterations, both sides
            state.counters["proxgen_cg_steps"] = cg_per_iteration;
            if (base) state.counters["baseline_cg_steps"] = base.cg_steps_per_iteration();
        }
        state.counters["proxgen_n1_ms"] = median(pg1_ms);
        if (base) {
            state.counters["baseline_ms"] = median(hw_ms);
            state.counters["ratio"] = median(pg_ms) / median(hw_ms);
            state.counters["ratio_n1"] = median(pg1_ms) / median(hw_ms);
        }
        if (base4) {
            state.counters["baseline_x4_ms"] = median(hw4_ms);
            state.counters["ratio_vs_x4"] = median(pg_ms) / median(hw4_ms);
        }
        return 0;
    });
}

void sizes_once(benchmark::internal::Benchmark* b) {
    b->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
}

void sizes(benchmark::internal::Benchmark* b) { sizes_once(b->Arg(512)->Arg(1024)->Arg(2048)); }

}  // namespace

BENCHMARK_CAPTURE(BM_Iteration, pc_denoise, Canonical::denoise, pg::Algorithm::pock_chambolle)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Iteration, ladmm_denoise, Canonical::denoise, pg::Algorithm::ladmm)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Iteration, pc_deconv, Canonical::deconv, pg::Algorithm::pock_chambolle)->Apply(sizes);
// ADMM and HQS (bound: 1.5x the hand-written iteration): denoising by the exact DCT
// x-update; deconvolution by preconditioned CG, whose inner iteration count depends on rho
// (ProxGen adapts it, the baseline keeps rho = 1), so its ratio mixes speed and CG steps.
BENCHMARK_CAPTURE(BM_Iteration, admm_denoise, Canonical::denoise, pg::Algorithm::admm)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Iteration, hqs_denoise, Canonical::denoise, pg::Algorithm::hqs)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Iteration, admm_deconv, Canonical::deconv, pg::Algorithm::admm)->Arg(512)->Apply(sizes_once);
BENCHMARK_CAPTURE(BM_Iteration, hqs_deconv, Canonical::deconv, pg::Algorithm::hqs)->Arg(512)->Apply(sizes_once);

int main(int argc, char** argv) {
    // Fresh pages are slow to touch on this VM: keep freed memory in the process.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
