// The ahead-of-time FFT (generated Halide passes + proxgen/aot/fft.hpp) against FFTW at 512² and
// 1024²: a forward + inverse real 2-D transform per iteration (fft_pair), and the spectral
// x-update's shape (gram_solve: forward, multiply by a real gain, inverse; our gain is fused into
// the inverse's first pass, FFTW's is a loop of its own). FFTW: single precision, FFTW_MEASURE
// plans, 2 threads from 128² on (as the solvers' baselines). gram_solve/jit is the JIT's own
// x-update, spectral::GramSolver::solve for (KᵀK + ρI) x = rhs with a 9x9 kernel (FFTW_ESTIMATE
// plans, src/solve/spectral.cpp). Halide: the library generated for the host (tests/aot), its
// thread pool (one thread per core).
//
// The runs are interleaved (random interleaving of repetitions, on by default here) because the
// machine is shared: each pair of medians saw the same load. At the end a table prints both
// medians and their ratio per size. Extra arguments go to Google Benchmark.
#include <benchmark/benchmark.h>
#include <fftw3.h>

#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <proxgen/typed/to_ir.hpp>
#include <proxgen/proxgen.hpp>

#include "pgfft.h"
#include "solve/spectral.hpp"

namespace {

namespace fft = proxgen::aot::fft;
using Buffer = Halide::Runtime::Buffer<float>;

Buffer random_image(int w, int h) {
    std::mt19937 g(3);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    Buffer b(w, h);
    b.for_each_value([&](float& v) { v = u(g); });
    return b;
}

struct Halide2D {
    fft::Plan plan;
    Buffer img, spec, back, gain;
    explicit Halide2D(int n) : img(random_image(n, n)), spec(2, n, n / 2 + 1), back(n, n), gain(n, n / 2 + 1) {
        if (plan.init(pgfft_kernels(), n, n) != proxgen::aot::Status::ok) throw std::runtime_error(plan.last_error());
        gain.fill(1.0f / (float(n) * float(n)));
    }
    void pair() {
        plan.forward(img, spec);
        plan.inverse(spec, back, 1.0f / float(img.number_of_elements()));
    }
    void solve() {
        plan.forward(img, spec);
        plan.inverse(spec, back, 1.0f, &gain);
    }
};

struct Fftw2D {
    int n;
    float *img, *back, *gain;
    fftwf_complex* spec;
    fftwf_plan fwd, inv;
    explicit Fftw2D(int n_) : n(n_) {
        const std::size_t half = std::size_t(n) * (n / 2 + 1);
        img = fftwf_alloc_real(std::size_t(n) * n);
        back = fftwf_alloc_real(std::size_t(n) * n);
        gain = fftwf_alloc_real(half);
        spec = fftwf_alloc_complex(half);
        fftwf_plan_with_nthreads(n * n >= 128 * 128 ? 2 : 1);
        // FFTW_MEASURE overwrites the arrays while planning: fill them afterwards
        fwd = fftwf_plan_dft_r2c_2d(n, n, img, spec, FFTW_MEASURE);
        inv = fftwf_plan_dft_c2r_2d(n, n, spec, back, FFTW_MEASURE);
        const Buffer r = random_image(n, n);
        std::copy(r.data(), r.data() + std::size_t(n) * n, img);
        std::fill(gain, gain + half, 1.0f / (float(n) * float(n)));
    }
    ~Fftw2D() {
        fftwf_destroy_plan(fwd);
        fftwf_destroy_plan(inv);
        fftwf_free(img);
        fftwf_free(back);
        fftwf_free(gain);
        fftwf_free(spec);
    }
    void pair() {
        fftwf_execute(fwd);
        const std::size_t half = std::size_t(n) * (n / 2 + 1);
        const float s = 1.0f / (float(n) * float(n));
        for (std::size_t i = 0; i < half; ++i) spec[i][0] *= s, spec[i][1] *= s;
        fftwf_execute(inv);
    }
    void solve() {
        fftwf_execute(fwd);
        const std::size_t half = std::size_t(n) * (n / 2 + 1);
        for (std::size_t i = 0; i < half; ++i) spec[i][0] *= gain[i], spec[i][1] *= gain[i];
        fftwf_execute(inv);
    }
};

struct Jit2D {
    proxgen::spectral::GramSolver solver;
    proxgen::Image rhs, x;
    explicit Jit2D(int n) : solver(proxgen::spectral::Basis::fft, {n, n}), rhs(n, n), x(n, n) {
        proxgen::Image k(9, 9);
        for (std::size_t i = 0; i < k.size(); ++i) k.data()[i] = 1.0f / 81;
        auto v = proxgen::variable(n, n);
        solver.add_term(proxgen::typed::to_ir(proxgen::conv(k, v)), 1.0);
        solver.add_identity(0.05);
        solver.finalize();
        const Buffer r = random_image(n, n);
        std::copy(r.data(), r.data() + std::size_t(n) * n, rhs.data());
    }
    void solve() { solver.solve(rhs, x); }
    void pair() { solve(); }
};

// One instance per size and library, built before timing (FFTW_MEASURE plans take seconds).
template <class T>
T& instance(int n) {
    static std::map<int, std::unique_ptr<T>> made;
    auto& p = made[n];
    if (!p) p = std::make_unique<T>(n);
    return *p;
}

template <class T, bool Solve>
void BM_transform(benchmark::State& state) {
    T& t = instance<T>(int(state.range(0)));
    for (int i = 0; i < 3; ++i) Solve ? t.solve() : t.pair();  // warm caches and thread pools
    for (auto _ : state) {
        if constexpr (Solve) t.solve();
        else t.pair();
        benchmark::ClobberMemory();
    }
}

BENCHMARK(BM_transform<Halide2D, false>)->Name("fft_pair/halide")->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_transform<Fftw2D, false>)->Name("fft_pair/fftw")->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_transform<Halide2D, true>)->Name("gram_solve/halide")->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_transform<Fftw2D, true>)->Name("gram_solve/fftw")->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_transform<Jit2D, true>)->Name("gram_solve/jit")->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

