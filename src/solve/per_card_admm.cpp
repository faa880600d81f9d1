// ADMM's and HQS's per-card runner (per_card_admm.hpp).
#include "per_card_admm.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "proxgen/algorithms/conjugate_gradient.hpp"

namespace proxgen::detail {

namespace {

void fill(std::vector<Image>& v, float value) {
    for (Image& i : v) std::fill_n(i.data(), i.size(), value);
}

std::vector<Image> images(const std::vector<std::vector<int>>& shapes, float value) {
    std::vector<Image> v;
    for (const auto& s : shapes) v.emplace_back(s);
    fill(v, value);
    return v;
}

/// Whether every value is ±0 (a cold start's x: G x is then 0 without applying any operator).
bool all_zero(const Image& a) {
    std::uint32_t any = 0;
    const float* d = a.data();
    for (std::size_t e = 0; e < a.size(); ++e) {
        std::uint32_t bits;
        std::memcpy(&bits, d + e, sizeof bits);
        any |= bits & 0x7fffffffu;
    }
    return any == 0;
}

double dot(const Image& a, const Image& b) {
    double s = 0;
    for (std::size_t e = 0; e < a.size(); ++e) s += double(a.data()[e]) * b.data()[e];
    return s;
}

}  // namespace

PerCardQuadraticRunner::PerCardQuadraticRunner(const ir::Problem& p, const Options& opt, const Result* warm,
                                               Monitor& monitor)
    : p_(p), mon_(monitor), opt_(opt), hqs_(p.algorithm == Algorithm::hqs), split_(p, warm, p.algorithm),
      omega_(p, terms_of(p.omega)) {
    x_ = initial_x(p, opt, warm);
    if (hqs_) {
        x_prev_ = Image(p.variable_shape);
        x_hat_ = Image(p.variable_shape);
        x_stage_ = x_.copy();  // x at the start of the current stage
    }
    vshapes_ = ir::variable_shapes(p);
    rhs_ = images(vshapes_, 0.0f);
    gram_parts_ = images(vshapes_, 0.0f);
    bool elementwise_blocks = false;
    for (std::size_t j = 0; j < vshapes_.size(); ++j)
        elementwise_blocks = elementwise_blocks || ir::block_update(p, int(j)) == plan::XUpdate::elementwise;
    if (elementwise_blocks && p.x_update != plan::XUpdate::cg) {
        // G is diagonal on those blocks: its diagonal is G·1, Ω's and Ψ's parts apart (ρ moves)
        const std::vector<Image> ones = images(vshapes_, 1.0f);
        diag_omega_ = images(vshapes_, 0.0f);
        diag_psi_ = images(vshapes_, 0.0f);
        omega_.add_gram(ones, diag_omega_);
        split_.add_gram(ones, diag_psi_, 1.0);
    }
    if (spectral(p)) spectral_.emplace(p);
    if (p.x_update == plan::XUpdate::cg) {
        for (Image* v : {&r_, &s_, &d_, &gd_}) *v = Image(p.variable_shape);
        precond_ = CirculantPreconditioner::of(p);
    }
}

void PerCardQuadraticRunner::gram(const Image& v, Image& gv, double rho) {
    const std::vector<Image> vs = ir::split_state(p_, v);
    fill(gram_parts_, 0.0f);
    omega_.add_gram(vs, gram_parts_);
    split_.add_gram(vs, gram_parts_, rho);
    const Image joined = ir::join_state(p_, gram_parts_);
    std::memcpy(gv.data(), joined.data(), gv.size() * sizeof(float));
}

void PerCardQuadraticRunner::solve(double rho) {
    // rhs = −Σ_Ω A_tᵀ∇_t(0) + ρ Σ K_iᵀ(z_i − u_i)
    const float r = float(rho);
    split_.adjoint_sum(rhs_, 0.0f, r, -r);
    for (std::size_t j = 0; j < rhs_.size(); ++j)
        for (std::size_t e = 0; e < rhs_[j].size(); ++e) rhs_[j].data()[e] += omega_.rhs()[j].data()[e];
    if (p_.x_update == plan::XUpdate::cg) {
        conjugate_gradient(rho);
        return;
    }
    for (std::size_t j = 0; j < rhs_.size(); ++j) {
        if (ir::block_update(p_, int(j)) != plan::XUpdate::elementwise) continue;
        float* b = rhs_[j].data();
        const float *go = diag_omega_[j].data(), *gp = diag_psi_[j].data();
        for (std::size_t e = 0; e < rhs_[j].size(); ++e) b[e] = b[e] / (go[e] + r * gp[e]);
    }
    const Image joined = ir::join_state(p_, rhs_);
    if (spectral_) spectral_->solve(joined, x_, 0.0, 1.0, rho);  // (other blocks: copied)
    else std::memcpy(x_.data(), joined.data(), x_.size() * sizeof(float));
}

void PerCardQuadraticRunner::conjugate_gradient(double rho) {
    // the conjugate gradient card over host vectors (its JIT kernels' arithmetic: float vectors,
    // float64 inner products)
    struct HostCG {
        PerCardQuadraticRunner& u;
        double rho;
        const Image& s() const { return u.precond_ ? u.s_ : u.r_; }
        bool residual() {
            const Image rhs = ir::join_state(u.p_, u.rhs_);
            if (all_zero(u.x_)) {  // a cold start: r = rhs without the operators (a CG step's cost)
                std::memcpy(u.r_.data(), rhs.data(), u.r_.size() * sizeof(float));
                return true;
            }
            u.gram(u.x_, u.gd_, rho);
            for (std::size_t e = 0; e < u.r_.size(); ++e) u.r_.data()[e] = rhs.data()[e] - u.gd_.data()[e];
            return true;
        }
        bool precondition() {
            if (u.precond_) u.precond_->apply(u.r_, u.s_, rho);
            return true;
        }
        bool preconditioned() const { return u.precond_ != nullptr; }
        bool start_direction() {
            std::memcpy(u.d_.data(), s().data(), u.d_.size() * sizeof(float));
            return true;
        }
        bool gram() {
            u.gram(u.d_, u.gd_, rho);
            return true;
        }
        double dot_r_s() { return dot(u.r_, s()); }
        double dot_r_r() { return dot(u.r_, u.r_); }
        double dot_d_gd() { return dot(u.d_, u.gd_); }
        double update(float step) {
            float *x = u.x_.data(), *r = u.r_.data();
            const float *d = u.d_.data(), *gd = u.gd_.data();
            double rr = 0;
            for (std::size_t e = 0; e < u.x_.size(); ++e) {
                x[e] += step * d[e];
                r[e] -= step * gd[e];
                rr += double(r[e]) * r[e];
            }
            return rr;
        }
        bool direction(float beta) {
            float* d = u.d_.data();
            const float* sv = s().data();
            for (std::size_t e = 0; e < u.d_.size(); ++e) d[e] = sv[e] + beta * d[e];
            return true;
        }
    };
    HostCG run{*this, rho};
    algorithms::conjugate_gradient(run, {opt_.cg_tol, opt_.cg_max_iters}, cg_total_);
}

bool PerCardQuadraticRunner::run_step(double rho, bool measure) {
    solve(rho);
    split_.apply(x_);
    split_.update(rho, true);
    if (measure) sums_ = split_.measure(x_, false);
    return true;
}

bool PerCardQuadraticRunner::run_step(double rho, double momentum, bool measure) {
    if (momentum > 0) std::copy(x_.data(), x_.data() + x_.size(), x_prev_.data());  // x̂ reads it
    solve(rho);
    if (momentum > 0) {
        for (std::size_t e = 0; e < x_.size(); ++e)
            x_hat_.data()[e] = float(x_.data()[e] + momentum * (x_.data()[e] - x_prev_.data()[e]));
        split_.apply(x_hat_);
        split_.update(rho, false);
        split_.forget_applied();  // (the residuals read K x, not K x̂)
    } else {
        split_.apply(x_);
        split_.update(rho, false);
    }
    if (measure) sums_ = split_.measure(x_, true);
    return true;
}

void PerCardQuadraticRunner::finish(Result& res) const {
    split_.finish(res, x_);
    res.cg_iterations = cg_total_;
}

}  // namespace proxgen::detail
