#include "fused_state.hpp"

#include <atomic>

#include "proxgen/error.hpp"

namespace proxgen::detail {

namespace {
std::atomic<bool> fusion{true};
}

void set_fusion(bool enabled) { fusion = enabled; }
bool fusion_enabled() { return fusion; }

std::string kernels_key(const char* algorithm, const ir::Problem& p) {
    return std::string(algorithm) + (fusion_enabled() ? ":" : ".unfused:") + ir::signature(p);
}

std::vector<Image> component_views(Image& img, int var_rank) {
    if (img.dimensions() == var_rank) return {img};
    std::vector<Image> v;
    const int last = img.dimensions() - 1;
    for (int k = 0; k < img.extent(last); ++k) v.emplace_back(img.buffer().sliced(last, k));
    return v;
}

void swap_with_views(std::vector<Image>& a, std::vector<std::vector<Image>>& a_views, std::vector<Image>& b,
                     std::vector<std::vector<Image>>& b_views) {
    swap_each(a, b);
    for (std::size_t i = 0; i < a_views.size(); ++i) swap_each(a_views[i], b_views[i]);
}

int iterations_per_call(const ir::Problem& p, const Options& opt, bool blockable) {
    if (opt.iterations_per_call < 0 || opt.iterations_per_call > 16)
        fail("Options: iterations_per_call must be in [0, 16] (0: automatic), got {}", opt.iterations_per_call);
    if (!blockable || opt.callback) return 1;
    if (opt.iterations_per_call > 0) return opt.iterations_per_call;
    // Blocking saves memory traffic at the price of recomputed halo rows: it pays once the state
    // no longer stays in the caches between iterations (measured on the 2-core VM, bench/
    // bench_iterations.cpp: see docs/performance.md).
    std::size_t pixels = 1;
    for (int s : p.variable_shape) pixels *= std::size_t(s);
    return pixels >= std::size_t(768) * 768 ? 4 : 1;
}

bool no_check_between(const Monitor& mon, int from, int to) {
    for (int it = from; it <= to; ++it)
        if (mon.should_check(it)) return false;
    return true;
}

SquareSumsOutput::SquareSumsOutput(const std::vector<std::vector<int>>& shapes)
    : partials(lower::square_sums_shape(shapes)) {}

std::vector<double> SquareSumsOutput::totals() const { return lower::total_square_sums(partials); }

}  // namespace proxgen::detail
