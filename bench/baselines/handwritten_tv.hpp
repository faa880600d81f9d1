// The interface older benchmarks use (bench_iterations.cpp, bench_canonical.cpp): one
// Pock–Chambolle or linearized-ADMM TV-denoising iteration per call, steps given per call.
// It runs the baselines of baseline.hpp (one fused pipeline per iteration); new code should use
// make_baseline directly.
//
// Problem: minimize_x ||x - b||^2 + alpha * sum_p ||(grad x)_p||_2 (see baseline.hpp).
//  pc_iteration(sigma, tau, theta):  y <- proj(y + sigma grad xbar); x' = (x - tau grad^T y + 2 tau b)
//                                    / (1 + 2 tau); xbar = x' + theta (x' - x)
//  ladmm_iteration(lambda, mu):      x' = (x - (mu/lambda) grad^T(grad x - z + u) + 2 mu b) / (1 + 2 mu);
//                                    v = grad x' + u; z = shrink(v, lambda alpha); u = v - z
#pragma once

#include <memory>

#include "HalideBuffer.h"

namespace proxgen::bench {

class Baseline;

class HandwrittenTV {
public:
    /// `b` must be a 2-D float buffer (W x H, at least 2 x 2, any mins); it is copied.
    HandwrittenTV(const Halide::Runtime::Buffer<float>& b, float alpha);
    ~HandwrittenTV();
    HandwrittenTV(HandwrittenTV&&) noexcept;
    HandwrittenTV& operator=(HandwrittenTV&&) noexcept;
    HandwrittenTV(const HandwrittenTV&) = delete;
    HandwrittenTV& operator=(const HandwrittenTV&) = delete;

    /// Zero the whole state (x, duals, split variables) of both algorithms.
    void reset();
    /// One Pock-Chambolle iteration (dual step, then primal step).
    void pc_iteration(float sigma, float tau, float theta);
    /// One linearized-ADMM iteration (x-update, then the (z, u)-update).
    void ladmm_iteration(float lambda, float mu);
    /// The iterate of the algorithm that ran last, W x H with mins 0; valid until the next call.
    [[nodiscard]] const Halide::Runtime::Buffer<const float>& x() const;
    /// ||x - b||^2 + alpha * sum_p ||(grad x)_p||_2, accumulated in float64.
    [[nodiscard]] double objective() const;

    [[nodiscard]] int width() const;
    [[nodiscard]] int height() const;
    [[nodiscard]] float alpha() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace proxgen::bench
