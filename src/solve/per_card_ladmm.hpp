// Linearized ADMM in the per-card tier (per_card.hpp): the card's runner whose steps are small
// kernels shared across structures —
//   g = Σ K_iᵀ(K_i x − z_i + u_i) / λ, node by node (PerCardOperator; K_i x from the last step);
//   x⁺ = prox_{μΩ}(x − μ g): Pock–Chambolle's primal step of Ω alone (PerCardOmegaStep);
//   K_i x⁺ node by node, then (z_i⁺, u_i⁺) = (prox_{λΨ_i}(K_i x⁺ + u_i), K_i x⁺ + u_i − z_i⁺)
//     (PerCardSplit, with the check's sums of squares on the host). ladmm.cpp runs it
// (Tier::per_card) and hands its state to the fused runner where the tiers switch
// (Tier::automatic).
#pragma once

#include <optional>
#include <vector>

#include "card_runner.hpp"
#include "engine.hpp"
#include "per_card_pc.hpp"
#include "per_card_split.hpp"
#include "proxgen/algorithms/linearized_admm.hpp"

namespace proxgen::detail {

/// What linearized ADMM's runners in both tiers start from: the step rule (ladmm_steps), whether it
/// balances the residuals, and a warm start's adapted steps where it has them.
struct LADMMStart {
    steps::LinearizedADMM rule;
    bool adaptive = false, warm = false;
    algorithms::LADMMSteps warm_steps;
    ResidualBalancing warm_balancing;
    LADMMStart(const ir::Problem& p, const Options& opt, const Result* warm);
    /// The card loop's restart values; false where the warm start has none.
    bool restart(algorithms::LADMMSteps& s, ResidualBalancing& b) const {
        s = warm_steps;
        b = warm_balancing;
        return warm;
    }
};

/// The per-card runner of the linearized ADMM card, reporting its checks to `monitor`. Kernels are
/// bound to the images' addresses: contents move by swaps and assignments, never the bound objects.
class PerCardLADMMRunner {
public:
    PerCardLADMMRunner(const ir::Problem& p, const Options& opt, const Result* warm, Monitor& monitor);
    PerCardLADMMRunner(const PerCardLADMMRunner&) = delete;
    PerCardLADMMRunner& operator=(const PerCardLADMMRunner&) = delete;

    const LADMMStart& start() const { return start_; }
    /// The iterate x (the returned solution may be a split copy: finish()).
    const Image& x() const { return x_; }
    /// z_i then u_i per Ψ term, as the fused runner reads a warm start.
    std::vector<Image> duals() const { return split_.duals(); }
    /// The solution (x or its split copy), the iterate where they differ, and the duals into res.
    void finish(Result& res) const { split_.finish(res, x_); }

    // the card's Runner
    int iterations_per_call() const { return 1; }
    bool run_block(const algorithms::LADMMSteps&) { return false; }
    bool run_step(const algorithms::LADMMSteps& s, bool measure);
    bool sums(algorithms::SplitSums& s) {
        s = sums_;
        return true;
    }
    algorithms::Verdict record(int it, const algorithms::Residuals& r, bool) {
        return monitor_verdict(mon_, it, r, x_, "the split (z, u) step");
    }
    void rescale_dual(double factor) { split_.rescale_dual(factor); }
    bool after_iteration(int it) { return mon_.after_iteration(it); }

private:
    const ir::Problem& p_;
    Monitor& mon_;
    const LADMMStart start_;
    Image x_, x_next_;
    PerCardSplit split_;
    std::optional<PerCardOmegaStep> omega_;  // (its g: Σ K_iᵀ(K_i x − z_i + u_i)/λ per variable)
    algorithms::SplitSums sums_;
};

}  // namespace proxgen::detail
