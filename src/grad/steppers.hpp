// Internal: one algorithm's iteration and its reverse, for the gradient engine (gradient.cpp).
// A state is a list of images, x first:
//   Pock–Chambolle     (x, x_prev, y_1..y_m)          steps (σ, τ, θ)
//   linearized ADMM    (x, z_1..z_m, u_1..u_m)        steps (λ, μ)
//   ADMM               (x, z_1..z_m, u_1..u_m)        steps (ρ)       (x: the last x-update)
// The scaled duals u of the ADMMs follow their step (u = y/ρ, u = λy): when a step changes between
// iterations, the iteration first rescales u, as pg::solve does after residual balancing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backward.hpp"
#include "../solve/engine.hpp"
#include "proxgen/algorithm.hpp"

namespace proxgen::gradients {

class Stepper {
public:
    virtual ~Stepper() = default;
    virtual std::vector<std::vector<int>> state_shapes() const = 0;
    virtual int step_count() const = 0;
    /// out = T(in) with this iteration's steps (and the previous iteration's, for the rescale of u).
    virtual void forward(const std::vector<Image>& in, std::vector<Image>& out, const double* steps,
                         const double* previous) = 0;
    /// The reverse of forward(in) = out: g_in = (∂out/∂in)ᵀ g_out; adds the data slots' gradients to
    /// acc and the steps' to acc.steps (this iteration) and previous_grads (the rescale's part, may
    /// be null). g_out may be used as scratch.
    virtual void reverse(const std::vector<Image>& in, const std::vector<Image>& out, std::vector<Image>& g_out,
                         std::vector<Image>& g_in, const double* steps, const double* previous, Accumulator& acc,
                         double* previous_grads) = 0;
    /// Bytes of the stepper's own work buffers.
    virtual std::size_t bytes() const = 0;
    double compile_seconds = 0;
};

/// A reverse stage's kernel: which() of a fresh Pipelines(p, req) (PCGradPipelines,
/// SplitGradPipelines), compiled under the compiler lock and cached per role and request.
template <class Pipelines>
Stage compile_stage(const ir::Problem& p, const std::string& role, const Request& req,
                    StageBuilder (Pipelines::*which)()) {
    auto lock = jit::compiler_lock();
    Pipelines pipes(p, req);
    StageBuilder b = (pipes.*which)();
    Halide::Pipeline pipe = b.pipeline();
    jit::KernelPtr k = detail::kernel_for(p, role + ":" + req.key(), [&] { return jit::Source{pipe, pipes.arguments()}; });
    return b.describe(k);
}

/// data: the problem's data as the kernels read it (its scalars may change between calls).
std::unique_ptr<Stepper> make_pock_chambolle(const ir::Problem& p, const Request& req, lower::DataArgs& data);
std::unique_ptr<Stepper> make_ladmm(const ir::Problem& p, const Request& req, lower::DataArgs& data);
std::unique_ptr<Stepper> make_admm(const ir::Problem& p, const Request& req, lower::DataArgs& data);

/// Shared by the steppers: `dst = src` elementwise.
void copy_into(const Image& src, Image& dst);
/// dst = src · s; returns nothing.
void scale_into(const Image& src, double s, Image& dst);
double dot(const Image& a, const Image& b);

}  // namespace proxgen::gradients
