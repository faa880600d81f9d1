// Check program for the hand-written baselines (baseline.hpp); no test framework, returns 0 when
// every check passes. Each baseline is compared with a plain scalar C++ implementation of the
// same iteration in float64 (reference below: every boundary rule written out with ifs, the
// x-updates of the spectral methods solved by conjugate gradients on the dense operators (the
// CG-based deconvolution baselines run with cg_tol 1e-5 for the comparison), the
// convolution computed tap by tap), on random data at 37 x 29, 64 x 64, 40 x 26 and 16 x 3 (odd
// and even sizes take different DCT paths in ADMM / HQS), after 1, 4,
// 5 and 20 iterations: max |baseline - reference| <= 1e-4 max(1, max |reference|) (float32
// rounding; the observed differences are printed, about 1e-6). Also: changed steps and a warm
// start x0, the HandwrittenTV adapter, convergence on a noisy image, and the errors bad input gets.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "baseline.hpp"
#include "check_support.hpp"
#include "handwritten_tv.hpp"

namespace {

using proxgen::bench::BaselineAlgorithm;
using proxgen::bench::make_baseline;
using proxgen::bench::Steps;
using proxgen::bench::TVProblem;
using Vec = std::vector<double>;

using proxgen::bench::checks::check;

// --- the scalar reference -----------------------------------------------------------------
struct Reference {
    int W, H;
    double alpha;
    Vec b, kernel;  // kernel empty: denoising
    int kw = 0, kh = 0;
    Vec x, xp, y0, y1, w, z0, z1, u0, u1, u2;  // w: PC's nonneg dual, or ADMM / HQS's z2

    Reference(int w_, int h_, double a, Vec bb, Vec k = {}, int kw_ = 0, int kh_ = 0)
        : W(w_), H(h_), alpha(a), b(std::move(bb)), kernel(std::move(k)), kw(kw_), kh(kh_) {
        x = xp = y0 = y1 = w = z0 = z1 = u0 = u1 = u2 = Vec(std::size_t(W) * H, 0.0);
    }
    [[nodiscard]] std::size_t at(int i, int j) const { return std::size_t(j) * W + i; }

