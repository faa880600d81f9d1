// The hand-written baselines' own speed: for every baseline at 512², 1024² and 2048², ms per
// iteration as (time of 220 iterations - time of 20) / 200 (so set-up cancels; each the least
// disturbed of the benchmark's repetitions), the bytes an iteration must move
// (Baseline::bytes_per_iteration), the GB/s that makes and its fraction of the machine's memory
// bandwidth, measured first by a STREAM triad on 2 threads. Ends with the process's peak RSS.
// Run: build/bench/proxgen_bench_baseline   (add --benchmark_filter=pc_ for a subset)
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "baseline.hpp"
#include "bench_measure.hpp"

namespace pb = proxgen::bench;

namespace {

double g_triad_gbs = 0;

struct Config {
    pb::BaselineAlgorithm algorithm;
    bool deconvolution;
    int per_call;
};

/// A smooth test image with noise (the timings do not depend on the data; the iterates stay finite).
Halide::Runtime::Buffer<float> test_image(int N) {
    Halide::Runtime::Buffer<float> b(N, N);
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) {
            const float u = float(i) / float(N), v = float(j) / float(N);
            b(i, j) = 0.5f + 0.3f * std::sin(9 * u) * std::cos(7 * v) + 0.05f * float((i * 7919 + j * 104729) % 17 - 8) / 8;
        }
    return b;
}

Halide::Runtime::Buffer<float> gaussian_9x9() {
    Halide::Runtime::Buffer<float> k(9, 9);
    float s = 0;
    for (int q = 0; q < 9; ++q)
        for (int p = 0; p < 9; ++p) s += k(p, q) = std::exp(-float((p - 4) * (p - 4) + (q - 4) * (q - 4)) / 8.0f);
    for (int q = 0; q < 9; ++q)
        for (int p = 0; p < 9; ++p) k(p, q) /= s;
    return k;
}

void BM_Baseline(benchmark::State& state, Config c) {
    const int N = int(state.range(0));
    const Halide::Runtime::Buffer<float> b = test_image(N), kernel = gaussian_9x9();
    pb::TVProblem problem;
    problem.b = b;
    if (c.deconvolution) problem.kernel = kernel;
    problem.alpha = c.deconvolution ? 0.002f : 0.1f;
    pb::Steps steps;
    steps.tau = steps.sigma = float(1 / std::sqrt(8.0));
    if (c.deconvolution) steps.tau = 0.5f, steps.sigma = 1.0f / (0.5f * 9.0f);
    steps.lambda = 1.0f, steps.mu = 1.0f / 8, steps.rho = 1.0f;
    auto bl = pb::make_baseline(c.algorithm, problem, steps, c.per_call);
    bl->run(20);  // warm: pages touched, threads started
    double best = 1e300;
    for (auto _ : state) {
        const double ms = pb::ms_per_iteration([&](int n) { bl->run(n); }, 20, 220, 1);
        state.SetIterationTime(ms / 1e3);
        best = std::min(best, ms);
    }
    const double bytes = bl->bytes_per_iteration();
    state.counters["ms_per_iter"] = best;
    state.counters["MB_per_iter"] = bytes / 1e6;
    state.counters["GB_per_s"] = bytes / best / 1e6;
    state.counters["of_triad"] = bytes / best / 1e6 / g_triad_gbs;
    state.counters["triad_GB_per_s"] = g_triad_gbs;
    state.SetLabel(bl->name());
}

void register_all() {
    const struct {
        const char* name;
        Config config;
    } all[] = {
        {"pc_denoise", {pb::BaselineAlgorithm::pock_chambolle, false, 1}},
        {"ladmm_denoise", {pb::BaselineAlgorithm::ladmm, false, 1}},
        {"pc_denoise_x4", {pb::BaselineAlgorithm::pock_chambolle, false, 4}},
        {"ladmm_denoise_x4", {pb::BaselineAlgorithm::ladmm, false, 4}},
        {"pc_deconv", {pb::BaselineAlgorithm::pock_chambolle, true, 1}},
        {"admm_denoise", {pb::BaselineAlgorithm::admm, false, 1}},
        {"hqs_denoise", {pb::BaselineAlgorithm::hqs, false, 1}},
        {"admm_deconv", {pb::BaselineAlgorithm::admm, true, 1}},
        {"hqs_deconv", {pb::BaselineAlgorithm::hqs, true, 1}},
    };
    for (const auto& b : all)
        benchmark::RegisterBenchmark(b.name, BM_Baseline, b.config)
            ->Arg(512)
            ->Arg(1024)
            ->Arg(2048)
            ->Iterations(3)
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
    // Keep freed memory in the process: fresh pages cost ~13 us each on this VM.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    benchmark::Initialize(&argc, argv);
    g_triad_gbs = pb::triad_bandwidth_gbs(2);
    std::printf("STREAM triad, 2 threads: %.1f GB/s\n", g_triad_gbs);
    register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    std::printf("peak RSS: %.1f MB\n", double(pb::peak_rss_bytes()) / 1e6);
}
