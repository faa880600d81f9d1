// One iteration of TV denoising, ProxGen (pg::solve, JIT) against the same iteration written by
// hand in Halide (handwritten_tv.cpp), in the same run: Pock–Chambolle and linearized ADMM at 512²
// and 1024². Each benchmark reports ms/iteration for both and their ratio (proxgen / handwritten).
//
// ProxGen's time per iteration is Result::solve_seconds / iterations of a 50-iteration solve (JIT
// cached beforehand): it includes the per-solve set-up (state buffers, one residual check at the
// end), amortized over the 50 iterations, which the hand-written loop does not have.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <chrono>
#include <cmath>

#include <proxgen/proxgen.hpp>

#include "handwritten_tv.hpp"
#include "reference_problems.hpp"

namespace pg = proxgen;

namespace {

constexpr int kIters = 50;
constexpr float kAlpha = 0.1f;

double handwritten_ms(pg::bench::HandwrittenTV& hw, pg::Algorithm alg) {
    const float step = 1.0f / std::sqrt(8.0f);
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < kIters; ++k) {
        if (alg == pg::Algorithm::pock_chambolle) hw.pc_iteration(step, step, 1.0f);
        else hw.ladmm_iteration(step, step / 8.0f);
    }
    return 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kIters;
}

void BM_TVDenoiseIteration(benchmark::State& state, pg::Algorithm alg) {
    const int W = int(state.range(0));
    const pg::Image b = pg::reference::make_denoise(W).b;
    auto x = pg::variable(W, W);
    auto prob = pg::sum_squares(x - b) + kAlpha * pg::group_norm1(pg::grad(x));
    pg::Options opt;
    opt.algorithm = alg;
    opt.max_iters = kIters;
    opt.eps_abs = opt.eps_rel = 0;
    opt.check_every = kIters;
    // same step sizes as the hand-written loop, so both do the same arithmetic
    if (alg == pg::Algorithm::pock_chambolle) opt.tau = opt.sigma = 1 / std::sqrt(8.0), opt.accelerate = false;
    else opt.lambda = 1 / std::sqrt(8.0), opt.mu = opt.lambda / 8;
    pg::bench::HandwrittenTV hw(b.buffer(), kAlpha);
    pg::solve(prob, opt);  // JIT compile + warm up
    handwritten_ms(hw, alg);
    double proxgen_total = 0, handwritten_total = 0;
    int rounds = 0;
    for (auto _ : state) {
        const pg::Result r = pg::solve(prob, opt);
        const double ms = 1e3 * r.solve_seconds / r.iterations;
        state.SetIterationTime(ms / 1e3);
        proxgen_total += ms;
        handwritten_total += handwritten_ms(hw, alg);
        ++rounds;
    }
    state.counters["proxgen_ms"] = proxgen_total / rounds;
    state.counters["handwritten_ms"] = handwritten_total / rounds;
    state.counters["ratio"] = proxgen_total / handwritten_total;
}

}  // namespace

BENCHMARK_CAPTURE(BM_TVDenoiseIteration, pock_chambolle, pg::Algorithm::pock_chambolle)
    ->Arg(512)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK_CAPTURE(BM_TVDenoiseIteration, ladmm, pg::Algorithm::ladmm)
    ->Arg(512)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(10);

int main(int argc, char** argv) {
    // Fresh pages are slow to touch on this VM: keep freed memory in the process.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
