// Check program for the hand-written Halide TV baseline (no test framework):
//  1. one and 20 iterations of Pock-Chambolle and of linearized ADMM agree with
//     a straightforward scalar C++ implementation of the same math, on random
//     data at 37x23, 1x17, 17x1 and 64x64 (max |diff| <= 1e-4 * max(1, max|ref|));
//     objective() agrees with a float64 evaluation of the reference iterate;
//  2. 300 PC iterations (tau = sigma = 1/sqrt(8), theta = 1) on a noisy
//     piecewise-constant 128x128 image bring the objective below its value at x = b.
// Returns 0 when every check passes, 1 otherwise.
#include "handwritten_tv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using proxgen::bench::HandwrittenTV;

// --- Straightforward scalar reference -------------------------------------------------
struct Reference {
    int W, H;
    float alpha;
    std::vector<float> b, x, x_prev, y, z, u;  // y, z, u: planar W x H x 2

    Reference(int w, int h, float a, std::vector<float> bb)
        : W(w), H(h), alpha(a), b(std::move(bb)), x(size_t(w) * h, 0.0f), x_prev(x),
          y(size_t(w) * h * 2, 0.0f), z(y), u(y) {}

    [[nodiscard]] size_t at(int i, int j) const { return size_t(j) * W + i; }
    [[nodiscard]] size_t at(int i, int j, int c) const { return (size_t(c) * H + j) * W + i; }

    // (grad f)(i,j,c), forward differences, zero in the last column / row.
    [[nodiscard]] float grad(const std::vector<float>& f, int i, int j, int c) const {
        if (c == 0) return i < W - 1 ? f[at(i + 1, j)] - f[at(i, j)] : 0.0f;
        return j < H - 1 ? f[at(i, j + 1)] - f[at(i, j)] : 0.0f;
    }
    // (grad^T p)(i,j) = -div p with matching boundary terms.
    [[nodiscard]] float grad_t(const std::vector<float>& p, int i, int j) const {
        float s = 0.0f;
        if (i > 0) s += p[at(i - 1, j, 0)];
        if (i < W - 1) s -= p[at(i, j, 0)];
        if (j > 0) s += p[at(i, j - 1, 1)];
        if (j < H - 1) s -= p[at(i, j, 1)];
        return s;
    }

    void pc_iteration(float sigma, float tau, float theta) {
        std::vector<float> xbar(x.size());
        for (size_t k = 0; k < x.size(); ++k) xbar[k] = x[k] + theta * (x[k] - x_prev[k]);
        for (int j = 0; j < H; ++j) {
            for (int i = 0; i < W; ++i) {
                const float v0 = y[at(i, j, 0)] + sigma * grad(xbar, i, j, 0);
                const float v1 = y[at(i, j, 1)] + sigma * grad(xbar, i, j, 1);
                const float n = std::sqrt(v0 * v0 + v1 * v1);
                const float s = n > alpha ? alpha / n : 1.0f;  // projection onto ||.|| <= alpha
                y[at(i, j, 0)] = v0 * s;
                y[at(i, j, 1)] = v1 * s;
            }
        }
        std::vector<float> xn(x.size());
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i)
                xn[at(i, j)] = (x[at(i, j)] - tau * grad_t(y, i, j) + 2.0f * tau * b[at(i, j)]) / (1.0f + 2.0f * tau);
        x_prev = x;
        x = xn;
    }

    void ladmm_iteration(float lambda, float mu) {
        std::vector<float> r(y.size());
        for (int c = 0; c < 2; ++c)
            for (int j = 0; j < H; ++j)
                for (int i = 0; i < W; ++i) r[at(i, j, c)] = grad(x, i, j, c) - z[at(i, j, c)] + u[at(i, j, c)];
        std::vector<float> xn(x.size());
        for (int j = 0; j < H; ++j) {
            for (int i = 0; i < W; ++i) {
                const float v = x[at(i, j)] - (mu / lambda) * grad_t(r, i, j);
                xn[at(i, j)] = (v + 2.0f * mu * b[at(i, j)]) / (1.0f + 2.0f * mu);
            }
        }
        x = xn;
        const float k = lambda * alpha;
        for (int j = 0; j < H; ++j) {
            for (int i = 0; i < W; ++i) {
                const float v0 = grad(x, i, j, 0) + u[at(i, j, 0)];
                const float v1 = grad(x, i, j, 1) + u[at(i, j, 1)];
                const float n = std::sqrt(v0 * v0 + v1 * v1);
                const float s = n > k ? 1.0f - k / n : 0.0f;
                z[at(i, j, 0)] = v0 * s;
                z[at(i, j, 1)] = v1 * s;
                u[at(i, j, 0)] = v0 - z[at(i, j, 0)];
                u[at(i, j, 1)] = v1 - z[at(i, j, 1)];
            }
        }
    }

    [[nodiscard]] static double objective_of(const std::vector<float>& xv, const std::vector<float>& bv, int W,
                                             int H, double alpha) {
        double fid = 0.0, tv = 0.0;
        for (int j = 0; j < H; ++j) {
            for (int i = 0; i < W; ++i) {
                const double xi = xv[size_t(j) * W + i];
                const double d = xi - bv[size_t(j) * W + i];
                fid += d * d;
                const double gx = i < W - 1 ? double(xv[size_t(j) * W + i + 1]) - xi : 0.0;
                const double gy = j < H - 1 ? double(xv[size_t(j + 1) * W + i]) - xi : 0.0;
                tv += std::sqrt(gx * gx + gy * gy);
            }
        }
        return fid + alpha * tv;
    }
};