    // grad: forward differences, 0 in the last column / row; grad^T its adjoint.
    [[nodiscard]] double g0(const Vec& f, int i, int j) const { return i < W - 1 ? f[at(i + 1, j)] - f[at(i, j)] : 0.0; }
    [[nodiscard]] double g1(const Vec& f, int i, int j) const { return j < H - 1 ? f[at(i, j + 1)] - f[at(i, j)] : 0.0; }
    [[nodiscard]] Vec grad_t(const Vec& p0, const Vec& p1) const {
        Vec out(p0.size());
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i) {
                double s = 0;
                if (i > 0) s += p0[at(i - 1, j)];
                if (i < W - 1) s -= p0[at(i, j)];
                if (j > 0) s += p1[at(i, j - 1)];
                if (j < H - 1) s -= p1[at(i, j)];
                out[at(i, j)] = s;
            }
        return out;
    }
    // Circular convolution with the kernel centred at floor(size/2) (sgn = -1), or its adjoint.
    [[nodiscard]] Vec conv(const Vec& f, int sgn) const {
        Vec out(f.size(), 0.0);
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i) {
                double s = 0;
                for (int q = 0; q < kh; ++q)
                    for (int p = 0; p < kw; ++p) {
                        const int ii = ((i + sgn * (p - kw / 2)) % W + W) % W, jj = ((j + sgn * (q - kh / 2)) % H + H) % H;
                        s += kernel[std::size_t(q) * kw + p] * f[at(ii, jj)];
                    }
                out[at(i, j)] = s;
            }
        return out;
    }
    // Conjugate gradients for a symmetric positive definite A, to float64 precision.
    static Vec solve(const std::function<Vec(const Vec&)>& A, const Vec& rhs, Vec z) {
        Vec r = rhs, Az = A(z);
        for (std::size_t k = 0; k < r.size(); ++k) r[k] -= Az[k];
        Vec p = r;
        auto dot = [](const Vec& a, const Vec& c) {
            double s = 0;
            for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * c[k];
            return s;
        };
        double rr = dot(r, r);
        const double stop = 1e-28 * std::max(1.0, dot(rhs, rhs));
        for (int it = 0; it < 2000 && rr > stop; ++it) {
            const Vec Ap = A(p);
            const double a = rr / dot(p, Ap);
            for (std::size_t k = 0; k < r.size(); ++k) z[k] += a * p[k], r[k] -= a * Ap[k];
            const double rn = dot(r, r);
            for (std::size_t k = 0; k < r.size(); ++k) p[k] = r[k] + rn / rr * p[k];
            rr = rn;
        }
        return z;
    }
    void shrink(double v0, double v1, double k, double& s) const {
        const double n = std::sqrt(v0 * v0 + v1 * v1);
        s = n > k ? 1.0 - k / n : 0.0;
    }

    void pc(double sigma, double tau, double theta) {
        const bool blur = !kernel.empty();
        Vec xb(x.size());
        for (std::size_t k = 0; k < x.size(); ++k) xb[k] = x[k] + theta * (x[k] - xp[k]);
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i) {
                const double v0 = y0[at(i, j)] + sigma * g0(xb, i, j), v1 = y1[at(i, j)] + sigma * g1(xb, i, j);
                const double n = std::sqrt(v0 * v0 + v1 * v1), s = n > alpha ? alpha / n : 1.0;
                y0[at(i, j)] = v0 * s, y1[at(i, j)] = v1 * s;
                if (blur) w[at(i, j)] = std::min(w[at(i, j)] + sigma * xb[at(i, j)], 0.0);
            }
        const Vec gt = grad_t(y0, y1);
        Vec r(x.size());
        for (std::size_t k = 0; k < x.size(); ++k) r[k] = x[k] - tau * (gt[k] + (blur ? w[k] : 0.0));
        Vec xn(x.size());
        if (blur) {  // (I + 2 tau K^T K) x' = r + 2 tau K^T b
            const Vec ktb = conv(b, +1);
            for (std::size_t k = 0; k < r.size(); ++k) r[k] += 2 * tau * ktb[k];
            xn = solve([&](const Vec& v) {
                Vec o = conv(conv(v, -1), +1);
                for (std::size_t k = 0; k < o.size(); ++k) o[k] = v[k] + 2 * tau * o[k];
                return o;
            }, r, x);
        } else {
            for (std::size_t k = 0; k < x.size(); ++k) xn[k] = (r[k] + 2 * tau * b[k]) / (1 + 2 * tau);
        }
        xp = x, x = xn;
    }

    void ladmm(double lambda, double mu) {
        Vec r0(x.size()), r1(x.size());
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i) {
                r0[at(i, j)] = g0(x, i, j) - z0[at(i, j)] + u0[at(i, j)];
                r1[at(i, j)] = g1(x, i, j) - z1[at(i, j)] + u1[at(i, j)];
            }
        const Vec gt = grad_t(r0, r1);
        for (std::size_t k = 0; k < x.size(); ++k) x[k] = (x[k] - mu / lambda * gt[k] + 2 * mu * b[k]) / (1 + 2 * mu);
        split_update(lambda * alpha, true);
    }

    // z = shrink(grad x (+ u), k); u = v - z (when `dual`).
    void split_update(double k, bool dual) {
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i) {
                const std::size_t a = at(i, j);
                const double v0 = g0(x, i, j) + (dual ? u0[a] : 0.0), v1 = g1(x, i, j) + (dual ? u1[a] : 0.0);
                double s = 0;
                shrink(v0, v1, k, s);
                z0[a] = v0 * s, z1[a] = v1 * s;
                if (dual) u0[a] = v0 - z0[a], u1[a] = v1 - z1[a];
            }
    }

    // ADMM (dual = true) or HQS. Denoising: (2 I + rho grad^T grad) x = 2 b + rho grad^T (z - u);
    // deconvolution (z2 = x split off for nonneg, dual u2):
    // (2 K^T K + rho (grad^T grad + I)) x = 2 K^T b + rho (grad^T (z - u) + z2 - u2).
    void split(double rho, bool dual) {
        const bool blur = !kernel.empty();
        Vec d0 = z0, d1 = z1;
        if (dual)
            for (std::size_t k = 0; k < x.size(); ++k) d0[k] -= u0[k], d1[k] -= u1[k];
        const Vec gt = grad_t(d0, d1), ktb = blur ? conv(b, +1) : b;
        Vec rhs(x.size());
        for (std::size_t k = 0; k < x.size(); ++k)
            rhs[k] = 2 * ktb[k] + rho * gt[k] + (blur ? rho * (w[k] - (dual ? u2[k] : 0.0)) : 0.0);
        x = solve([&](const Vec& v) {
            Vec p0(v.size()), p1(v.size());
            for (int j = 0; j < H; ++j)
                for (int i = 0; i < W; ++i) p0[at(i, j)] = g0(v, i, j), p1[at(i, j)] = g1(v, i, j);
            Vec o = grad_t(p0, p1), kk = blur ? conv(conv(v, -1), +1) : v;
            for (std::size_t k = 0; k < o.size(); ++k) o[k] = 2 * kk[k] + rho * o[k] + (blur ? rho * v[k] : 0.0);
            return o;
        }, rhs, x);
        split_update(alpha / rho, dual);
        if (blur)  // z2 (kept in w) = max(x + u2, 0), u2 += x - z2
            for (std::size_t k = 0; k < x.size(); ++k) {
                const double v = x[k] + (dual ? u2[k] : 0.0);
                w[k] = std::max(v, 0.0);
                if (dual) u2[k] = v - w[k];
            }
    }
};

