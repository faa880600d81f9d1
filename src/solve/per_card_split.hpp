// The split z_i = K_i x of linearized ADMM, ADMM and HQS in the per-card tier (per_card.hpp): each
// Ψ term's operator node by node (PerCardOperator), z and u with their double buffers, each term's
// (z, u) step as the split's kernel of a problem holding the term alone over a variable standing
// for K_i x (keyed by the penalty and its data, not the operator), and the residual sums on the
// host — what SplitState and its kernels are to the fused tier.
#pragma once

#include <deque>
#include <vector>

#include "engine.hpp"
#include "per_card.hpp"
#include "split_steps.hpp"

namespace proxgen::detail {

/// The split's (z, u) step of a one-term problem q (term_alone), from the kernel caches.
jit::KernelPtr split_zu_kernel(const ir::Problem& q);

/// Kernels are bound to the images' addresses: contents move by swaps, never the bound objects.
/// Not movable.
class PerCardSplit {
public:
    /// warm: z_i then u_i per Ψ term where it is a solve of p by algorithm a.
    PerCardSplit(const ir::Problem& p, const Result* warm, Algorithm a);
    PerCardSplit(const PerCardSplit&) = delete;
    PerCardSplit& operator=(const PerCardSplit&) = delete;

    /// K_i x for every term (the operators' own buffers, read by the next update() and measure()).
    void apply(const Image& x);
    /// Whether the last apply() was at this image's contents since (the caller says when x changed).
    bool applied() const { return applied_; }
    void forget_applied() { applied_ = false; }
    /// g_j = Σ_i K_iᵀ(a·K_i x + b·z_i + c·u_i) per variable (K_i x: the last apply()).
    void adjoint_sum(std::vector<Image>& g, float a, float b, float c);
    /// out_j += ρ Σ_i K_iᵀK_i v (per variable); the operators' buffers then hold K_i v (apply() again
    /// before update()).
    void add_gram(const std::vector<Image>& v, std::vector<Image>& out, double rho);
    /// (z, u) ← (prox_{Ψ,ρ}(K x + u), K x + u − z⁺) at the last apply(); with keep_dual = false (HQS)
    /// u stays 0 and the step's K x + u − z⁺ is kept as the implicit dual measure() reads.
    void update(double rho, bool keep_dual);
    /// The residual sums of the state after a step (algorithms::split_sums' quantities: Kᵀ(z −
    /// z_prev), Kᵀu, K_i x − z_i, K_i x, z_i) at x (applied again where the last apply() was not
    /// at x); implicit_dual: Kᵀ of the last step's implicit dual instead of u.
    algorithms::SplitSums measure(const Image& x, bool implicit_dual);
    void rescale_dual(double factor);
    /// z_i then u_i, copies.
    std::vector<Image> duals() const;
    /// x, or its split copy z_i (split_solution_term).
    const Image& solution(const Image& x) const;
    /// The solution at iterate x (and x itself where they differ) and the duals into res.
    void finish(Result& res, const Image& x) const {
        res.x = solution(x);
        if (res.x.data() != x.data()) res.x_iterate = x;
        res.duals = duals();
    }

private:
    const ir::Problem& p_;
    std::deque<PerCardOperator> ops_;  // (not movable: bound kernels)
    std::vector<ir::Problem> terms_;
    std::deque<lower::DataArgs> term_data_;
    std::vector<Image> z_, u_, z_next_, u_next_, kx_, kt_;
    std::vector<Image> w_;  // what each term's adjoint is applied to (SharedBuffers::term_scratch)
    std::vector<jit::Call> zu_;
    float rho_f_ = 0;
    bool applied_ = false;
    const float one_ = 1.0f;
};

}  // namespace proxgen::detail