int g_failures = 0;

void check(bool ok, const char* what) {
    if (!ok) {
        ++g_failures;
        std::printf("  FAIL: %s\n", what);
    }
}

// Max |halide - ref| over the iterate, and the allowed tolerance.
bool compare_x(const HandwrittenTV& hw, const Reference& ref, const char* label) {
    const Halide::Runtime::Buffer<float>& xv = hw.x();
    double max_diff = 0.0, max_ref = 0.0;
    bool shape_ok = xv.dimensions() == 2 && xv.dim(0).extent() == ref.W && xv.dim(1).extent() == ref.H;
    if (shape_ok) {
        for (int j = 0; j < ref.H; ++j) {
            for (int i = 0; i < ref.W; ++i) {
                const double r = ref.x[ref.at(i, j)];
                max_diff = std::max(max_diff, std::abs(double(xv(i, j)) - r));
                max_ref = std::max(max_ref, std::abs(r));
            }
        }
    }
    const double tol = 1e-4 * std::max(1.0, max_ref);
    const bool finite = std::isfinite(max_diff);
    const bool ok = shape_ok && finite && max_diff <= tol;
    // Objective: Halide's float64 evaluation of its iterate vs the reference's.
    const double obj_hw = hw.objective();
    const double obj_ref = Reference::objective_of(ref.x, ref.b, ref.W, ref.H, ref.alpha);
    const bool obj_ok = std::abs(obj_hw - obj_ref) <= 1e-4 * std::max(1.0, std::abs(obj_ref));
    std::printf("  %-22s %4dx%-4d max|diff| = %.3g (tol %.3g)  objective %.6f vs %.6f  %s\n", label, ref.W, ref.H,
                max_diff, tol, obj_hw, obj_ref, ok && obj_ok ? "ok" : "FAIL");
    check(ok, label);
    check(obj_ok, "objective");
    return ok && obj_ok;
}