// --- comparisons ----------------------------------------------------------------------------
double max_abs(const Vec& v) {
    double m = 0;
    for (double e : v) m = std::max(m, std::abs(e));
    return m;
}

void compare(const proxgen::bench::Baseline& bl, const Reference& ref, const std::string& label) {
    const Halide::Runtime::Buffer<float> xv = bl.x();
    double diff = 0;
    for (int j = 0; j < ref.H; ++j)
        for (int i = 0; i < ref.W; ++i) diff = std::max(diff, std::abs(double(xv(i, j)) - ref.x[ref.at(i, j)]));
    const double tol = 1e-4 * std::max(1.0, max_abs(ref.x));
    const bool ok = std::isfinite(diff) && diff <= tol;
    std::printf("  %-36s max|diff| %.2e (tol %.1e)  %s\n", label.c_str(), diff, tol, ok ? "ok" : "FAIL");
    check(ok, label);
}

struct Case {
    BaselineAlgorithm algorithm;
    bool blur;
    int per_call;
    const char* name;
};

void check_size(int W, int H, std::mt19937& rng) {
    std::uniform_real_distribution<float> uni(0.0f, 1.0f);
    Vec bv(std::size_t(W) * H);
    for (double& v : bv) v = uni(rng);
    // b with non-zero mins: the baselines take any 2-D buffer.
    Halide::Runtime::Buffer<float> b(W, H);
    b.set_min(3, -2);
    for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) b(3 + i, -2 + j) = float(bv[std::size_t(j) * W + i]);
    // A 9 x 9 Gaussian (sigma 2), normalized.
    const int kw = 9, kh = 9;
    Vec kv(kw * kh);
    double ks = 0;
    for (int q = 0; q < kh; ++q)
        for (int p = 0; p < kw; ++p) ks += kv[q * kw + p] = std::exp(-((p - 4) * (p - 4) + (q - 4) * (q - 4)) / 8.0);
    Halide::Runtime::Buffer<float> kernel(kw, kh);
    for (int q = 0; q < kh; ++q)
        for (int p = 0; p < kw; ++p) kernel(p, q) = float(kv[q * kw + p] /= ks);

    const double alpha = 0.1;
    Steps steps;
    steps.tau = steps.sigma = float(1 / std::sqrt(8.0));
    steps.lambda = 1.0f, steps.mu = 0.95f / 8;
    steps.rho = 2.0f;
    const Case cases[] = {{BaselineAlgorithm::pock_chambolle, false, 1, "pc_denoise"},
                          {BaselineAlgorithm::pock_chambolle, false, 4, "pc_denoise_x4"},
                          {BaselineAlgorithm::ladmm, false, 1, "ladmm_denoise"},
                          {BaselineAlgorithm::ladmm, false, 4, "ladmm_denoise_x4"},
                          {BaselineAlgorithm::admm, false, 1, "admm_denoise"},
                          {BaselineAlgorithm::hqs, false, 1, "hqs_denoise"},
                          {BaselineAlgorithm::pock_chambolle, true, 1, "pc_deconv"},
                          {BaselineAlgorithm::admm, true, 1, "admm_deconv"},
                          {BaselineAlgorithm::hqs, true, 1, "hqs_deconv"}};
    for (const Case& c : cases) {
        TVProblem problem;
        problem.b = b;
        problem.alpha = float(alpha);
        Steps st = steps;
        if (c.blur) {
            problem.kernel = kernel;
            st.tau = 0.5f, st.sigma = 1.0f / (0.5f * 9.0f);  // tau sigma ||[grad; I]||^2 <= 1
            // CG run close to convergence, so that the exact solve of the reference applies.
            st.cg_tol = 1e-5f, st.cg_max_iters = 500;
        }
        auto bl = make_baseline(c.algorithm, problem, st, c.per_call);
        check(bl->name() == c.name, std::string("name ") + c.name);
        Reference ref(W, H, alpha, bv, c.blur ? kv : Vec{}, c.blur ? kw : 0, c.blur ? kh : 0);
        // the reference's iteration of each algorithm
        using ReferenceStep = void (*)(Reference&, const Steps&);
        const std::map<BaselineAlgorithm, ReferenceStep> reference_step{
            {BaselineAlgorithm::pock_chambolle, [](Reference& r, const Steps& s) { r.pc(s.sigma, s.tau, s.theta); }},
            {BaselineAlgorithm::ladmm, [](Reference& r, const Steps& s) { r.ladmm(s.lambda, s.mu); }},
            {BaselineAlgorithm::admm, [](Reference& r, const Steps& s) { r.split(s.rho, true); }},
            {BaselineAlgorithm::hqs, [](Reference& r, const Steps& s) { r.split(s.rho, false); }},
        };
        auto step = [&] { reference_step.at(c.algorithm)(ref, st); };
        int done = 0;
        for (int n : {1, 4, 5, 20}) {
            bl->run(n - done);
            for (; done < n; ++done) step();
            compare(*bl, ref, std::string(c.name) + ", " + std::to_string(n) + " it");
        }
    }
    // New steps after a reset with a warm start x0 (PC, fused: both pipelines run).
    {
        TVProblem problem;
        problem.b = b;
        problem.alpha = float(alpha);
        auto bl = make_baseline(BaselineAlgorithm::pock_chambolle, problem, steps, 4);
        Halide::Runtime::Buffer<float> x0(W, H);
        Reference ref(W, H, alpha, bv);
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i) x0(i, j) = float(ref.x[ref.at(i, j)] = ref.xp[ref.at(i, j)] = 0.5 * bv[ref.at(i, j)]);
        bl->run(3);
        bl->reset(x0);
        Steps st;
        st.sigma = 0.5f, st.tau = 0.2f, st.theta = 0.5f;
        bl->set_steps(st);
        bl->run(9);
        for (int k = 0; k < 9; ++k) ref.pc(st.sigma, st.tau, st.theta);
        compare(*bl, ref, "pc_denoise_x4, x0 and new steps, 9 it");
    }
}

