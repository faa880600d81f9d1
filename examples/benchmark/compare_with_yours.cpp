// Your kernel beside ProxGen's, in one Google Benchmark binary: proxgen/benchmark.hpp
// registers pg::solve of a problem (as a user runs it: default options, residual checks, adaptive
// steps) and, beside it, the project's hand-written fused Halide iteration of the same algorithm
// (bench/baselines/baseline.hpp — put your own kernel there). Both report ms per iteration, the bytes an
// iteration must move, GB/s and the fraction of the memory bandwidth measured in this process.
// Runs interleaved (Google Benchmark's random interleaving, 3 repetitions) so that a machine whose
// speed drifts affects both alike, then prints ProxGen's time over the hand-written one per row.
//   build/bench/proxgen_compare_with_yours [--benchmark_filter=512]
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "baseline.hpp"
#include "proxgen/google_benchmark.hpp"
#include "proxgen/proxgen.hpp"
#include "reference_problems.hpp"

namespace pg = proxgen;
namespace pb = proxgen::bench;

namespace {

/// The hand-written iteration as a run(n) the benchmark header can time. Kept alive by the
/// registered benchmark (shared_ptr), compiled on first use.
std::function<void(int)> handwritten(pb::BaselineAlgorithm a, pg::Image b, pg::Image k) {
    auto state = std::make_shared<std::unique_ptr<pb::Baseline>>();
    return [=](int n) {
        if (!*state) {
            pb::TVProblem problem;
            problem.b = b.buffer();
            if (!k.empty()) problem.kernel = k.buffer();
            problem.alpha = k.empty() ? 0.1f : 0.002f;
            pb::Steps steps;
            steps.tau = steps.sigma = float(1 / std::sqrt(8.0));
            if (!k.empty()) steps.tau = 0.5f, steps.sigma = 1.0f / (0.5f * 9.0f);
            steps.lambda = 1.0f, steps.mu = 1.0f / 8;
            *state = pb::make_baseline(a, problem, steps);
        }
        (*state)->run(n);
    };
}

void register_size(int N) {
    const std::string size = std::to_string(N);
    // the project's reference problems: a smooth test image with noise, its 9x9 Gaussian blur
    const pg::Image b = pg::reference::make_denoise(N).b;
    const auto blurred = pg::reference::make_deconv(N);
    const pg::Image& k = blurred.kernel;
    auto x = pg::variable(N, N);
    auto denoise = pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x));
    auto deconv = pg::sum_squares(pg::conv(k, x) - blurred.b) + 0.002f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    pg::Options pc, ladmm;
    ladmm.algorithm = pg::Algorithm::ladmm;
    const double pc_bytes = pg::benchmark::iteration_bytes(denoise, pg::Algorithm::pock_chambolle);
    const double ladmm_bytes = pg::benchmark::iteration_bytes(denoise, pg::Algorithm::ladmm);

    pg::benchmark::register_solve("pc_denoise/" + size + "/proxgen", denoise, pc);
    pg::benchmark::register_iteration("pc_denoise/" + size + "/handwritten",
                                      handwritten(pb::BaselineAlgorithm::pock_chambolle, b, {}), pc_bytes);
    pg::benchmark::register_solve("ladmm_denoise/" + size + "/proxgen", denoise, ladmm);
    pg::benchmark::register_iteration("ladmm_denoise/" + size + "/handwritten",
                                      handwritten(pb::BaselineAlgorithm::ladmm, b, {}), ladmm_bytes);
    if (N <= 1024) {  // the deconvolution at 2048² takes minutes per repetition here
        pg::benchmark::register_solve("pc_deconv/" + size + "/proxgen", deconv, pc);
        pg::benchmark::register_iteration(
            "pc_deconv/" + size + "/handwritten", handwritten(pb::BaselineAlgorithm::pock_chambolle, blurred.b, k),
            pg::benchmark::iteration_bytes(deconv, pg::Algorithm::pock_chambolle));
    }
}

/// Collects every run's ms per iteration (the least of the repetitions) to print the ratios.
class RatioReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& r : runs) {
            if (r.run_type != Run::RT_Iteration) continue;
            const std::string name = r.benchmark_name();
            const double ms = r.GetAdjustedRealTime();  // manual time, in the benchmark's unit (ms)
            auto [it, fresh] = best_.emplace(name, ms);
            if (!fresh) it->second = std::min(it->second, ms);
        }
        ConsoleReporter::ReportRuns(runs);
    }
    void print_ratios() const {
        std::printf("\nProxGen / hand-written, ms per iteration (least of the repetitions):\n");
        for (const auto& [name, ms] : best_) {
            const auto slash = name.find("/proxgen");
            if (slash == std::string::npos) continue;
            const std::string row = name.substr(0, slash);
            const auto hw = best_.find(row + "/handwritten" + name.substr(slash + 8));
            if (hw == best_.end()) continue;
            std::printf("  %-22s %8.3f / %8.3f = %5.2fx\n", row.c_str(), ms, hw->second, ms / hw->second);
        }
    }

private:
    std::map<std::string, double> best_;
};

}  // namespace

int main(int argc, char** argv) {
    // Keep freed memory in the process: fresh pages cost ~13 us each on this VM.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    std::vector<char*> args(argv, argv + argc);
    std::string interleave = "--benchmark_enable_random_interleaving=true", reps = "--benchmark_repetitions=3";
    args.insert(args.begin() + 1, {interleave.data(), reps.data()});  // the user's flags come after and win
    int n = int(args.size());
    benchmark::Initialize(&n, args.data());
    std::printf("STREAM triad: %.1f GB/s\n", pg::benchmark::machine_bandwidth_gbs());
    for (int N : {512, 1024, 2048}) register_size(N);
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    reporter.print_ratios();
    std::printf("peak RSS: %.1f MB\n", double(pg::benchmark::peak_rss_bytes()) / 1e6);
    benchmark::Shutdown();
}
