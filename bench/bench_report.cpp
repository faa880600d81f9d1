// The speed and memory numbers of docs/performance.md that are not ratios against a baseline, in one run:
//   compile   first-solve JIT time per algorithm on the canonical 512² deconvolution (an empty
//             on-disk cache), then the time to load the same kernels from the disk cache
//   deconv    ms per iteration of every algorithm on the 512² deconvolution ((t220 − t20) / 200,
//             default options) against their bounds (100× ProxImaL's NumPy backend)
//   memory    peak RSS of a 4096² TV denoise against the bytes of its state, per algorithm (each in a
//             process of its own)
// Run: build/bench/proxgen_bench_report [--skip-memory | --memory-only [ALGORITHM]]
//      (--memory-only alone: Pock–Chambolle; ALGORITHM as pg::name spells it: admm, pock_chambolle, ...)
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "canonical_problems.hpp"
#include "proxgen/benchmark.hpp"
#include "proxgen/proxgen.hpp"

namespace pg = proxgen;
namespace pgb = proxgen::benchmark;

namespace {

constexpr pg::Algorithm kAlgorithms[] = {pg::Algorithm::admm, pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm,
                                         pg::Algorithm::hqs};

/// The per-iteration bounds on the 512² deconvolution (100× ProxImaL's NumPy backend).
double bound_ms(pg::Algorithm a) {
    switch (a) {
    case pg::Algorithm::admm: return 5.5;
    case pg::Algorithm::pock_chambolle: return 1.17;
    case pg::Algorithm::ladmm: return 1.37;
    case pg::Algorithm::hqs: return 5.5;
    }
    return 0;
}

pg::Options fixed(pg::Algorithm a, int iterations) {
    pg::Options o;
    o.algorithm = a;
    o.max_iters = iterations;
    o.eps_abs = o.eps_rel = 0;
    return o;
}

/// Solves the 512² deconvolution once per algorithm, printing what each first solve compiled or
/// loaded from the on-disk cache and how long that took.
void first_solves(const char* title) {
    std::printf("\n== %s\n", title);
    std::printf("   %-15s %10s %10s %10s %14s\n", "algorithm", "compiled", "compile s", "loaded", "disk load ms");
    pg::bench::with_problem(pg::bench::Canonical::deconv, 512, [&](const auto& prob, auto&, const pg::Image&) {
        for (pg::Algorithm a : kAlgorithms) {
            const pg::JitStats s0 = pg::jit_stats();
            pg::solve(prob, fixed(a, 1));
            const pg::JitStats s1 = pg::jit_stats();
            std::printf("   %-15s %10d %10.2f %10d %14.1f\n", pg::name(a), s1.pipelines_compiled - s0.pipelines_compiled,
                        s1.compile_seconds - s0.compile_seconds, s1.disk_loads - s0.disk_loads,
                        1e3 * (s1.disk_load_seconds - s0.disk_load_seconds));
        }
        return 0;
    });
    std::fflush(stdout);
}

void deconv_iterations() {
    std::printf("\n== the 512² deconvolution, ms per iteration (default options, (t220 - t20) / 200)\n");
    std::printf("   %-15s %10s %10s %8s\n", "algorithm", "ms/iter", "bound", "holds");
    pg::bench::with_problem(pg::bench::Canonical::deconv, 512, [&](const auto& prob, auto&, const pg::Image&) {
        for (pg::Algorithm a : kAlgorithms) {
            pg::solve(prob, fixed(a, 1));  // compiled or loaded before timing
            const double ms = pgb::ms_per_iteration([&](int n) { pg::solve(prob, fixed(a, n)); });
            std::printf("   %-15s %10.3f %10.2f %8s\n", pg::name(a), ms, bound_ms(a), ms <= bound_ms(a) ? "yes" : "NO");
        }
        return 0;
    });
}

void memory(pg::Algorithm a) {
    std::printf("\n== memory: a 4096² TV denoise by %s, 20 iterations\n", pg::name(a));
    const int W = 4096;
    pg::Image b(W, W);
    for (int y = 0; y < W; ++y)
        for (int x = 0; x < W; ++x) b(x, y) = float((x * 7 + y * 13) % 29) / 29.0f;
    auto x = pg::variable(W, W);
    auto prob = pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x));
    {  // the same structure at 64²: its kernels compiled (LLVM's memory) before the peak is reset
        pg::Image small(64, 64);
        auto xs = pg::variable(64, 64);
        pg::solve(pg::sum_squares(xs - small) + 0.1f * pg::group_norm1(pg::grad(xs)), fixed(a, 20));
    }
    if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {  // "5": reset VmHWM to the current RSS
        std::fputs("5", f);
        std::fclose(f);
    }
    const double before = double(pgb::peak_rss_bytes());
    pg::solve(prob, fixed(a, 20));
    const double peak = double(pgb::peak_rss_bytes());
    const double state = pgb::state_bytes(prob, a);
    const double data = 4.0 * W * W;
    std::printf("   peak RSS %.0f MB (before the solve %.0f MB, of which the data b %.0f MB); state %.0f MB\n"
                "   (peak - before) / state = %.2f, peak / (state + data) = %.2f (bound 1.5)\n",
                peak / 1e6, before / 1e6, data / 1e6, state / 1e6, (peak - before) / state, peak / (state + data));
}

}  // namespace