void check_adapter_and_convergence() {
    // A noisy piecewise-constant 96 x 96 image.
    const int N = 96;
    std::mt19937 rng(1234);
    std::normal_distribution<float> noise(0.0f, 0.1f);
    Halide::Runtime::Buffer<float> b(N, N);
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) {
            float v = 0.2f;
            if (i >= 20 && i < 60 && j >= 25 && j < 70) v = 0.8f;
            if ((i - 70) * (i - 70) + (j - 60) * (j - 60) < 20 * 20) v = 0.5f;
            b(i, j) = v + noise(rng);
        }
    TVProblem problem;
    problem.b = b;
    problem.alpha = 0.1f;
    const double at_b = proxgen::bench::tv_objective(problem, b);
    Steps steps;
    steps.tau = steps.sigma = float(1 / std::sqrt(8.0));
    steps.lambda = 1.0f, steps.mu = 0.95f / 8, steps.rho = 2.0f;
    // HandwrittenTV (the older benchmarks' interface) runs the same iteration.
    proxgen::bench::HandwrittenTV hw(b, problem.alpha);
    auto pc = make_baseline(BaselineAlgorithm::pock_chambolle, problem, steps);
    for (int k = 0; k < 30; ++k) hw.pc_iteration(steps.sigma, steps.tau, 1.0f);
    pc->run(30);
    double diff = 0;
    const Halide::Runtime::Buffer<float> xp = pc->x();
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) diff = std::max(diff, double(std::abs(hw.x()(i, j) - xp(i, j))));
    std::printf("  HandwrittenTV vs pc_denoise, 30 it: max|diff| %.2e  %s\n", diff, diff == 0 ? "ok" : "FAIL");
    check(diff == 0, "HandwrittenTV adapter");
    // 300 iterations of every denoising baseline end well below the objective at x = b.
    for (auto alg : {BaselineAlgorithm::pock_chambolle, BaselineAlgorithm::ladmm, BaselineAlgorithm::admm,
                     BaselineAlgorithm::hqs}) {
        auto bl = make_baseline(alg, problem, steps);
        bl->run(300);
        const double obj = proxgen::bench::tv_objective(problem, bl->x_view());
        const bool ok = std::isfinite(obj) && obj < 0.8 * at_b;
        std::printf("  %-14s 300 it: objective %.4f (at x = b: %.4f)  %s\n", bl->name().c_str(), obj, at_b,
                    ok ? "ok" : "FAIL");
        check(ok, bl->name() + " converges");
    }
}

