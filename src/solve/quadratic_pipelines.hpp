// ADMM's and HQS's step pipelines (the x-update of the quadratic split), defined once and used
// twice: compiled in-process by the JIT loop (admm.cpp) and emitted ahead of time per target by
// the generator (src/aot/). Schedules follow the active lower::ScheduleScope.
//
// The x-update solves (G_Ω + ρ Σ K_iᵀK_i) x = rhs by the plan's strategy:
//  - elementwise / pixel_block: `rhs_or_x` writes x itself;
//  - fft / dct: `rhs_or_x` writes the right-hand side, which a transform solves; the Gram's
//    eigenvalues come from `gram_apply` (rho_x = 0: Ω's part) and `gram_psi` (Ψ's part per unit ρ)
//    applied to an impulse, for the generated solvers, which have no transfer functions;
//  - cg: `residual` writes rhs − G x at the warm start, `gram_apply` G d; where the operators have
//    circulant stand-ins (circulant_problem), `precond_gram` and `precond_gram_psi` are the stand-in
//    Gram's two parts, whose eigenvalues a generated solver's preconditioner takes (the JIT's reads
//    them off the cards); `gram_split` is G d from P d (P the stand-in's Gram, which CG's
//    recurrence keeps beside d) and the terms whose stand-in differs, so a CG step applies no
//    circulant operator in space.
// In several variables every x-sized output is one output per variable (lower::StateParams' layout).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <Halide.h>

#include "split_steps.hpp"

namespace proxgen::detail {

/// The operator with every Neumann grad made periodic: the circulant matrix CG's preconditioner
/// inverts by FFT (it differs from the true one only near the image border, so preconditioned CG
/// needs a few iterations). nullopt where no circulant stands in (elementwise weights, subsampling).
std::optional<ir::Node> circulant_approximation(const ir::Node& n);

/// The problem whose Gram CG's preconditioner inverts: every term's operator replaced by its
/// circulant_approximation. nullopt where a term has none, an Ω term weighs its argument
/// elementwise, or the problem has several variables (the preconditioner solves one image).
std::optional<ir::Problem> circulant_problem(const ir::Problem& p);

/// The pipelines (built, not compiled); every one takes arguments(), then its outputs.
struct QuadraticPipelines {
    lower::Params params;
    lower::StateParams x;
    lower::StateParams direction;  // the vector G is applied to
    Halide::Param<float> rho{"rho_x"};
    Halide::Pipeline rhs_or_x;    // elementwise: x itself; FFT / DCT: the right-hand side
    Halide::Pipeline gram_apply;  // CG and spectral plans: G · direction
    Halide::Pipeline gram_psi;    // spectral plans: Σ_Ψ K_iᵀK_i · direction (rho_x = 1)
    Halide::Pipeline residual;    // CG only: rhs − G x at the warm start, one adjoint per term
    /// CG with a circulant stand-in: its Gram · direction (Ω's part at rho_x = 0) and Ψ's part
    Halide::Pipeline precond_gram, precond_gram_psi;
    /// CG with a circulant stand-in P: G d = P d + E d, E = G − P, from d and P d
    /// (`precond_direction`). E sums only the terms whose stand-in differs from their operator (a
    /// Neumann grad made periodic: nonzero on the border alone); a circular convolution adds
    /// nothing, so a deconvolution's CG step convolves nothing in space.
    lower::StateParams precond_direction;
    Halide::Pipeline gram_split;
    std::unique_ptr<SplitPipelines> split;

    /// ADMM / HQS plans whose (z, u)-update fuses with the next x-update (fusable): x_prev and the
    /// extrapolation's weight (HQS's momentum; 0 gives x itself)
    Halide::ImageParam x_prev;
    Halide::Param<float> momentum{"momentum"};

    explicit QuadraticPipelines(const ir::Problem& p);

    /// Whether zu_and_x exists for p: one variable, every Ψ term local over its pixels
    /// (lower::psi_fusable), an x-update that is not CG.
    static bool fusable(const ir::Problem& p);
    /// The (z, u)-update at x̂ = x + momentum (x − x_prev) and the next x-update's output (rhs_or_x's)
    /// from z⁺ and u⁺ (HQS: from z⁺ and its input u, which it keeps at 0), in one call: the Tuple
    /// {x-update output, z_i⁺ components, u_i⁺ components per term} over the variable's domain,
    /// z⁺ and u⁺ recomputed per strip of rows where the adjoints read them.
    Halide::Pipeline zu_and_x(const ir::Problem& p);
    /// arguments(), then x_prev and momentum.
    std::vector<Halide::Argument> zu_and_x_arguments() const;
    /// arguments(), then precond_direction (per variable).
    std::vector<Halide::Argument> gram_split_arguments() const;

    /// Every input of every pipeline, in one order: data images by slot, scalars by slot, x (per
    /// variable), direction (per variable), rho_x, then the split's (z_i, z_prev_i, u_i per Ψ term,
    /// rho).
    std::vector<Halide::Argument> arguments() const;

private:
    /// The x-update's output per variable (x itself on elementwise blocks and pixel blocks, the
    /// right-hand side on spectral ones) from the split state z, u.
    std::vector<Halide::Expr> x_update_values(lower::Lowerer& L, const ir::Problem& p, const lower::State& xin,
                                              const std::vector<lower::Lowered>& z,
                                              const std::vector<lower::Lowered>& u, lower::Stages& st) const;
};

/// CG's vector operations over the variables (one buffer each), as pipelines: a generated solver
/// runs its conjugate gradient wherever its steps run (a GPU's included) instead of copying the
/// vectors to the host at every step. Each takes its arguments() in the order listed, then its
/// outputs; the partial sums are lower::product_sums' (16 lanes × strips of rows × one quantity per
/// variable), which the caller totals in float64.
struct CGVectorPipelines {
    lower::StateParams x, r, d, gd;  // update's inputs (gd = G d)
    lower::StateParams s;            // direction's preconditioned residual
    lower::StateParams pd;           // direction_pair's P d (P: the preconditioner's matrix)
    Halide::Param<float> factor{"cg_factor"};  // update's step, direction's β
    /// x + step d, r − step gd (one output per variable each, written where x and r are), then
    /// the partial sums of (r − step gd)².
    Halide::Pipeline update;
    /// s + β d (one output per variable, written where d is).
    Halide::Pipeline direction;
    /// s + β d and r + β P d (one output per variable each, written where d and P d are): the
    /// direction and, since s = P⁻¹ r, its image under P, for QuadraticPipelines::gram_split.
    Halide::Pipeline direction_pair;
    /// The partial sums of x ⊙ r, one quantity per variable (x and r as its two operands).
    Halide::Pipeline dot;

    explicit CGVectorPipelines(const ir::Problem& p);
    /// x, r, d, gd (per variable), factor.
    std::vector<Halide::Argument> update_arguments() const;
    /// s, d (per variable), factor.
    std::vector<Halide::Argument> direction_arguments() const;
    /// s, d, r, pd (per variable), factor.
    std::vector<Halide::Argument> direction_pair_arguments() const;
    /// x, r (per variable).
    std::vector<Halide::Argument> dot_arguments() const;
};

}  // namespace proxgen::detail
