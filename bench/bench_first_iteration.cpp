// How long a solve of one structure waits before its first iteration, and how long a whole
// 10-iteration solve takes, in the fused and the per-card tier (Options::tier). One structure per
// process, so that the caches it starts with are the ones the caller prepared:
//
//   proxgen_bench_first_iteration --problem masked --terms 17 --size 64 --tier per_card --algorithm pc
//
// prints first_iteration_ms= when the first iteration is made (under --tier auto the solve returns
// only when the fused kernels have compiled: minutes for 17 masked blurs), then one line: problem,
// terms, size, algorithm (pc, ladmm, admm, hqs, cv), tier (fused, per_card, auto), ms to the first
// iteration (from the call), ms for the whole solve, the compile seconds the result reports,
// iterations, and how many of them ran per card. Problems (every term Ψ-split for
// Pock–Chambolle and linearized ADMM; ADMM and HQS absorb the quadratic ones into the x-update,
// Condat–Vũ takes gradient steps on them):
//   masked: Σ_i ‖m_i ⊙ (k_i ⊛ x) − b_i‖² (zero-boundary blurs, random masks) + 0.01 TV(x) + x ≥ 0
//   deblur: ‖k ⊛ x − b‖² (zero boundary) + 0.01 TV(x) + x ≥ 0
//   denoise: ‖x − b‖² + 0.1 TV(x)
// Run it in a fresh PROXGEN_CACHE_DIR for "never seen", or after another structure's run in the
// same directory for "a new structure of cards already seen" (docs/performance.md shows both).
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>

#include <proxgen/runtime.hpp>

namespace pg = proxgen;
namespace rt = pg::rt;
using Clock = std::chrono::steady_clock;

namespace {

pg::Image random_image(const std::vector<int>& shape, unsigned seed, float lo, float hi) {
    pg::Image img(shape);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (std::size_t i = 0; i < img.size(); ++i) img.data()[i] = dist(gen);
    return img;
}

rt::Problem problem(const std::string& name, int terms, int n) {
    const rt::Expr x = rt::variable("x", {n, n});
    const rt::Problem tv = 0.01 * rt::group_norm1(rt::grad(x));
    if (name == "denoise") return rt::sum_squares(x - random_image({n, n}, 1, 0, 1)) + 0.1 * rt::group_norm1(rt::grad(x));
    if (name == "deblur")
        return rt::sum_squares(rt::conv(random_image({5, 5}, 2, 0, 0.08f), x, rt::ConvBoundary::zero) -
                               random_image({n, n}, 3, 0, 1)) +
               tv + rt::nonneg(x);
    if (name != "masked") {
        std::fprintf(stderr, "unknown problem '%s' (masked, deblur, denoise)\n", name.c_str());
        std::exit(2);
    }
    rt::Problem p = tv + rt::nonneg(x);
    for (int i = 0; i < terms; ++i) {
        const pg::Image k = random_image({5, 5}, 10 + unsigned(i), 0, 0.08f);
        const pg::Image m = random_image({n, n}, 100 + unsigned(i), 0, 1);
        p = p + rt::sum_squares(rt::mul_elemwise(m, rt::conv(k, x, rt::ConvBoundary::zero)) -
                                random_image({n, n}, 200 + unsigned(i), 0, 1));
    }
    return p;
}

}  // namespace

int main(int argc, char** argv) {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);  // fresh pages are slow on this VM: reuse the heap
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    std::string name = "masked", tier = "per_card", algorithm = "pc";
    int terms = 4, size = 64, iters = 10;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--problem") name = v;
        else if (a == "--terms") terms = std::atoi(v.c_str());
        else if (a == "--size") size = std::atoi(v.c_str());
        else if (a == "--tier") tier = v;
        else if (a == "--iters") iters = std::atoi(v.c_str());
        else if (a == "--algorithm") algorithm = v;
        else {
            std::fprintf(stderr, "unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    const rt::Problem prob = problem(name, terms, size);
    pg::Options opt;
    const std::pair<const char*, pg::Algorithm> algorithms[] = {{"pc", pg::Algorithm::pock_chambolle},
                                                                 {"ladmm", pg::Algorithm::ladmm},
                                                                 {"admm", pg::Algorithm::admm},
                                                                 {"hqs", pg::Algorithm::hqs},
                                                                 {"cv", pg::Algorithm::condat_vu}};
    const auto* chosen = std::find_if(std::begin(algorithms), std::end(algorithms),
                                      [&](const auto& a) { return algorithm == a.first; });
    if (chosen == std::end(algorithms)) {
        std::fprintf(stderr, "unknown algorithm '%s' (pc, ladmm, admm, hqs, cv)\n", algorithm.c_str());
        return 2;
    }
    opt.algorithm = chosen->second;
    opt.max_iters = iters;
    opt.eps_abs = opt.eps_rel = 0;
    if (tier != "fused" && tier != "per_card" && tier != "auto") {
        std::fprintf(stderr, "unknown tier '%s' (fused, per_card, auto)\n", tier.c_str());
        return 2;
    }
    opt.tier = tier == "fused" ? pg::Tier::fused : tier == "auto" ? pg::Tier::automatic : pg::Tier::per_card;
    const Clock::time_point start = Clock::now();
    double first = -1;
    opt.callback = [&](const pg::IterationInfo& info) {
        if (info.iteration == 1) {
            first = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
            // at once: under --tier auto the solve returns only when the fused kernels have compiled
            std::printf("first_iteration_ms=%.1f\n", first);
            std::fflush(stdout);
        }
        return true;
    };
    const pg::Result r = rt::solve(prob, opt);
    const double total = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    std::printf("%s terms=%d size=%d algorithm=%s tier=%s first_iteration_ms=%.1f total_ms=%.1f compile_s=%.3f iterations=%d "
                "per_card_iterations=%d cg_iterations=%d\n",
                name.c_str(), terms, size, algorithm.c_str(), tier.c_str(), first, total, r.compile_seconds, r.iterations,
                r.per_card_iterations, r.cg_iterations);
    return 0;
}