void check_size(int W, int H, std::mt19937& rng) {
    constexpr float alpha = 0.1f;
    std::uniform_real_distribution<float> uni(0.0f, 1.0f);
    std::vector<float> bv(size_t(W) * H);
    for (float& v : bv) v = uni(rng);

    // Give b non-zero mins to check that the constructor takes any 2-D buffer.
    Halide::Runtime::Buffer<float> b(W, H);
    b.set_min(3, -2);
    for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) b(3 + i, -2 + j) = bv[size_t(j) * W + i];

    HandwrittenTV hw(b, alpha);
    const float sigma = 1.0f / std::sqrt(8.0f), tau = 1.0f / std::sqrt(8.0f), theta = 1.0f;
    const float lambda = 1.0f, mu = 0.95f * lambda / 8.0f;  // mu <= lambda / ||grad||^2

    {
        Reference ref(W, H, alpha, bv);
        hw.reset();
        hw.pc_iteration(sigma, tau, theta);
        ref.pc_iteration(sigma, tau, theta);
        compare_x(hw, ref, "PC, 1 iteration");
        for (int k = 1; k < 20; ++k) {
            hw.pc_iteration(sigma, tau, theta);
            ref.pc_iteration(sigma, tau, theta);
        }
        compare_x(hw, ref, "PC, 20 iterations");
    }
    {
        Reference ref(W, H, alpha, bv);
        hw.reset();
        hw.ladmm_iteration(lambda, mu);
        ref.ladmm_iteration(lambda, mu);
        compare_x(hw, ref, "L-ADMM, 1 iteration");
        for (int k = 1; k < 20; ++k) {
            hw.ladmm_iteration(lambda, mu);
            ref.ladmm_iteration(lambda, mu);
        }
        compare_x(hw, ref, "L-ADMM, 20 iterations");
    }
    {
        // Different parameters after a reset on the same instance (theta != 1, larger steps).
        Reference ref(W, H, alpha, bv);
        hw.reset();
        for (int k = 0; k < 20; ++k) {
            hw.pc_iteration(0.5f, 0.2f, 0.5f);
            ref.pc_iteration(0.5f, 0.2f, 0.5f);
        }
        compare_x(hw, ref, "PC(0.5,0.2,0.5), 20 it");
    }
}

void check_convergence() {
    constexpr int N = 128;
    constexpr float alpha = 0.1f;
    std::mt19937 rng(1234);
    std::normal_distribution<float> noise(0.0f, 0.1f);
    std::vector<float> bv(size_t(N) * N);
    Halide::Runtime::Buffer<float> b(N, N);
    for (int j = 0; j < N; ++j) {
        for (int i = 0; i < N; ++i) {
            float v = 0.2f;                                          // background
            if (i >= 20 && i < 70 && j >= 30 && j < 90) v = 0.8f;    // rectangle
            if ((i - 90) * (i - 90) + (j - 80) * (j - 80) < 25 * 25) v = 0.5f;  // disc
            if (j >= 100 && i < 40) v = 1.0f;                        // corner block
            b(i, j) = bv[size_t(j) * N + i] = v + noise(rng);
        }
    }
    HandwrittenTV hw(b, alpha);
    const float step = 1.0f / std::sqrt(8.0f);
    const double obj_b = Reference::objective_of(bv, bv, N, N, alpha);
    double prev = 0.0;
    for (int k = 0; k < 300; ++k) {
        hw.pc_iteration(step, step, 1.0f);
        if (k == 199) prev = hw.objective();
    }
    const double obj = hw.objective();
    std::printf("  PC 300 it, 128x128: objective %.6f (x = b: %.6f, after 200 it: %.6f)  %s\n", obj, obj_b, prev,
                obj < obj_b ? "ok" : "FAIL");
    check(std::isfinite(obj) && obj < obj_b, "PC objective below objective(b)");
}

}  // namespace

int main() {
    try {
        std::mt19937 rng(42);
        const int sizes[][2] = {{37, 23}, {1, 17}, {17, 1}, {64, 64}};
        for (const auto& s : sizes) {
            std::printf("size %dx%d\n", s[0], s[1]);
            check_size(s[0], s[1], rng);
        }
        std::printf("convergence\n");
        check_convergence();
    } catch (const std::exception& e) {
        std::printf("exception: %s\n", e.what());
        return 1;
    }
    if (g_failures != 0) {
        std::printf("%d check(s) FAILED\n", g_failures);
        return 1;
    }
    std::printf("all checks passed\n");
    return 0;
}