int main(int argc, char** argv) {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    if (argc > 1 && std::strcmp(argv[1], "--second-process") == 0) {  // PROXGEN_CACHE_DIR inherited
        first_solves("a second process, the same disk cache");
        return 0;
    }
    bool with_memory = true;
    for (int i = 1; i < argc; ++i) with_memory = with_memory && std::strcmp(argv[i], "--skip-memory") != 0;
    if (argc > 1 && std::strcmp(argv[1], "--memory-only") == 0) {  // a process that holds nothing else
        pg::Algorithm a = pg::Algorithm::pock_chambolle;
        if (argc > 2) {
            const auto* named = std::find_if(std::begin(kAlgorithms), std::end(kAlgorithms),
                                             [&](pg::Algorithm k) { return std::strcmp(pg::name(k), argv[2]) == 0; });
            if (named == std::end(kAlgorithms)) {
                std::fprintf(stderr, "unknown algorithm '%s' (", argv[2]);
                for (pg::Algorithm k : kAlgorithms) std::fprintf(stderr, " %s", pg::name(k));
                std::fprintf(stderr, " )\n");
                return 2;
            }
            a = *named;
        }
        memory(a);
        return 0;
    }
    // A fresh on-disk cache, so that the first solves compile as on a new machine.
    char dir[] = "/tmp/proxgen-bench-cache.XXXXXX";
    if (mkdtemp(dir) == nullptr) return 1;
    setenv("PROXGEN_CACHE_DIR", dir, 1);
    std::printf("STREAM triad: %.1f GB/s; load average at the start: ", pgb::machine_bandwidth_gbs());
    std::fflush(stdout);
    if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
        char line[64] = {};
        if (std::fgets(line, sizeof line, f)) std::printf("%s", line);
        std::fclose(f);
    }
    std::printf("disk cache: %s\n", pg::jit_disk_cache().c_str());
    first_solves("compile once per machine: the 512² deconvolution, first solve per algorithm, empty disk cache");
    const std::string again = std::string("'") + argv[0] + "' --second-process";
    if (std::system(again.c_str()) != 0) std::printf("   the second process failed\n");
    deconv_iterations();
    // Each in a process of its own: this one keeps the memory of the solves above (the malloc thresholds).
    for (pg::Algorithm a : kAlgorithms) {
        if (!with_memory) break;
        const std::string memory_run = std::string("'") + argv[0] + "' --memory-only " + pg::name(a);
        std::fflush(stdout);
        if (std::system(memory_run.c_str()) != 0) std::printf("   the memory process failed\n");
    }
    std::filesystem::remove_all(dir);
}
