// Hand-written Halide baseline for TV denoising, used to benchmark the
// iterations ProxGen generates against what an expert would write by hand.
//
// Problem (isotropic TV denoise):
//     minimize_x  ||x - b||^2 + alpha * sum_p ||(grad x)_p||_2
// with forward differences (zero in the last column / row):
//     (grad x)(i,j,0) = x(i+1,j) - x(i,j)   if i < W-1, else 0
//     (grad x)(i,j,1) = x(i,j+1) - x(i,j)   if j < H-1, else 0
// Layout: Halide order, i (column) fastest, j (row), the gradient stacked on
// a last axis of extent 2 (planar W x H x 2 buffers).
//
// Two algorithms, one iteration per call, each a pair of JIT-compiled Halide
// pipelines built once in the constructor. All buffers are allocated once;
// state buffers are swapped, never copied.
//
//  (a) Pock-Chambolle with extrapolation (state x, x_prev, y):
//        xbar  = x + theta (x - x_prev)
//        y    <- proj_{||.||_2 <= alpha per pixel}(y + sigma grad xbar)
//        x_new = (x - tau grad^T y + 2 tau b) / (1 + 2 tau)
//  (b) Linearized ADMM (Parikh & Boyd 4.4.2; state x, z, u):
//        x_new = (v + 2 mu b) / (1 + 2 mu),  v = x - (mu/lambda) grad^T(grad x - z + u)
//        v2    = grad x_new + u
//        z_new = v2 * max(0, 1 - lambda alpha / ||v2_p||)   (per pixel, 0 at v2_p = 0)
//        u_new = v2 - z_new
//
// Halide.h is kept out of this header: only HalideBuffer.h is needed here.
#pragma once

#include <memory>

#include "HalideBuffer.h"

namespace proxgen::bench {

class HandwrittenTV {
public:
    /// `b` must be a 2-D float buffer (W x H, any mins/strides); it is copied.
    /// Compiles the four pipelines for the JIT target from the environment.
    HandwrittenTV(const Halide::Runtime::Buffer<float>& b, float alpha);
    ~HandwrittenTV();
    HandwrittenTV(HandwrittenTV&&) noexcept;
    HandwrittenTV& operator=(HandwrittenTV&&) noexcept;
    HandwrittenTV(const HandwrittenTV&) = delete;
    HandwrittenTV& operator=(const HandwrittenTV&) = delete;

    /// Zero the whole state (x, x_prev, y, z, u).
    void reset();

    /// One Pock-Chambolle iteration (dual step, then primal step).
    void pc_iteration(float sigma, float tau, float theta);

    /// One linearized-ADMM iteration (x-update, then the (z, u)-update).
    void ladmm_iteration(float lambda, float mu);

    /// Current iterate, W x H with mins 0. The reference is to the buffer that
    /// currently holds x: state buffers are swapped by every iteration, so
    /// call x() again after iterating instead of keeping the reference.
    [[nodiscard]] const Halide::Runtime::Buffer<float>& x() const;

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
