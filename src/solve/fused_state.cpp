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
    // (its range is checked with every option, check_options)
    if (!blockable || opt.callback) return 1;
    // Automatic: 1. The n-iteration kernels (schedule_blocked) were 2x slower per iteration than
    // one fused step per call at 1024² and 2048² for PC and L-ADMM TV denoising (bench/
    // bench_iterations.cpp, 2-core VM): until they win, blocking runs only when forced.
    (void)p;
    return opt.iterations_per_call > 0 ? opt.iterations_per_call : 1;
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