void check_errors() {
    Halide::Runtime::Buffer<float> b(8, 8), tiny(1, 5), kernel(3, 3);
    b.fill(0.5f), tiny.fill(0.5f), kernel.fill(1.0f / 9);
    Steps ok;
    ok.tau = ok.sigma = 0.3f, ok.lambda = 1, ok.mu = 0.1f, ok.rho = 1;
    auto throws = [](const char* what, const std::function<void()>& f) {
        bool thrown = false;
        try {
            f();
        } catch (const std::invalid_argument& e) {
            thrown = true;
            std::printf("  %-44s -> %s\n", what, e.what());
        }
        check(thrown, what);
    };
    TVProblem denoise;
    denoise.b = b;
    TVProblem deconv = denoise;
    deconv.kernel = kernel;
    throws("negative alpha", [&] {
        TVProblem p = denoise;
        p.alpha = -1;
        make_baseline(BaselineAlgorithm::pock_chambolle, p, ok);
    });
    throws("1 x 5 image", [&] {
        TVProblem p = denoise;
        p.b = tiny;
        make_baseline(BaselineAlgorithm::pock_chambolle, p, ok);
    });
    throws("3 iterations per call", [&] { make_baseline(BaselineAlgorithm::pock_chambolle, denoise, ok, 3); });
    throws("4 per call for a deconvolution", [&] { make_baseline(BaselineAlgorithm::pock_chambolle, deconv, ok, 4); });
    throws("L-ADMM deconvolution", [&] { make_baseline(BaselineAlgorithm::ladmm, deconv, ok); });
    throws("tau = 0", [&] {
        Steps s = ok;
        s.tau = 0;
        make_baseline(BaselineAlgorithm::pock_chambolle, denoise, s);
    });
    throws("rho = 0", [&] {
        Steps s = ok;
        s.rho = 0;
        make_baseline(BaselineAlgorithm::admm, denoise, s);
    });
    throws("negative iteration count", [&] { make_baseline(BaselineAlgorithm::ladmm, denoise, ok)->run(-1); });
    throws("x0 of another shape", [&] { make_baseline(BaselineAlgorithm::ladmm, denoise, ok)->reset(tiny); });
}

}  // namespace

int main() {
    return proxgen::bench::checks::run([] {
        std::mt19937 rng(42);
        for (auto [W, H] : {std::pair{37, 29}, std::pair{64, 64}, std::pair{40, 26}, std::pair{16, 3}}) {
            std::printf("size %d x %d\n", W, H);
            check_size(W, H, rng);
        }
        std::printf("HandwrittenTV adapter and convergence\n");
        check_adapter_and_convergence();
        std::printf("errors\n");
        check_errors();
    });
}
