// Pock–Chambolle in the per-card tier (per_card.hpp): the card's runner whose steps are small
// kernels shared across structures —
//   K_i x̄ per Ψ term, node by node (PerCardOperator);
//   y_i⁺ = prox_{σF_i*}(y_i + σ K_i x̄): the dual step of a problem holding term i alone over a
//     variable standing for K_i x (its key names the penalty and its data, not the operator);
//   Kᵀy⁺ node by node, summed per variable;
//   x⁺ = prox_{τΩ}(x − τ Kᵀy⁺): the primal step of a problem holding Ω and, per variable, an
//     identity term whose dual is Kᵀy⁺ (keyed by Ω's structure, usually a few terms on x; a
//     spectral x-update's transforms run on the host, SpectralGram, as in the fused tier);
//     Condat–Vũ's gradient-step terms h are not in that Ω: their gradient joins Kᵀy⁺ card by card
//     (PerCardQuadratic), x⁺ = prox_{τg}(x − τ(Kᵀy⁺ + ∇h(x)));
// and the check's sums of squares from those images on the host.
// pock_chambolle.cpp runs it (Tier::per_card) and hands its state to the fused runner where the
// tiers switch (Tier::automatic).
#pragma once

#include <cmath>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "card_runner.hpp"
#include "engine.hpp"
#include "pc_pipelines.hpp"
#include "per_card.hpp"
#include "per_card_quadratic.hpp"
#include "spectral_gram.hpp"
#include "proxgen/algorithms/pock_chambolle.hpp"
#include "proxgen/plan/planner.hpp"

namespace proxgen::detail {

/// Ω of p (but Condat–Vũ's gradient-step terms) with, per variable, an identity Ψ term: its primal
/// step reads that term's dual as Kᵀy.
ir::Problem omega_alone(const ir::Problem& p);
/// One of PCPipelines' separate steps for q, from the kernel caches.
jit::KernelPtr pc_kernel(const ir::Problem& q, const std::string& role, Halide::Pipeline PCPipelines::*which);

/// x⁺ = prox_{τΩ}(x − τ g) card by card, g one image per variable: the primal step of omega_alone(p)
/// (keyed by Ω's structure: shared by every problem with that Ω, and by Pock–Chambolle and
/// linearized ADMM) with g bound as its identity terms' duals; a spectral x-update's transforms on
/// the host (SpectralGram, as in the fused tier). Bound to the caller's x (read at each run: swaps
/// of its contents are seen); not movable.
class PerCardOmegaStep {
public:
    PerCardOmegaStep(const ir::Problem& p, const Image& x) : p_(p) {
        vshapes_ = ir::variable_shapes(p);
        for (const auto& s : vshapes_) g_.emplace_back(s);
        omega_ = omega_alone(p);
        data_.emplace(omega_);
        if (lower::spectral_constant_precomputed(omega_)) {
            // the data-only part of a spectral x-update's right-hand side, once per solve
            constant_ = Image(p.variable_shape);
            jit::Call c(pc_kernel(omega_, "pc.omega_constant", &PCPipelines::constant));
            bind(c, x);
            c.out(0, constant_).run();
        }
        primal_ = jit::Call(pc_kernel(omega_, "pc.primal", &PCPipelines::primal));
        bind(primal_, x);
    }
    PerCardOmegaStep(const PerCardOmegaStep&) = delete;
    PerCardOmegaStep& operator=(const PerCardOmegaStep&) = delete;

    /// g per variable, set by the caller before run().
    std::vector<Image>& g() { return g_; }
    const std::vector<Image>& g() const { return g_; }
    /// out ← prox_{τΩ}(x − τ g).
    void run(Image& out, double tau) {
        tau_f_ = float(tau);
        gram_.omega_step(primal_, out, tau);  // (spectral plans: through (I + τ G_Ω)⁻¹)
    }

private:
    /// Every input of a kernel of omega_ (PCPipelines::arguments()); x stands for x_prev too (the
    /// primal step reads neither x_prev nor σ, θ).
    void bind(jit::Call& c, const Image& x) {
        data_->bind(c);
        c.in_state("x", x, vshapes_).in_state("x_prev", x, vshapes_).in_state("x_prev2", x, vshapes_);
        for (std::size_t j = 0; j < vshapes_.size(); ++j) {
            const std::string k = std::to_string(j);
            c.in("y" + k, g_[j]).in("y_prev" + k, g_[j]).in("sigma_scale" + k, one_);
        }
        c.in("sigma", one_).in("tau", tau_f_).in("theta", one_);
        c.in("res_sigma", one_).in("res_tau", tau_f_).in("res_theta", one_);
        if (!constant_.empty()) c.in("omega_constant", constant_);
    }

