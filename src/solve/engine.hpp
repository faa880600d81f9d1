// Internal: what the algorithms share — the JIT cache, state buffers, norms, the stopping rule,
// the verbose table. Each algorithm (pock_chambolle.cpp, ladmm.cpp) builds its step pipelines
// once per problem structure and runs its loop in C++.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Halide.h>

#include "../lower/lowering.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/solve/options.hpp"
#include "proxgen/solve/result.hpp"

namespace proxgen::detail {

/// Returns the cached object for key, building it (and counting the compile time) on a miss.
std::shared_ptr<void> cached(const std::string& key, const std::function<std::shared_ptr<void>()>& build,
                             double& compile_seconds);

template <class T>
std::shared_ptr<T> cached_as(const std::string& key, const std::function<std::shared_ptr<T>()>& build,
                             double& compile_seconds) {
    return std::static_pointer_cast<T>(cached(key, [&] { return std::shared_ptr<void>(build()); }, compile_seconds));
}

/// Compile for the JIT target, once.
void compile(Halide::Pipeline& p);

/// Runs a pipeline into the given output buffers.
void run(Halide::Pipeline& p, std::vector<Image*> outputs);
/// Sets an input parameter to an image.
void set(Halide::ImageParam& p, const Image& img);

double norm2(const Image& a);                     // ‖a‖₂ in float64
double norm2_diff(const Image& a, const Image& b);  // ‖a − b‖₂

/// ‖K‖ of one Ψ term by power iteration on KᵀK (40 steps, ×1.05 margin), pipelines cached.
double power_iteration_norm(const ir::Problem& p, const ir::Term& t);
/// p with every Ψ term's missing norm bound (not finite, or ≤ 0) estimated by power iteration.
ir::Problem with_norm_bounds(const ir::Problem& p);

/// Initial x: opt.x0 (checked), the warm result's x, or zeros.
Image initial_x(const ir::Problem& p, const Options& opt, const Result* warm);
/// The adapted step sizes of a warm start made by the same algorithm on the same structure
/// (n of them), else nullptr: the continuation then restarts from the default steps.
const std::vector<double>* warm_steps(const ir::Problem& p, const Result* warm, std::size_t n);
/// Shapes of the Ψ terms' outputs, one per term.
std::vector<std::vector<int>> psi_shapes(const ir::Problem& p);
/// ‖K‖ bound of the stacked Ψ operators: √Σ‖K_i‖².
double stacked_norm_bound(const ir::Problem& p);
/// Number of elements of all Ψ outputs (m) and of x (n), for the √dim·ε_abs tolerances.
std::size_t psi_elements(const ir::Problem& p);

/// The x-update of this plan goes through a transform (fft / dct).
inline bool spectral(const ir::Problem& p) { return plan::spectral(p.x_update); }

/// Shared bookkeeping of the loop: timing, history, stopping, callback, verbose table.
class Monitor {
public:
    Monitor(const ir::Problem& p, const Options& opt, Result& r);
    bool should_check(int it) const;
    /// Records a measurement; returns true when the tolerances are met. Throws proxgen::Error on
    /// NaN/Inf residuals (divergence).
    bool record(int it, double r_pri, double eps_pri, double r_dual, double eps_dual, const Image& x);
    /// Calls the user's callback; returns false to stop.
    bool after_iteration(int it);
    void finish(int it, bool converged, bool stopped);

private:
    const ir::Problem& problem_;
    const Options& opt_;
    Result& result_;
    IterationInfo last_;
    bool track_;
    std::chrono::steady_clock::time_point start_;
};

/// Pipeline that evaluates every term's K_i x + c_i (Ω then Ψ) at an input x.
struct TermValues {
    lower::Params params;
    Halide::ImageParam x;
    Halide::Pipeline pipeline;
    explicit TermValues(const ir::Problem& p);
};

Result pock_chambolle(const ir::Problem& p, const Options& opt, const Result* warm);
Result linearized_admm(const ir::Problem& p, const Options& opt, const Result* warm);
/// ADMM or HQS (p.algorithm): the quadratic x-update family.
Result quadratic_split(const ir::Problem& p, const Options& opt, const Result* warm);
/// ω: the curvature scale of the problem's smooth terms, Ω or Ψ: 2αβ² max|w|² ‖K‖² for a
/// quadratic, αβ² mean(1/max(b, 1)) ‖K‖² for a Poisson likelihood (its b/e² at e = b).
double curvature_scale(const ir::Problem& p);
/// ρ (ADMM, HQS; 1/λ of L-ADMM; σ₀ of PC): opt.rho, else ρ₀ = ω/‖K‖², where ρKᵀK and the smooth
/// part weigh alike (1 when nothing is smooth). Measured at 64²: deblurring is fastest for fixed ρ
/// in [0.03, 0.1] (ω/‖K‖² = 0.22; the former √ω/‖K‖ = 0.47 took twice the iterations), Poisson
/// deblurring for ρ ≈ 3e-4 … 1e-3, where ρ = 1 was 8× slower (docs/algorithms.md).
double admm_rho(const ir::Problem& p, const Options& opt);
/// "DCT solve (exact: ...)"-style text for describe().
std::string x_update_description(const ir::Problem& p);

/// Default step sizes as the algorithms use them (describe() prints the same numbers).
struct PCSteps {
    double tau, sigma, gamma;
    bool accelerated;
    bool adaptive = false;  ///< balance τ/σ from the residuals (automatic steps without acceleration)
};
PCSteps pc_steps(const ir::Problem& p, const Options& opt);
struct LADMMSteps {
    double lambda, mu;
};
LADMMSteps ladmm_steps(const ir::Problem& p, const Options& opt);

}  // namespace proxgen::detail
