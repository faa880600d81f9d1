// The baselines compute ProxGen's iterations: for each algorithm, pg::solve with fixed steps (no
// acceleration, no adaptation, HQS at its final rho so without momentum) and the baseline with the
// same steps reach the same iterate after 15 iterations, on random data at 46 x 38 (denoising and
// deconvolution with a 9 x 9 Gaussian and nonneg). Tolerance 1e-4 max(1, max |x|) (float32
// rounding); the CG-based deconvolutions stop CG at cg_tol 1e-3 relative, so there the two may
// take different CG step counts: 2e-3. Returns 0 when every check passes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include <proxgen/proxgen.hpp>

#include "baseline.hpp"
#include "check_support.hpp"

namespace pg = proxgen;
namespace pb = proxgen::bench;

namespace {

void compare(const pg::Image& ours, const pb::Baseline& bl, double rel_tol, const std::string& label) {
    const Halide::Runtime::Buffer<float> x = bl.x();
    double diff = 0, scale = 1;
    for (int j = 0; j < ours.height(); ++j)
        for (int i = 0; i < ours.width(); ++i) {
            diff = std::max(diff, double(std::abs(ours(i, j) - x(i, j))));
            scale = std::max(scale, double(std::abs(ours(i, j))));
        }
    const bool ok = std::isfinite(diff) && diff <= rel_tol * scale;
    std::printf("  %-16s max|proxgen - baseline| %.2e (tol %.1e)  %s\n", label.c_str(), diff, rel_tol * scale,
                ok ? "ok" : "FAIL");
    proxgen::bench::checks::check(ok, label);
}

}  // namespace

int main() {
    return proxgen::bench::checks::run([] {
        const int W = 46, H = 38, iters = 15;
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> uni(0.0f, 1.0f);
        pg::Image b(W, H), k(9, 9);
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i) b(i, j) = uni(rng);
        float ks = 0;
        for (int q = 0; q < 9; ++q)
            for (int p = 0; p < 9; ++p) ks += k(p, q) = std::exp(-float((p - 4) * (p - 4) + (q - 4) * (q - 4)) / 8.0f);
        for (int q = 0; q < 9; ++q)
            for (int p = 0; p < 9; ++p) k(p, q) /= ks;
        const float alpha = 0.1f;

        pg::Options base;
        base.max_iters = iters;
        base.eps_abs = base.eps_rel = 0;
        base.check_every = 1000;
        base.accelerate = false;
        base.adaptive_rho = false;
        base.hqs_max_ratio = 1;  // rho fixed from the start: plain alternation, as the baseline
        pb::Steps steps;
        steps.tau = steps.sigma = float(1 / std::sqrt(8.0));
        steps.lambda = 1.0f, steps.mu = 0.95f / 8;
        steps.rho = 2.0f;

        std::printf("denoising %d x %d, %d iterations\n", W, H, iters);
        {
            auto x = pg::variable(W, H);
            auto prob = pg::sum_squares(x - b) + alpha * pg::group_norm1(pg::grad(x));
            pb::TVProblem problem;
            problem.b = b.buffer();
            problem.alpha = alpha;
            for (auto [alg, balg, tol] :
                 {std::tuple{pg::Algorithm::pock_chambolle, pb::BaselineAlgorithm::pock_chambolle, 1e-4},
                  std::tuple{pg::Algorithm::ladmm, pb::BaselineAlgorithm::ladmm, 1e-4},
                  std::tuple{pg::Algorithm::admm, pb::BaselineAlgorithm::admm, 1e-4},
                  std::tuple{pg::Algorithm::hqs, pb::BaselineAlgorithm::hqs, 1e-4}}) {
                pg::Options opt = base;
                opt.algorithm = alg;
                opt.tau = steps.tau, opt.sigma = steps.sigma, opt.lambda = steps.lambda, opt.mu = steps.mu;
                opt.rho = steps.rho;
                const pg::Result r = pg::solve(prob, opt);
                auto bl = pb::make_baseline(balg, problem, steps);
                bl->run(iters);
                compare(r[x], *bl, tol, std::string(pg::short_name(alg)) + "_denoise");
            }
        }
        std::printf("deconvolution + nonneg %d x %d, 9 x 9 Gaussian, %d iterations\n", W, H, iters);
        {
            auto x = pg::variable(W, H);
            auto prob = pg::sum_squares(pg::conv(k, x) - b) + alpha * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
            pb::TVProblem problem;
            problem.b = b.buffer();
            problem.kernel = k.buffer();
            problem.alpha = alpha;
            pb::Steps st = steps;
            st.tau = 0.5f, st.sigma = 1.0f / (0.5f * 9.0f);  // tau sigma ||[grad; I]||^2 = 1
            for (auto [alg, balg, tol] :
                 {std::tuple{pg::Algorithm::pock_chambolle, pb::BaselineAlgorithm::pock_chambolle, 1e-4},
                  std::tuple{pg::Algorithm::admm, pb::BaselineAlgorithm::admm, 2e-3},
                  std::tuple{pg::Algorithm::hqs, pb::BaselineAlgorithm::hqs, 2e-3}}) {
                pg::Options opt = base;
                opt.algorithm = alg;
                opt.tau = st.tau, opt.sigma = st.sigma, opt.rho = st.rho;
                const pg::Result r = pg::solve(prob, opt);
                auto bl = pb::make_baseline(balg, problem, st);
                bl->run(iters);
                compare(r[x], *bl, tol, std::string(pg::short_name(alg)) + "_deconv");
            }
        }
    });
}