    const ir::Problem& p_;
    std::vector<std::vector<int>> vshapes_;
    std::vector<Image> g_;
    ir::Problem omega_;
    std::optional<lower::DataArgs> data_;
    Image constant_;
    jit::Call primal_;
    SpectralGram gram_{p_};
    float tau_f_ = 0;
    const float one_ = 1.0f;
};

/// The per-card runner of the Pock–Chambolle card, reporting its checks to `monitor` (the solve's:
/// the fused runner that takes over reports to it too). Kernels are bound to the images' addresses:
/// contents move by swaps and assignments, never the bound objects (vectors are sized once).
class PerCardPCRunner {
public:
    PerCardPCRunner(const ir::Problem& p, const Options& opt, const Result* warm, Monitor& monitor)
        : p_(p), mon_(monitor) {
        rule_ = pc_steps(p, opt, &scales_);
        sigma_scale_.assign(scales_.begin(), scales_.end());
        if (const auto* s = opt.tau == 0 && opt.sigma == 0 ? detail::warm_steps(p, warm, 4) : nullptr) {
            warm_start_ = algorithms::PCSteps{(*s)[1], (*s)[0], (*s)[2]};
            warm_balance_.alpha = (*s)[3];
            warm_ = true;
        }
        vshapes_ = ir::variable_shapes(p);
        x_ = initial_x(p, opt, warm);
        x_prev_ = x_.copy();
        x_next_ = Image(p.variable_shape);
        x_bar_ = Image(p.variable_shape);
        const auto shapes = psi_shapes(p);
        const bool warm_duals = warm && warm->signature == ir::signature(p) && warm->algorithm == p.algorithm &&
                                warm->duals.size() == shapes.size();
        const std::size_t n = p.psi.size();
        terms_.reserve(n);
        y_.reserve(n);
        y_next_.reserve(n);
        kx_.reserve(n);
        SharedBuffers shared;
        for (std::size_t i = 0; i < n; ++i) {
            ops_.emplace_back(p, p.psi[i].expr, shared);
            terms_.push_back(term_alone(p.psi[i], ops_[i].constant()));
            y_.push_back(warm_duals ? warm->duals[i].copy() : Image(shapes[i]));
            y_next_.emplace_back(shapes[i]);
            kx_.push_back(shared.zeros(shapes[i]));  // (the operator's output from the first step on)
        }
        // the kernels: one dual step per distinct term structure, then the primal step
        for (std::size_t i = 0; i < n; ++i) {
            const lower::DataArgs& data = term_data_.emplace_back(terms_[i]);
            jit::Call c(pc_kernel(terms_[i], "pc.dual", &PCPipelines::dual));
            data.bind(c);
            const std::vector<std::vector<int>> one{shapes[i]};
            c.in_state("x", kx_[i], one).in_state("x_prev", kx_[i], one).in_state("x_prev2", kx_[i], one);
            c.in("y0", y_[i]).in("y_prev0", y_next_[i]);
            bind_steps(c);
            c.in("sigma_scale0", sigma_scale_[i]);
            c.out(0, y_next_[i]);
            duals_.push_back(std::move(c));
        }
        omega_.emplace(p, x_);
        if (const auto h = plan::gradient_terms(p); !h.empty()) {
            smooth_.emplace(p, h);
            for (const auto& s : vshapes_) {
                kty_.emplace_back(s);
                grad_.emplace_back(s);
                grad_next_.emplace_back(s);
            }
            smooth_->add_gradient(ir::split_state(p, x_), grad_);
        }
    }
    PerCardPCRunner(const PerCardPCRunner&) = delete;
    PerCardPCRunner& operator=(const PerCardPCRunner&) = delete;

    const steps::PockChambolle& rule() const { return rule_; }
    /// The rule of the tight plan (the same structure, tighter norms), and its dual step scales
    /// from the next step on.
    const steps::PockChambolle& retune(const ir::Problem& tight, const Options& opt) {
        rule_ = pc_steps(tight, opt, &scales_);
        std::copy(scales_.begin(), scales_.end(), sigma_scale_.begin());  // (bound by address)
        return rule_;
    }
    bool warm_steps(algorithms::PCSteps& s, steps::Balance& b) const {
        s = warm_start_;
        b = warm_balance_;
        return warm_;
    }
    const Image& x() const { return x_; }
    /// The iterate before x (x̄ = x + θ (x − x_prev) at the next step).
    const Image& x_prev() const { return x_prev_; }
    const std::vector<Image>& duals() const { return y_; }

    // the card's Runner
    int iterations_per_call() const { return 1; }
    bool run_block(const float*) { return false; }

