// The project's hand-written baselines: the iterations an expert would write by hand in Halide
// (and FFTW where a step needs a transform) for TV denoising and TV deconvolution, the yardstick
// every ProxGen timing is compared with (docs/performance.md).
//
// Problems (ProxImaL's conventions, as ProxGen's):
//   denoise:  minimize_x  ||x - b||^2 + alpha * sum_p ||(grad x)_p||_2
//   deconv:   minimize_x  ||k * x - b||^2 + alpha * sum_p ||(grad x)_p||_2 + nonneg(x)
// grad: forward differences, the last column's / row's difference 0, stacked on a last axis of 2;
// k * x: circular convolution, kernel centre at (floor(kw/2), floor(kh/2)).
//
// Iterations (from x = x0 or 0, every dual / split variable 0; K = grad for denoising):
//  Pock–Chambolle (tau, sigma, theta), y-then-x order as ProxGen's:
//      y  <- proj_{||.||_2 <= alpha per pixel}(y + sigma grad xbar)           (deconv also:
//      w  <- min(w + sigma xbar, 0)                                            the nonneg dual)
//      x' <- argmin_u ||k * u - b||^2 + ||u - (x - tau (grad^T y + w))||^2 / (2 tau)
//            (denoise: (x - tau grad^T y + 2 tau b) / (1 + 2 tau))
//      xbar <- x' + theta (x' - x),  x <- x'
//  Linearized ADMM (lambda, mu), Parikh & Boyd 4.4.2:
//      x' <- (x - (mu/lambda) grad^T(grad x - z + u) + 2 mu b) / (1 + 2 mu)
//      v = grad x' + u;  z <- v max(0, 1 - lambda alpha / ||v_p||);  u <- v - z
//  ADMM (rho), scaled form, and HQS (rho; fixed, no momentum):
//      x' <- argmin ||k * x - b||^2 + (rho/2) ||grad x - z + u||^2 [+ (rho/2) ||x - z2 + u2||^2]
//      z  <- prox(grad x' + u),  u <- u + grad x' - z       (HQS: u = 0, no dual update)
//      denoising: x' exact by DCT (baseline_admm_hqs.cpp); deconvolution: preconditioned CG as
//      ProxGen's (baseline_split_deconv.cpp says exactly what it computes).
//
// Every baseline: state planes padded with a halo (inner loops test no boundary), one Halide
// pipeline call per iteration (dual and primal steps fused; the stencil inputs of the second
// step recomputed per strip of rows), strips parallel and 16-wide vectorized (AVX-512), all
// buffers allocated once. `iterations_per_call` = 4 fuses four PC or L-ADMM denoising
// iterations into one call (temporal blocking over overlapping tiles); run(n) then makes n/4
// such calls and n%4 single ones, computing the same iterates.
//
// Halide.h stays out of this header: only HalideBuffer.h is needed to use the baselines.
#pragma once

#include <memory>
#include <string>

#include "HalideBuffer.h"

namespace proxgen::bench {

enum class BaselineAlgorithm { pock_chambolle, ladmm, admm, hqs };

/// The problem: `b` (W x H, any mins; copied), `kernel` (empty: denoising; otherwise the blur
/// of a deconvolution with nonneg(x)), the TV weight `alpha`.
struct TVProblem {
    Halide::Runtime::Buffer<const float> b;
    Halide::Runtime::Buffer<const float> kernel;
    float alpha = 0.1f;
    [[nodiscard]] bool deconvolution() const { return kernel.data() != nullptr; }
};

/// Step parameters, named as in pg::Options; each algorithm reads its own.
struct Steps {
    float tau = 0, sigma = 0, theta = 1;  ///< Pock–Chambolle
    float lambda = 0, mu = 0;             ///< linearized ADMM
    float rho = 0;                        ///< ADMM, HQS
    /// ADMM / HQS deconvolution: CG stops once ||r|| <= cg_tol ||r_0|| or after cg_max_iters.
    float cg_tol = 1e-3f;
    int cg_max_iters = 50;
};

class Baseline {
public:
    virtual ~Baseline();
    Baseline(const Baseline&) = delete;
    Baseline& operator=(const Baseline&) = delete;

    /// e.g. "pc_denoise", "ladmm_denoise_x4", "pc_deconv".
    [[nodiscard]] virtual std::string name() const = 0;
    /// Back to the initial state: x = x0 (zero when x0 is empty), every dual / split variable 0.
    virtual void reset(const Halide::Runtime::Buffer<const float>& x0 = {}) = 0;
    /// New step parameters for the following iterations (the state is kept).
    virtual void set_steps(const Steps& steps) = 0;
    /// Runs n iterations.
    virtual void run(int n) = 0;
    /// The current iterate, W x H with mins 0, viewed in place: valid until the next run/reset.
    [[nodiscard]] virtual Halide::Runtime::Buffer<const float> x_view() const = 0;
    /// The minimum number of bytes one iteration must move between memory and the cores: every
    /// state plane the iteration reads once plus every plane it writes once (4-byte floats; the
    /// formula of each baseline is in its source and in bench/README.md). For a fused baseline,
    /// per iteration: the state is read and written once per call.
    [[nodiscard]] virtual double bytes_per_iteration() const = 0;
    /// CG steps per iteration since the last reset (0 where the x-update is not CG).
    [[nodiscard]] virtual double cg_steps_per_iteration() const { return 0; }

    /// A copy of the current iterate (W x H, mins 0).
    [[nodiscard]] Halide::Runtime::Buffer<float> x() const;
    [[nodiscard]] int width() const { return W_; }
    [[nodiscard]] int height() const { return H_; }

protected:
    Baseline(int W, int H) : W_(W), H_(H) {}

private:
    int W_, H_;
};

/// The baseline of `algorithm` for `problem` (denoising when problem.kernel is empty, otherwise
/// deconvolution with nonneg), with the given steps. iterations_per_call: 1, or 4 for PC and
/// L-ADMM denoising. Compiles its pipelines here (about a second); throws std::invalid_argument
/// for a combination that has no baseline or bad data.
std::unique_ptr<Baseline> make_baseline(BaselineAlgorithm algorithm, const TVProblem& problem, const Steps& steps,
                                        int iterations_per_call = 1);

/// The problem's objective at x in float64: ||k * x - b||^2 + alpha TV(x) (the nonneg indicator
/// is not included).
double tv_objective(const TVProblem& problem, const Halide::Runtime::Buffer<const float>& x);

}  // namespace proxgen::bench
