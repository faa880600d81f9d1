// make_baseline and the pieces every baseline shares (baseline.hpp).
#include "baseline.hpp"

#include <cmath>
#include <stdexcept>

#include "baseline_kinds.hpp"

namespace proxgen::bench {

Baseline::~Baseline() = default;

Halide::Runtime::Buffer<float> Baseline::x() const {
    const Halide::Runtime::Buffer<const float> v = x_view();
    Halide::Runtime::Buffer<float> out(W_, H_);
    for (int j = 0; j < H_; ++j)
        for (int i = 0; i < W_; ++i) out(i, j) = v(i, j);
    return out;
}

namespace {

/// Each algorithm's hand-written kernels (denoising and, where written, deconvolution).
struct BaselineRow {
    BaselineAlgorithm algorithm;
    std::unique_ptr<Baseline> (*make)(BaselineAlgorithm, const TVProblem&, const Steps&, int iterations_per_call);
};
const BaselineRow baseline_rows[] = {
    {BaselineAlgorithm::pock_chambolle,
     [](BaselineAlgorithm, const TVProblem& problem, const Steps& steps, int per_call) {
         return problem.deconvolution() ? detail::make_pc_deconv(problem, steps)
                                        : detail::make_pc_denoise(problem, steps, per_call);
     }},
    {BaselineAlgorithm::ladmm,
     [](BaselineAlgorithm, const TVProblem& problem, const Steps& steps, int per_call) {
         if (problem.deconvolution())
             throw std::invalid_argument("make_baseline: no linearized-ADMM deconvolution baseline");
         return detail::make_ladmm_denoise(problem, steps, per_call);
     }},
    {BaselineAlgorithm::admm,
     [](BaselineAlgorithm a, const TVProblem& problem, const Steps& steps, int) {
         return detail::make_admm_hqs(a, problem, steps);
     }},
    {BaselineAlgorithm::hqs,
     [](BaselineAlgorithm a, const TVProblem& problem, const Steps& steps, int) {
         return detail::make_admm_hqs(a, problem, steps);
     }},
};

}  // namespace

std::unique_ptr<Baseline> make_baseline(BaselineAlgorithm algorithm, const TVProblem& problem, const Steps& steps,
                                        int iterations_per_call) {
    if (problem.b.dimensions() != 2 || problem.b.dim(0).extent() < 2 || problem.b.dim(1).extent() < 2)
        throw std::invalid_argument("make_baseline: b must be a 2-D image of at least 2 x 2 pixels");
    if (!(problem.alpha >= 0) || !std::isfinite(problem.alpha))
        throw std::invalid_argument("make_baseline: alpha must be a finite number >= 0");
    if (iterations_per_call != 1 &&
        (iterations_per_call != 4 || problem.deconvolution() ||
         (algorithm != BaselineAlgorithm::pock_chambolle && algorithm != BaselineAlgorithm::ladmm)))
        throw std::invalid_argument(
            "make_baseline: 4 iterations per call exist for Pock-Chambolle and linearized-ADMM denoising only");
    for (const BaselineRow& row : baseline_rows)
        if (row.algorithm == algorithm) return row.make(algorithm, problem, steps, iterations_per_call);
    throw std::invalid_argument("make_baseline: unknown algorithm");
}

double tv_objective(const TVProblem& problem, const Halide::Runtime::Buffer<const float>& x) {
    const int W = problem.b.dim(0).extent(), H = problem.b.dim(1).extent();
    if (x.dimensions() != 2 || x.dim(0).extent() != W || x.dim(1).extent() != H)
        throw std::invalid_argument("tv_objective: x must have b's W x H shape");
    const int bx = problem.b.dim(0).min(), by = problem.b.dim(1).min();
    const int xx = x.dim(0).min(), xy = x.dim(1).min();
    auto X = [&](int i, int j) { return double(x(xx + i, xy + j)); };
    double fid = 0, tv = 0;
    const bool blur = problem.deconvolution();
    const int kw = blur ? problem.kernel.dim(0).extent() : 1, kh = blur ? problem.kernel.dim(1).extent() : 1;
    const int kx = blur ? problem.kernel.dim(0).min() : 0, ky = blur ? problem.kernel.dim(1).min() : 0;
    for (int j = 0; j < H; ++j) {
        for (int i = 0; i < W; ++i) {
            double kxv = X(i, j);
            if (blur) {  // circular convolution, kernel centre at (floor(kw/2), floor(kh/2))
                kxv = 0;
                for (int q = 0; q < kh; ++q)
                    for (int p = 0; p < kw; ++p)
                        kxv += double(problem.kernel(kx + p, ky + q)) *
                               X(((i - (p - kw / 2)) % W + W) % W, ((j - (q - kh / 2)) % H + H) % H);
            }
            const double d = kxv - problem.b(bx + i, by + j);
            fid += d * d;
            const double gx = i + 1 < W ? X(i + 1, j) - X(i, j) : 0.0;
            const double gy = j + 1 < H ? X(i, j + 1) - X(i, j) : 0.0;
            tv += std::sqrt(gx * gx + gy * gy);
        }
    }
    return fid + double(problem.alpha) * tv;
}

}  // namespace proxgen::bench
