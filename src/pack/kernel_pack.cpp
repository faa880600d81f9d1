// Builds the kernel pack: the per-card tier's kernels (Options::tier = Tier::per_card) for the
// cards and term forms problems use most, compiled with the library so that a structure never seen
// before starts iterating without the compiler even on a machine whose kernel cache is empty.
//
// It solves a catalogue of small problems for two iterations of each algorithm in the per-card
// tier with the kernel cache pointed at the pack's directory (the build runs it as
//   PROXGEN_CACHE_DIR=<build>/kernel_pack PROXGEN_KERNEL_PACK=off proxgen_kernel_pack);
// every kernel those solves compile lands there, and the library reads the directory after the
// user's own cache (src/jit/disk_cache.hpp). A card or term form missing here is compiled on first
// use, then cached, as before. Kernels are size-generic: the sizes below only need to be valid.
#include <cstdio>
#include <exception>
#include <functional>
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <proxgen/runtime.hpp>

namespace pg = proxgen;
namespace rt = pg::rt;

namespace {

/// An image of one value: the kernels are data-generic, any valid data compile them.
pg::Image filled(const std::vector<int>& shape, float value) {
    pg::Image img(shape);
    std::fill_n(img.data(), img.size(), value);
    return img;
}

struct Entry {
    const char* name;
    std::function<rt::Problem()> make;
};

std::vector<Entry> catalogue() {
    constexpr int W = 12, H = 10;
    const std::vector<int> grey{W, H}, colour{W, H, 3};
    const pg::Image k = filled({5, 5}, 0.04f), b = filled(grey, 0.5f), m = filled(grey, 0.7f), bc = filled(colour, 0.5f);
    const pg::Image small = filled({W / 2, H / 2}, 0.5f), inner = filled({W - 2, H - 2}, 0.5f);
    const rt::Expr x = rt::variable("x", grey), xc = rt::variable("x", colour);
    auto tv = [](const rt::Expr& e) { return 0.01 * rt::group_norm1(rt::grad(e)); };
    auto tv_colour = [](const rt::Expr& e) { return 0.01 * rt::group_norm1(rt::merge_last_axes(rt::grad(e))); };
    using rt::ConvBoundary;
    return {
        {"TV denoising", [=] { return rt::sum_squares(x - b) + tv(x); }},
        {"anisotropic TV denoising, nonneg", [=] { return rt::sum_squares(x - b) + 0.01 * rt::norm1(rt::grad(x)) + rt::nonneg(x); }},
        {"periodic TV denoising", [=] { return rt::sum_squares(x - b) + 0.01 * rt::group_norm1(rt::grad(x, rt::GradBoundary::periodic)); }},
        {"TV deconvolution (FFT)", [=] { return rt::sum_squares(rt::conv(k, x) - b) + tv(x); }},
        {"TV deconvolution (FFT), nonneg", [=] { return rt::sum_squares(rt::conv(k, x) - b) + tv(x) + rt::nonneg(x); }},
        {"TV deconvolution, zero boundary", [=] { return rt::sum_squares(rt::conv(k, x, ConvBoundary::zero) - b) + tv(x) + rt::nonneg(x); }},
        {"TV deconvolution, replicate", [=] { return rt::sum_squares(rt::conv(k, x, ConvBoundary::replicate) - b) + tv(x); }},
        {"masked deconvolution", [=] {
             return rt::sum_squares(rt::mul_elemwise(m, rt::conv(k, x, ConvBoundary::zero)) - b) + tv(x) + rt::nonneg(x);
         }},
        {"inpainting", [=] { return rt::sum_squares(rt::mul_elemwise(m, x) - b) + tv(x) + rt::box(x, 0, 1); }},
        {"super-resolution", [=] { return rt::sum_squares(rt::subsample(rt::conv(k, x), 2, 2) - small) + tv(x) + rt::nonneg(x); }},
        {"Poisson deblurring", [=] { return rt::poisson_norm(rt::conv(k, x), b) + tv(x) + rt::nonneg(x); }},
        {"Huber TV, l1 data", [=] { return rt::norm1(rt::conv(k, x, ConvBoundary::zero) - b) + 0.01 * rt::huber(rt::grad(x), 0.05); }},
        {"colour TV denoising", [=] { return rt::sum_squares(xc - bc) + tv_colour(xc); }},
        {"colour TV deconvolution", [=] { return rt::sum_squares(rt::conv(k, xc) - bc) + tv_colour(xc) + rt::nonneg(xc); }},
        {"colour TV deconvolution, zero boundary", [=] {
             return rt::sum_squares(rt::conv(k, xc, ConvBoundary::zero) - bc) + tv_colour(xc) + rt::nonneg(xc);
         }},
        {"crop, pad and stacks", [=] {
             return rt::sum_squares(rt::crop(x, 1, 1, W - 2, H - 2) - inner) +
                    0.01 * rt::norm1(rt::vstack(rt::pad(rt::subsample(x, 2, 2), 0, 0, W / 2, H / 2), rt::transpose(rt::transpose(x, {1, 0}), {1, 0})));
         }},
    };
}

}  // namespace

int main() {
    const std::vector<Entry> entries = catalogue();
    const pg::Algorithm algorithms[] = {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm,
                                        pg::Algorithm::hqs, pg::Algorithm::condat_vu};
    pg::Options opt;
    opt.tier = pg::Tier::per_card;
    opt.max_iters = 2;
    opt.check_every = 1;          // the check's kernels too,
    opt.track_objective = true;   // and the objective's (the command line tracks it by default)
    opt.eps_abs = opt.eps_rel = 0;
    int failed = 0;
    // two problems at a time: each compiles its own kernels (the cache publishes each once)
    const unsigned threads = std::max(1u, std::min(2u, std::thread::hardware_concurrency()));
    std::vector<std::thread> workers;
    std::vector<std::string> errors(entries.size());
    for (unsigned t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            for (std::size_t i = t; i < entries.size(); i += threads) {
                for (const pg::Algorithm a : algorithms) try {
                        pg::Options o = opt;
                        o.algorithm = a;
                        rt::solve(entries[i].make(), o);
                    } catch (const std::exception& e) {
                        errors[i] += fmt::format("{}{}: {}", errors[i].empty() ? "" : "; ", pg::name(a), e.what());
                    }
            }
        });
    for (auto& w : workers) w.join();
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (!errors[i].empty()) {
            std::fprintf(stderr, "kernel pack: %s: %s\n", entries[i].name, errors[i].c_str());
            ++failed;
        }
    std::printf("kernel pack: %zu problems, %d failed\n", entries.size(), failed);
    return failed == 0 ? 0 : 1;
}
