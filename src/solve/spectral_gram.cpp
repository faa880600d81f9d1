#include "spectral_gram.hpp"

#include <algorithm>

#include "engine.hpp"

namespace proxgen::detail {

namespace {
/// The part of a flat state holding one variable, as an image sharing its storage.
Image view(const Image& flat, std::size_t offset, const std::vector<int>& shape) {
    return Image(Image::Buffer(const_cast<float*>(flat.data()) + offset, shape));
}
}  // namespace

SpectralGram::SpectralGram(const ir::Problem& p) : p_(p), shapes_(ir::variable_shapes(p)) {
    std::size_t offset = 0;
    for (std::size_t j = 0; j < shapes_.size(); ++j) {
        Block b;
        b.variable = int(j);
        b.offset = offset;
        b.shape = shapes_[j];
        b.spectral = plan::spectral(ir::block_update(p, int(j)));
        std::size_t elements = 1;
        for (int e : b.shape) elements *= std::size_t(e);
        offset += elements;
        blocks_.push_back(std::move(b));
    }
}

void SpectralGram::solve(const Image& rhs, Image& x, double identity, double omega_scale, double psi_scale) {
    const bool several = blocks_.size() > 1;
    auto reads_only = [&](const ir::Term& t, int j) {
        return !several || ir::variables_of(t.expr) == std::vector<int>{j};
    };
    if (identity != identity_ || omega_scale != omega_ || psi_scale != psi_) {
        for (auto& b : blocks_) {
            if (!b.spectral) continue;
            const auto basis = ir::block_update(p_, b.variable) == plan::XUpdate::fft ? spectral::Basis::fft
                                                                                       : spectral::Basis::dct;
            b.gram = std::make_unique<spectral::GramSolver>(basis, b.shape);
            if (identity > 0) b.gram->add_identity(identity);
            for (const auto& t : p_.omega)
                if (reads_only(t, b.variable))
                    b.gram->add_term(t.expr, omega_scale * 2.0 * t.weight * double(t.beta) * t.beta);
            if (psi_scale > 0)
                for (const auto& t : p_.psi)
                    if (reads_only(t, b.variable)) b.gram->add_term(t.expr, psi_scale);
            b.gram->finalize();
        }
        identity_ = identity;
        omega_ = omega_scale;
        psi_ = psi_scale;
    }
    if (!several) {
        blocks_.front().gram->solve(rhs, x);
        return;
    }
    for (const auto& b : blocks_) {
        Image out = view(x, b.offset, b.shape);
        if (b.spectral) {
            b.gram->solve(view(rhs, b.offset, b.shape), out);
        } else if (rhs.data() != x.data()) {
            std::copy(rhs.data() + b.offset, rhs.data() + b.offset + out.size(), out.data());
        }
    }
}

void SpectralGram::omega_step(jit::Call& step, Image& x, double tau) {
    if (!spectral(p_)) {
        step.out_state(0, x, shapes_);
        step.run();
        return;
    }
    if (rhs_.empty()) rhs_ = Image(p_.variable_shape);
    step.out_state(0, rhs_, shapes_);
    step.run();
    solve(rhs_, x, 1.0, tau, 0.0);
}

}  // namespace proxgen::detail
