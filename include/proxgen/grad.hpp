// proxgen/grad.hpp — gradients of a loss of the solution with respect to a problem's named
// parameters and inputs, and (unrolled) to each iteration's step sizes (docs/gradients.md).
//
//   namespace pg = proxgen;
//   pg::rt::Scalar lambda = pg::rt::parameter("lambda", 0.05);
//   pg::rt::Data b = pg::rt::input("b", noisy), k = pg::rt::input("k", kernel);
//   auto prob = pg::rt::sum_squares(pg::rt::conv(k, x) - b) + lambda * pg::rt::group_norm1(pg::rt::grad(x));
//   pg::Options opt;  opt.max_iters = 100;                     // unrolled: exactly 100 iterations
//   pg::Gradient g = pg::rt::gradient(prob, opt, pg::Loss::sum_squares(clean), {.wrt = {"lambda", "k"}});
//   g.loss;  g.parameters["lambda"];  g.inputs["k"];           // dL/dλ, dL/dk (the kernel's shape)
//
// Two modes. Unrolled: the exact gradient of opt.max_iters iterations of the plan's algorithm with
// the step-size rule's steps held fixed along the way (the rule's first steps, or Pock–Chambolle's
// accelerated sequence; residual balancing, which depends on measured residuals, does not run), or
// with the steps given per iteration; memory is bounded by checkpointing (binomial, Griewank's
// revolve: `checkpoints` states kept, segments recomputed). Implicit: pg::solve to opt's
// tolerance, then the adjoint of the fixed-point map at the solution solved by iterating the same
// reverse step (memory independent of the iteration count).
//
// Pock–Chambolle, linearized ADMM and ADMM (with any x-update) are differentiated; every split
// term's penalty needs its card's prox_vjp (docs/gradients.md lists them and what each does at its
// kinks: the derivative of the branch the prox takes, an almost-everywhere derivative).
#pragma once

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "proxgen/algorithm.hpp"
#include "proxgen/image.hpp"
#include "proxgen/runtime.hpp"
#include "proxgen/solve/options.hpp"
#include "proxgen/solve/result.hpp"

namespace proxgen {

enum class GradientMode { unrolled, implicit };
const char* name(GradientMode m);

/// A loss of the solution x: built in, or given as dL/dx.
class Loss {
public:
    /// Σ (x − reference)².
    static Loss sum_squares(Image reference);
    /// 10 log10(peak² / mean((x − reference)²)) in dB: a figure to maximize (its gradient ascends).
    static Loss psnr(Image reference, double peak = 1.0);
    /// The caller's dL/dx (of the variable's shape); the loss's value is then NaN.
    static Loss gradient(Image dloss_dx);

    /// The loss at x, and dL/dx; both check x's shape against the reference's.
    double value(const Image& x) const;
    Image gradient_at(const Image& x) const;
    const char* kind() const;

private:
    enum class Kind { sum_squares, psnr, given } kind_ = Kind::sum_squares;
    Image image_;
    double peak_ = 1.0;
    void check(const Image& x) const;
};

struct GradientOptions {
    GradientMode mode = GradientMode::unrolled;
    /// Named inputs and parameters to differentiate (rt::input, rt::parameter); empty: all of them.
    std::vector<std::string> wrt;
    /// Unrolled: the step sizes of each iteration (step_names(algorithm) in order); empty: the
    /// step rule's (held fixed, see above). Its length must be Options::max_iters.
    std::vector<std::vector<double>> step_schedule;
    /// Unrolled: per-iteration values of named parameters that weigh terms (their gradients per
    /// iteration come back in Gradient::schedule_gradients). Each list: Options::max_iters values.
    std::map<std::string, std::vector<double>> parameter_schedule;
    /// Unrolled: states kept for the reverse pass (0: automatic, within memory_factor × the
    /// forward state; ≥ max_iters: every state, no recomputation).
    int checkpoints = 0;
    /// Unrolled, automatic checkpoints: the backward pass's state memory (checkpoints, adjoints,
    /// work buffers) as a multiple of the forward's state.
    double memory_factor = 4.0;
    /// Implicit: the adjoint iteration stops when ‖w_{k+1} − w_k‖ ≤ adjoint_tol ‖w_{k+1}‖, or after
    /// adjoint_max_iters.
    double adjoint_tol = 1e-6;
    int adjoint_max_iters = 5000;
};

/// The step sizes of an algorithm in Gradient::step_values order: Pock–Chambolle {sigma, tau,
/// theta}, linearized ADMM {lambda, mu}, ADMM {rho}.
std::vector<std::string> step_names(Algorithm a);

struct Gradient {
    Image x;                                    ///< the solution the loss was taken at
    double loss = std::numeric_limits<double>::quiet_NaN();
    std::map<std::string, double> parameters;   ///< dL/d named parameter
    std::map<std::string, Image> inputs;        ///< dL/d named input (the input's shape)
    /// Unrolled: each iteration's step sizes (step_names order) and dL/d them.
    std::vector<std::string> step_names;
    std::vector<std::vector<double>> step_values, step_gradients;
    /// Unrolled with a parameter schedule: dL/d each iteration's value.
    std::map<std::string, std::vector<double>> schedule_gradients;
    Algorithm algorithm = Algorithm::pock_chambolle;
    GradientMode mode = GradientMode::unrolled;
    int iterations = 0;           ///< forward iterations (unrolled: max_iters; implicit: the solve's)
    Result solve;                 ///< implicit: the forward solve
    int adjoint_iterations = 0;   ///< implicit
    bool adjoint_converged = false;
    double adjoint_residual = std::numeric_limits<double>::quiet_NaN();
    int checkpoints = 0;          ///< unrolled: states kept
    int forward_steps = 0;        ///< unrolled: forward iterations run in all (recomputation included)
    double forward_seconds = 0, backward_seconds = 0, compile_seconds = 0;
    std::size_t state_bytes = 0;     ///< one state of the algorithm (x and its split/dual images)
    std::size_t backward_bytes = 0;  ///< the backward pass's buffers at their peak (states, adjoints, work)
};

namespace rt {
/// dL/d(named inputs and parameters) of loss(x) where x solves prob with opt (opt.algorithm:
/// pock_chambolle, ladmm or admm; unrolled: opt.max_iters iterations exactly).
Gradient gradient(const Problem& prob, const Options& opt, const Loss& loss, const GradientOptions& g = {});
/// The unrolled map alone: x after opt.max_iters iterations with the steps gradient() would use
/// (g.step_schedule, or the rule's), no gradient.
Image unrolled(const Problem& prob, const Options& opt, const GradientOptions& g = {});
}  // namespace rt

}  // namespace proxgen