/// Keeps the median real time of every benchmark for the ratio table.
class Collect : public benchmark::ConsoleReporter {
public:
    std::map<std::string, double> median_ms;
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& r : runs)
            if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median")
                median_ms[r.run_name.str()] = r.GetAdjustedRealTime();
        ConsoleReporter::ReportRuns(runs);
    }
};

}  // namespace

int main(int argc, char** argv) {
    fftwf_init_threads();
    std::vector<char*> args(argv, argv + argc);
    std::string reps = "--benchmark_repetitions=12", inter = "--benchmark_enable_random_interleaving=true",
                agg = "--benchmark_report_aggregates_only=true", min_time = "--benchmark_min_time=0.2";
    bool user_reps = false;
    for (int i = 1; i < argc; ++i) user_reps |= std::string(argv[i]).rfind("--benchmark_repetitions", 0) == 0;
    if (!user_reps) args.insert(args.begin() + 1, {reps.data(), inter.data(), agg.data(), min_time.data()});
    int n = int(args.size());
    benchmark::Initialize(&n, args.data());
    Collect reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    std::printf("\nmedians (ms) and ratios Halide / other:\n");
    auto median = [&](const std::string& what, const char* who, int size) {
        const auto m = reporter.median_ms.find(what + "/" + who + "/" + std::to_string(size) + "/real_time");
        return m == reporter.median_ms.end() ? -1.0 : m->second;
    };
    for (const char* what : {"fft_pair", "gram_solve"})
        for (int size : {512, 1024}) {
            const double h = median(what, "halide", size), f = median(what, "fftw", size), j = median(what, "jit", size);
            if (h < 0 || f < 0) continue;
            std::printf("  %-10s %4d²: Halide %.3f  FFTW_MEASURE %.3f (ratio %.2f)", what, size, h, f, h / f);
            if (j > 0) std::printf("  JIT x-update %.3f (ratio %.2f)", j, h / j);
            std::printf("\n");
        }
    benchmark::Shutdown();
    return 0;
}
