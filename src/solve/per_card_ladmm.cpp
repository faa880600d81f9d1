// Linearized ADMM's per-card runner (per_card_ladmm.hpp).
#include "per_card_ladmm.hpp"

namespace proxgen::detail {

LADMMStart::LADMMStart(const ir::Problem& p, const Options& opt, const Result* warm)
    : rule(ladmm_steps(p, opt)), adaptive(ladmm_balances(p, opt)) {
    if (const auto* s = adaptive ? detail::warm_steps(p, warm, 3) : nullptr) {
        warm_steps = algorithms::LADMMSteps{(*s)[0], (*s)[1]};
        warm_balancing.strength = (*s)[2];
        this->warm = true;
    }
}

PerCardLADMMRunner::PerCardLADMMRunner(const ir::Problem& p, const Options& opt, const Result* warm, Monitor& monitor)
    : p_(p), mon_(monitor), start_(p, opt, warm), split_(p, warm, Algorithm::ladmm) {
    x_ = initial_x(p, opt, warm);
    x_next_ = Image(p.variable_shape);
    omega_.emplace(p, x_);
}

bool PerCardLADMMRunner::run_step(const algorithms::LADMMSteps& s, bool measure) {
    if (!split_.applied()) split_.apply(x_);  // (else K x from the last step's (z, u) update)
    // g = Σ K_iᵀ(K_i x − z_i + u_i) / λ, so that Ω's step from x − μ g is linearized ADMM's
    const float inv_lambda = float(1.0 / s.lambda);
    split_.adjoint_sum(omega_->g(), inv_lambda, -inv_lambda, inv_lambda);
    omega_->run(x_next_, s.mu);
    std::swap(x_, x_next_);
    split_.apply(x_);
    split_.update(1.0 / s.lambda, true);
    if (measure) sums_ = split_.measure(x_, false);
    return true;
}

}  // namespace proxgen::detail
