// Google Benchmark for the spectral x-update (src/solve/spectral.*): one GramSolver::solve — forward
// transform, pointwise division by the Gram diagonal, inverse transform — per benchmark iteration,
// at 512^2 and 1024^2, in the DFT basis (I + ρ ∇ᵀ∇, periodic) and the DCT basis (I + ρ ∇ᵀ∇,
// Neumann), after warm-up (plans are created and work arrays touched before timing). Time is
// wall-clock (FFTW may use 2 threads). BM_SpectralSetup times building a solver (the Gram diagonal,
// its inverse; the plans are already cached by then).
#include <benchmark/benchmark.h>

#include <random>

#include "../src/solve/spectral.hpp"
#include "proxgen/catalogue/all.hpp"

namespace {

namespace sp = proxgen::spectral;
using proxgen::Image;
using proxgen::ir::Node;
namespace ops = proxgen::catalogue::ops;

constexpr int kWarmup = 3;

/// grad(x) on an n × n variable, built directly as IR (no DSL needed).
Node grad_of_variable(int n, bool periodic) {
    return ops::grad::make(ops::variable::make(0, "x", {n, n}), {0, 1}, periodic);
}

sp::GramSolver make_solver(sp::Basis basis, int n) {
    sp::GramSolver s(basis, {n, n});
    s.add_identity(1.0);
    s.add_term(grad_of_variable(n, basis == sp::Basis::fft), 0.5);
    s.finalize();
    return s;
}

Image random_rhs(int n) {
    Image rhs(n, n);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (std::size_t i = 0; i < rhs.size(); ++i) rhs.data()[i] = u(rng);
    return rhs;
}

void BM_SpectralSolve(benchmark::State& state, sp::Basis basis) {
    const int n = static_cast<int>(state.range(0));
    const sp::GramSolver s = make_solver(basis, n);
    const Image rhs = random_rhs(n);
    Image x(n, n);
    for (int k = 0; k < kWarmup; ++k) s.solve(rhs, x);
    for (auto _ : state) {
        s.solve(rhs, x);
        benchmark::DoNotOptimize(x.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * int64_t(n) * n);
}

void BM_SpectralSetup(benchmark::State& state, sp::Basis basis) {
    const int n = static_cast<int>(state.range(0));
    make_solver(basis, n);  // plans cached
    for (auto _ : state) {
        sp::GramSolver s = make_solver(basis, n);
        benchmark::DoNotOptimize(s.min_eigenvalue());
    }
}

BENCHMARK_CAPTURE(BM_SpectralSolve, fft, sp::Basis::fft)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SpectralSolve, dct, sp::Basis::dct)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SpectralSetup, fft, sp::Basis::fft)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SpectralSetup, dct, sp::Basis::dct)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
