// libFuzzer target: random constrained problems through rt::solve and rt::gradient. What a user
// must be able to trust, whatever the data, weights and run lengths:
//   - a solve that reports convergence returns a feasible x (every constraint of the problem holds
//     at it: the feasible copy, never a dual iterate) with a finite objective;
//   - a returned x is finite;
//   - a gradient either refuses (a proxgen::Error, a sentence) or is finite everywhere.
// Anything else — a crash, a sanitizer report, another exception type — is a finding. A few small
// structures (their kernels are compiled once per process or loaded from the kernel cache), so that
// inputs differ in values, sizes and run lengths, not in compilation.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "proxgen/proxgen.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;

namespace {

/// A weight the fuzzer steers towards the edges: zero, tiny, huge, negative, non-finite.
double weight(FuzzedDataProvider& in) {
    static constexpr double edges[] = {0.0, 1e-8, 1e-3, 0.02, 0.1, 1.0, 10.0, 1e6, 1e30, -1.0, INFINITY, NAN};
    if (in.ConsumeBool()) return in.PickValueInArray(edges);
    return in.ConsumeFloatingPointInRange<double>(0.0, 5.0);
}

/// An image of values in [lo, hi] scaled by `scale`, now and then with one NaN.
pg::Image image(FuzzedDataProvider& in, const std::vector<int>& shape, double scale) {
    pg::Image img(shape);
    for (std::size_t i = 0; i < img.size(); ++i)
        img.data()[i] = float(scale * (double(in.ConsumeIntegralInRange<int>(0, 255)) / 255.0 - 0.25));
    if (in.ConsumeProbability<float>() < 0.03f && img.size() > 0)
        img.data()[in.ConsumeIntegralInRange<std::size_t>(0, img.size() - 1)] = NAN;
    return img;
}

bool finite(const pg::Image& x) {
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!std::isfinite(x.data()[i])) return false;
    return true;
}

/// Structure s: TV denoising with x ≥ 0; TV deblurring with x ≥ 0 (an FFT x-update); an ℓ1
/// denoising inside a box [0, 1]. Every one has constraints a converged x must satisfy.
rt::Problem structure(int s, const rt::Expr& x, const rt::Data& b, const rt::Data& k, double lambda) {
    const rt::Scalar lam = rt::parameter("lambda", lambda);
    switch (s) {
    case 0: return rt::sum_squares(x - b) + lam * rt::group_norm1(rt::grad(x)) + rt::nonneg(x);
    case 1: return rt::sum_squares(rt::conv(k, x) - b) + lam * rt::group_norm1(rt::grad(x)) + rt::nonneg(x);
    default: return rt::sum_squares(x - b) + lam * rt::norm1(x) + rt::box(x, 0.0, 1.0);
    }
}

/// How far x is outside structure s's constraints (0: feasible).
double violation(int s, const pg::Image& x) {
    double v = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        v = std::max(v, double(-x.data()[i]));
        if (s == 2) v = std::max(v, double(x.data()[i]) - 1.0);
    }
    return v;
}

constexpr pg::Algorithm solvers[] = {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm,
                                     pg::Algorithm::hqs};
constexpr pg::Algorithm differentiable[] = {pg::Algorithm::pock_chambolle, pg::Algorithm::admm};
const std::vector<std::string> differentiated{"lambda", "b"};  // a request's kernels depend on it

[[noreturn]] void finding(const std::string& what, const rt::Problem& prob, pg::Algorithm a, int w, int h) {
    std::fprintf(stderr, "finding: %s (%s on %s, %dx%d)\n", what.c_str(), pg::name(a), prob.to_string().c_str(), w, h);
    std::abort();
}

}  // namespace

