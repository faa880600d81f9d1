// libFuzzer target: run-time problems (proxgen/runtime.hpp) solved with random options, weights,
// data and algorithms. Every input must either solve or give a proxgen::Error (a sentence); a
// crash, a sanitizer report, another exception (an internal error is a std::logic_error), a
// solve that returns a non-finite x, or one that reports convergence with residuals above their
// tolerances is a finding. The structures are few and small (their kernels are compiled once per
// process, or loaded from the kernel cache), so that inputs differ in values, not in compilation.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include <fuzzer/FuzzedDataProvider.h>

#include "proxgen/proxgen.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;

namespace {

/// A double the fuzzer steers towards the values that matter at the edges of the ranges.
double number(FuzzedDataProvider& in) {
    static constexpr double edges[] = {0.0,    -0.0,   1.0,     -1.0,  0.5,    2.0,    1e-3,  1e-8,
                                       -1e-3,  1e3,    1e6,     1e30,  3.5e38, 1e39,   1e308, -5.0,
                                       INFINITY, -INFINITY, NAN, 2147483647.0, 2147483648.0, 1e-45};
    if (in.ConsumeBool()) return in.PickValueInArray(edges);
    return in.ConsumeFloatingPoint<double>();
}

int integer(FuzzedDataProvider& in) {
    static constexpr int edges[] = {0, 1, 2, -1, 10, 17, std::numeric_limits<int>::max(), std::numeric_limits<int>::min()};
    if (in.ConsumeBool()) return in.PickValueInArray(edges);
    return in.ConsumeIntegral<int>();
}

pg::Image image(FuzzedDataProvider& in, const std::vector<int>& shape, bool nonneg) {
    pg::Image img(shape);
    const bool bad = in.ConsumeProbability<float>() < 0.05f;  // now and then a NaN or Inf in the data
    for (std::size_t i = 0; i < img.size(); ++i) {
        const float v = float(in.ConsumeIntegralInRange<int>(0, 255)) / 255.0f;
        img.data()[i] = nonneg ? v : 2 * v - 1;
    }
    if (bad && img.size() > 0) img.data()[in.ConsumeIntegralInRange<std::size_t>(0, img.size() - 1)] = NAN;
    return img;
}

bool finite(const pg::Image& x) {
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!std::isfinite(x.data()[i])) return false;
    return true;
}

constexpr pg::Algorithm algorithms[] = {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm,
                                        pg::Algorithm::hqs};

/// Structure s of the three (denoising: closed-form and DCT x-updates; deblurring: FFT; a one-term
/// problem the x-update solves alone), with weight `weight` as given.
rt::Problem structure(int s, const rt::Expr& x, const rt::Data& b, const rt::Data& k, double weight) {
    switch (s) {
    case 0: return rt::sum_squares(x - b) + weight * rt::group_norm1(rt::grad(x));
    case 1: return rt::sum_squares(rt::conv(k, x) - b) + weight * rt::group_norm1(rt::grad(x)) + rt::nonneg(x);
    default: return weight * rt::sum_squares(x - b);
    }
}

}  // namespace

