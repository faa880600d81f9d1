// ADMM and HQS in the per-card tier (per_card.hpp): the cards' runner whose steps are small kernels
// shared across structures —
//   the x-update (G_Ω + ρ Σ K_iᵀK_i) x = rhs, rhs = −Σ_Ω A_tᵀ ∇_t(0) + ρ Σ K_iᵀ(z_i − u_i):
//     each Ω term's gradient and Gram card by card (PerCardQuadratic), the Ψ operators node by
//     node; solved on the host as the plan says — elementwise blocks divided by G's diagonal
//     (G·1), spectral ones through SpectralGram, the rest by the conjugate gradient card over host
//     vectors with the circulant preconditioner (pixel blocks are not run per card);
//   K_i x⁺ (HQS: at x̂ = x⁺ + m (x⁺ − x)) and each term's (z, u) step (PerCardSplit).
// admm.cpp runs it (Tier::per_card) and hands its state to the fused runner where the tiers switch
// (Tier::automatic).
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "card_runner.hpp"
#include "engine.hpp"
#include "per_card_quadratic.hpp"
#include "per_card_split.hpp"
#include "spectral_gram.hpp"

namespace proxgen::detail {

/// The per-card runner of the ADMM and HQS cards, reporting its checks to `monitor`.
class PerCardQuadraticRunner {
public:
    PerCardQuadraticRunner(const ir::Problem& p, const Options& opt, const Result* warm, Monitor& monitor);
    PerCardQuadraticRunner(const PerCardQuadraticRunner&) = delete;
    PerCardQuadraticRunner& operator=(const PerCardQuadraticRunner&) = delete;

    const Image& x() const { return x_; }
    std::vector<Image> duals() const { return split_.duals(); }
    int cg_iterations() const { return cg_total_; }
    /// x (or its split copy), the duals and the CG iterations into res.
    void finish(Result& res) const;

    // the cards' Runner: ADMM's step, then HQS's (the z-step at x̂ = x + m (x − x_prev))
    bool run_step(double rho, bool measure);
    bool run_step(double rho, double momentum, bool measure);
    bool sums(algorithms::SplitSums& s) {
        s = sums_;
        return true;
    }
    algorithms::Verdict record(int it, const algorithms::Residuals& r, bool) {
        return monitor_verdict(mon_, it, r, x_, "the split (z, u) step");
    }
    void rescale_dual(double factor) { split_.rescale_dual(factor); }
    double objective() { return mon_.returned_objective(x_); }
    bool stage_ended(int it) { return hqs_stage_ended(mon_, x_, x_stage_, it); }
    bool after_iteration(int it) { return mon_.after_iteration(it); }

private:
    /// x ← the x-update's solution at penalty ρ (CG warm-started at x).
    void solve(double rho);
    /// gv = G v = G_Ω v + ρ Σ K_iᵀK_i v (flat state images).
    void gram(const Image& v, Image& gv, double rho);
    void conjugate_gradient(double rho);

    const ir::Problem& p_;
    Monitor& mon_;
    const Options& opt_;
    const bool hqs_;
    Image x_, x_prev_, x_hat_, x_stage_;
    PerCardSplit split_;
    PerCardQuadratic omega_;
    std::vector<std::vector<int>> vshapes_;
    std::vector<Image> rhs_, diag_omega_, diag_psi_;  // per variable (diagonals: elementwise blocks)
    std::vector<Image> gram_parts_;                     // G v per variable
    std::optional<SpectralGram> spectral_;
    // CG: residual, preconditioned residual, direction, G d (flat), and the preconditioner
    Image r_, s_, d_, gd_;
    std::unique_ptr<CirculantPreconditioner> precond_;  // (none where p has no circulant stand-in)
    int cg_total_ = 0;
    algorithms::SplitSums sums_;
};

}  // namespace proxgen::detail