    bool run_step(const algorithms::PCSteps& s, bool measure) {
        sigma_f_ = float(s.sigma);
        tau_f_ = float(s.tau);
        theta_f_ = float(s.theta);
        // x̄ = x + θ (x − x_prev), as the fused step computes it
        for (std::size_t e = 0; e < x_.size(); ++e) {
            const float a = x_.data()[e], b = x_prev_.data()[e];
            x_bar_.data()[e] = a + theta_f_ * (a - b);
        }
        const std::vector<Image> xbar = ir::split_state(p_, x_bar_);
        for (std::size_t i = 0; i < ops_.size(); ++i) {
            kx_[i] = ops_[i].linear(xbar);
            duals_[i].run();
        }
        swap_each(y_, y_next_);  // y_next now holds the previous y
        // Kᵀy⁺, and Condat–Vũ's ∇h(x) beside it
        std::vector<Image>& kty = smooth_ ? kty_ : omega_->g();
        for (Image& g : kty) std::fill_n(g.data(), g.size(), 0.0f);
        for (std::size_t i = 0; i < ops_.size(); ++i) ops_[i].adjoint_add(y_[i], kty);
        if (smooth_)
            for (std::size_t j = 0; j < kty.size(); ++j)
                for (std::size_t e = 0; e < kty[j].size(); ++e)
                    omega_->g()[j].data()[e] = kty[j].data()[e] + grad_[j].data()[e];
        omega_->run(x_next_, s.tau);
        if (smooth_) {  // ∇h(x⁺): the next step's, and the residual's
            for (Image& g : grad_next_) std::fill_n(g.data(), g.size(), 0.0f);
            smooth_->add_gradient(ir::split_state(p_, x_next_), grad_next_);
        }
        if (measure) measure_step(s);
        swap_each(grad_, grad_next_);
        // x_prev ← x, x ← x⁺
        std::swap(x_prev_, x_);
        std::swap(x_, x_next_);
        return true;
    }

    bool sums(algorithms::PCSums& s) {
        s = sums_;
        return true;
    }

    algorithms::Verdict record(int it, const algorithms::Residuals& r, bool) {
        return monitor_verdict(mon_, it, r, x_, "the dual step");
    }
    bool after_iteration(int it) { return mon_.after_iteration(it); }

private:
    void bind_steps(jit::Call& c) {
        c.in("sigma", sigma_f_).in("tau", tau_f_).in("theta", theta_f_);
        c.in("res_sigma", sigma_f_).in("res_tau", tau_f_).in("res_theta", theta_f_);
    }

    /// The sums pc_sums reads, of the step from (x, y) (x_, y_next_) to (x⁺, y⁺) (x_next_, y_):
    /// P = (x − x⁺)/τ, Kᵀy⁺, D_i = (y_i − y⁺_i)/(σ s_i) + K_i x̄ − K_i x⁺, K_i x⁺; with Condat–Vũ's
    /// h, P + ∇h(x⁺) − ∇h(x) and |Kᵀy⁺| + |∇h(x⁺)| (as the fused residual kernel sums them).
    void measure_step(const algorithms::PCSteps& s) {
        algorithms::PCSums out;
        if (!smooth_) {
            for (std::size_t e = 0; e < x_.size(); ++e) {
                const double d = (double(x_.data()[e]) - x_next_.data()[e]) / s.tau;
                out.primal += d * d;
            }
            for (const Image& g : omega_->g()) out.kty += squared_norm2(g);
        } else {
            const std::vector<Image> x = ir::split_state(p_, x_), xn = ir::split_state(p_, x_next_);
            for (std::size_t j = 0; j < x.size(); ++j)
                for (std::size_t e = 0; e < x[j].size(); ++e) {
                    const double d = (double(x[j].data()[e]) - xn[j].data()[e]) / s.tau +
                                     (double(grad_next_[j].data()[e]) - grad_[j].data()[e]);
                    out.primal += d * d;
                    const double k = std::abs(double(kty_[j].data()[e])) + std::abs(double(grad_next_[j].data()[e]));
                    out.kty += k * k;
                }
        }
        const std::vector<Image> xn = ir::split_state(p_, x_next_);
        for (std::size_t i = 0; i < ops_.size(); ++i) {
            const Image kxbar = kx_[i].copy();  // (kx_ shares the operator's output buffer)
            const Image& kxn = ops_[i].linear(xn);
            const double step = s.sigma * scales_[i];
            for (std::size_t e = 0; e < kxn.size(); ++e) {
                const double d = (double(y_next_[i].data()[e]) - y_[i].data()[e]) / step +
                                 (double(kxbar.data()[e]) - kxn.data()[e]);
                out.dual += d * d;
            }
            out.kx += squared_norm2(kxn);
        }
        out.n = double(x_.size());
        out.m = double(psi_elements(p_));
        sums_ = out;
    }

    const ir::Problem& p_;
    Monitor& mon_;
    steps::PockChambolle rule_;
    std::vector<double> scales_;
    std::vector<float> sigma_scale_;
    algorithms::PCSteps warm_start_;
    steps::Balance warm_balance_;
    bool warm_ = false;
    std::vector<std::vector<int>> vshapes_;
    Image x_, x_prev_, x_next_, x_bar_;
    std::deque<PerCardOperator> ops_;  // (not movable: bound kernels)
    std::vector<ir::Problem> terms_;
    std::deque<lower::DataArgs> term_data_;
    std::vector<Image> y_, y_next_, kx_;
    std::vector<jit::Call> duals_;
    std::optional<PerCardOmegaStep> omega_;  // (its g: Kᵀy⁺ (+ ∇h(x)) per variable)
    std::optional<PerCardQuadratic> smooth_;  // Condat–Vũ's h, with Kᵀy⁺, ∇h(x) and ∇h(x⁺)
    std::vector<Image> kty_, grad_, grad_next_;
    algorithms::PCSums sums_;
    float sigma_f_ = 0, tau_f_ = 0, theta_f_ = 0;
};

}  // namespace proxgen::detail