// Every kernel an input may need is built (or loaded from the kernel cache) here, outside the
// per-input time limit: each structure for each algorithm, its objective, and the 2-iteration
// blocked kernels. Inputs then differ in values only.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
    const rt::Expr x = rt::variable("x", {8, 8});
    pg::Image b({8, 8}), k({3, 3});
    for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = float(i % 7) / 7;
    k(1, 1) = 1;
    for (int s = 0; s < 3; ++s)
        for (pg::Algorithm a : algorithms)
            for (int per_call : {1, 2}) {
                pg::Options opt;
                opt.algorithm = a;
                opt.max_iters = 4;
                opt.check_every = 2;
                opt.iterations_per_call = per_call;
                opt.track_objective = true;
                try {
                    rt::solve(structure(s, x, rt::input("b", b), rt::input("k", k), 0.1), opt);
                } catch (const pg::Error&) {
                }
            }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    const int w = in.ConsumeIntegralInRange<int>(4, 20), h = in.ConsumeIntegralInRange<int>(4, 20);
    const rt::Expr x = rt::variable("x", {w, h});
    const rt::Data b = rt::input("b", image(in, {w, h}, true));
    pg::Options opt;
    opt.algorithm = in.PickValueInArray(algorithms);
    try {
        const int s = in.ConsumeIntegralInRange<int>(0, 2);
        rt::Problem prob = structure(s, x, b, rt::input("k", image(in, {3, 3}, true)), number(in));
        if (in.ConsumeBool()) prob.set_input("b", image(in, {w, h}, true));
        opt.max_iters = integer(in);
        opt.check_every = integer(in);
        opt.eps_abs = number(in);
        opt.eps_rel = number(in);
        opt.tau = in.ConsumeBool() ? number(in) : 0;
        opt.sigma = in.ConsumeBool() ? number(in) : 0;
        opt.lambda = in.ConsumeBool() ? number(in) : 0;
        opt.mu = in.ConsumeBool() ? number(in) : 0;
        opt.rho = in.ConsumeBool() ? number(in) : 0;
        opt.adaptive_rho = in.ConsumeBool();
        opt.accelerate = in.ConsumeBool();
        if (in.ConsumeBool()) opt.hqs_growth = number(in);
        if (in.ConsumeBool()) opt.hqs_every = integer(in);
        if (in.ConsumeBool()) opt.hqs_max_ratio = number(in);
        if (in.ConsumeBool()) opt.cg_tol = number(in);
        if (in.ConsumeBool()) opt.cg_max_iters = integer(in);
        if (in.ConsumeBool()) opt.iterations_per_call = integer(in);
        if (in.ConsumeBool()) opt.x0 = image(in, {w, h}, false);
        // the ranges as given; then bounded run lengths, so that an input stays well under the
        // fuzzer's time limit (a valid 2^31 iterations is not a bug, only slow)
        try {
            pg::check_options(opt);
        } catch (const pg::Error&) {
        }
        if (opt.max_iters > 300) opt.max_iters = 300;
        if (opt.cg_max_iters > 60) opt.cg_max_iters = 60;
        if (opt.iterations_per_call > 2) opt.iterations_per_call = 2;  // each n is a kernel to compile
        const pg::Result r = rt::solve(prob, opt);
        const bool bad = !finite(r.x) ||  // a non-finite iterate must be an error, never a result
                         (r.converged && !(r.primal_residual <= r.history.back().eps_primal &&
                                           r.dual_residual <= r.history.back().eps_dual)) ||
                         r.converged != (r.status == pg::Status::converged);
        if (bad) {
            std::fprintf(stderr,
                         "finding: %s on %s (%dx%d): status %s after %d iterations, residuals %g %g, x finite %d; "
                         "options max_iters %d check_every %d eps %g %g tau %g sigma %g lambda %g mu %g rho %g "
                         "adaptive %d accelerate %d hqs %g %d %g cg %g %d per_call %d x0 %d\n",
                         pg::name(opt.algorithm), prob.to_string().c_str(), w, h, pg::name(r.status), r.iterations,
                         r.primal_residual, r.dual_residual, int(finite(r.x)), opt.max_iters, opt.check_every,
                         opt.eps_abs, opt.eps_rel, opt.tau, opt.sigma, opt.lambda, opt.mu, opt.rho,
                         int(opt.adaptive_rho), int(opt.accelerate), opt.hqs_growth, opt.hqs_every,
                         opt.hqs_max_ratio, opt.cg_tol, opt.cg_max_iters, opt.iterations_per_call, int(!opt.x0.empty()));
            std::abort();
        }
    } catch (const pg::Error&) {
        // bad input or a named failure (divergence, infeasible plan): the expected outcomes
    }
    return 0;
}