// Every kernel an input may need is built (or loaded from the kernel cache) here, outside the
// per-input time limit: each structure's solves (to convergence, so that the checks' and the
// feasible copy's kernels are there), its objective, and its gradients as the inputs request them.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
    const rt::Expr x = rt::variable("x", {8, 8});
    pg::Image b({8, 8}), k({3, 3});
    for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = float(i % 7) / 7;
    k(1, 1) = 1;
    for (int s = 0; s < 3; ++s) {
        const rt::Problem prob = structure(s, x, rt::input("b", b), rt::input("k", k), 0.1);
        for (pg::Algorithm a : solvers) {
            pg::Options opt;
            opt.algorithm = a;
            opt.max_iters = 300;
            try {
                rt::objective(prob, rt::solve(prob, opt));
            } catch (const pg::Error&) {
            }
        }
        for (pg::Algorithm a : differentiable)
            for (pg::GradientMode m : {pg::GradientMode::unrolled, pg::GradientMode::implicit}) {
                pg::Options opt;
                opt.algorithm = a;
                // implicit: a forward solve that converges, or it refuses before its adjoint kernels
                opt.max_iters = m == pg::GradientMode::implicit ? 300 : 3;
                pg::GradientOptions g;
                g.mode = m;
                g.adjoint_max_iters = 20;
                g.wrt = differentiated;
                try {
                    rt::gradient(prob, opt, pg::Loss::sum_squares(b), g);
                } catch (const pg::Error&) {
                }
            }
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    const int w = in.ConsumeIntegralInRange<int>(4, 16), h = in.ConsumeIntegralInRange<int>(4, 16);
    const int s = in.ConsumeIntegralInRange<int>(0, 2);
    const double scale = in.PickValueInArray({1.0, 1e-4, 100.0, 1e4});  // badly scaled data too
    const rt::Expr x = rt::variable("x", {w, h});
    const pg::Image b = image(in, {w, h}, scale), reference = image(in, {w, h}, 1.0);
    pg::Image k = image(in, {3, 3}, 1.0);
    for (std::size_t i = 0; i < k.size(); ++i) k.data()[i] = std::abs(k.data()[i]) + (i == 4 ? 0.5f : 0.0f);
    const double lambda = weight(in);
    const bool do_gradient = in.ConsumeBool();
    pg::Options opt;
    opt.algorithm = do_gradient ? in.PickValueInArray(differentiable) : in.PickValueInArray(solvers);
    opt.max_iters = in.ConsumeIntegralInRange<int>(1, do_gradient ? 40 : 300);
    if (in.ConsumeBool()) opt.eps_abs = opt.eps_rel = in.PickValueInArray({1e-1, 1e-3, 1e-6});
    rt::Problem prob = structure(s, x, rt::input("b", b), rt::input("k", k), 1.0);
    try {
        prob = structure(s, x, rt::input("b", b), rt::input("k", k), lambda);
        if (!do_gradient) {
            const pg::Result r = rt::solve(prob, opt);
            if (!finite(r.x)) finding("a result with a non-finite x", prob, opt.algorithm, w, h);
            if (r.converged) {
                const double v = violation(s, r.x);
                if (v > 1e-6) finding("converged with an infeasible x (violation " + std::to_string(v) + ")", prob,
                                      opt.algorithm, w, h);
                if (!std::isfinite(rt::objective(prob, r)))
                    finding("converged with a non-finite objective", prob, opt.algorithm, w, h);
            }
            return 0;
        }
        pg::GradientOptions g;
        g.mode = in.ConsumeBool() ? pg::GradientMode::unrolled : pg::GradientMode::implicit;
        g.adjoint_max_iters = in.ConsumeIntegralInRange<int>(1, 200);
        g.wrt = differentiated;
        const pg::Gradient gr = rt::gradient(prob, opt, pg::Loss::sum_squares(reference), g);
        if (!finite(gr.x)) finding("a gradient taken at a non-finite x", prob, opt.algorithm, w, h);
        for (const auto& [name, v] : gr.parameters)
            if (!std::isfinite(v)) finding("a non-finite gradient for '" + name + "'", prob, opt.algorithm, w, h);
        for (const auto& [name, img] : gr.inputs)
            if (!finite(img)) finding("a non-finite gradient for '" + name + "'", prob, opt.algorithm, w, h);
    } catch (const pg::Error&) {
        // bad input or a named refusal (divergence, a forward solve that did not converge, …)
    }
    return 0;
}
