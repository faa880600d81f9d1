#include "spectral_gram.hpp"

#include "engine.hpp"

namespace proxgen::detail {

void SpectralGram::solve(const Image& rhs, Image& x, double identity, double omega_scale, double psi_scale) {
    if (!gram_ || identity != identity_ || omega_scale != omega_ || psi_scale != psi_) {
        const auto basis = p_.x_update == plan::XUpdate::fft ? spectral::Basis::fft : spectral::Basis::dct;
        gram_ = std::make_unique<spectral::GramSolver>(basis, p_.variable_shape);
        if (identity > 0) gram_->add_identity(identity);
        for (const auto& t : p_.omega) gram_->add_term(t.expr, omega_scale * 2.0 * t.weight * double(t.beta) * t.beta);
        if (psi_scale > 0)
            for (const auto& t : p_.psi) gram_->add_term(t.expr, psi_scale);
        gram_->finalize();
        identity_ = identity;
        omega_ = omega_scale;
        psi_ = psi_scale;
    }
    gram_->solve(rhs, x);
}

void SpectralGram::omega_step(jit::Call& step, Image& x, double tau) {
    if (!spectral(p_)) {
        step.out_state(0, x, ir::variable_shapes(p_));
        step.run();
        return;
    }
    if (rhs_.empty()) rhs_ = Image(p_.variable_shape);
    step.out(0, rhs_).run();
    solve(rhs_, x, 1.0, tau, 0.0);
}

}  // namespace proxgen::detail
