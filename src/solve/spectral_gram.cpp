#include "spectral_gram.hpp"

#include <algorithm>

#include "engine.hpp"
#include "quadratic_pipelines.hpp"

namespace proxgen::detail {

namespace {
/// The part of a flat state holding one variable, as an image sharing its storage.
Image view(const Image& flat, std::size_t offset, const std::vector<int>& shape) {
    return Image(Image::Buffer(const_cast<float*>(flat.data()) + offset, shape));
}

std::size_t elements(const std::vector<int>& shape) {
    std::size_t n = 1;
    for (int e : shape) n *= std::size_t(e);
    return n;
}
}  // namespace

SpectralGram::SpectralGram(const ir::Problem& p) : p_(p), shapes_(ir::variable_shapes(p)) {
    std::size_t offset = 0;
    for (std::size_t j = 0; j < shapes_.size(); ++j) {
        Block b;
        b.variable = int(j);
        b.offset = offset;
        b.shape = shapes_[j];
        const plan::XUpdate update = ir::block_update(p, int(j));
        if (plan::spectral(update)) b.basis = update == plan::XUpdate::fft ? spectral::Basis::fft : spectral::Basis::dct;
        offset += elements(b.shape);
        blocks_.push_back(std::move(b));
    }
    for (std::size_t j = 0; j < blocks_.size(); ++j) {
        const Block& b = blocks_[j];
        if (b.basis == spectral::Basis::none) continue;
        if (!groups_.empty()) {
            Group& g = groups_.back();
            const Block& last = blocks_[g.first + g.count - 1];
            if (last.variable + 1 == b.variable && last.basis == b.basis && last.shape.size() >= 2 &&
                b.shape.size() >= 2 && last.shape[0] == b.shape[0] && last.shape[1] == b.shape[1]) {
                ++g.count;
                g.size += elements(b.shape);
                continue;
            }
        }
        Group g;
        g.first = j;
        g.count = 1;
        g.offset = b.offset;
        g.size = elements(b.shape);
        groups_.push_back(std::move(g));
    }
}

std::unique_ptr<spectral::GramSolver> SpectralGram::unit_gram(const Group& g, const std::vector<ir::Term>& terms,
                                                              bool omega) const {
    const bool several = blocks_.size() > 1;
    std::vector<std::vector<int>> shapes;
    for (std::size_t k = 0; k < g.count; ++k) shapes.push_back(blocks_[g.first + k].shape);
    auto unit = std::make_unique<spectral::GramSolver>(blocks_[g.first].basis, shapes);
    for (std::size_t k = 0; k < g.count; ++k) {
        const int v = blocks_[g.first + k].variable;
        for (const auto& t : terms)
            if (!several || ir::variables_of(t.expr) == std::vector<int>{v})
                unit->add_term(t.expr, omega ? 2.0 * t.weight * double(t.beta) * t.beta : 1.0, int(k));
    }
    return unit;
}

void SpectralGram::solve(const Image& rhs, Image& x, double identity, double omega_scale, double psi_scale) {
    const bool several = blocks_.size() > 1;
    if (identity != identity_ || omega_scale != omega_ || psi_scale != psi_) {
        for (auto& g : groups_) {
            if (!g.omega) {
                g.omega = unit_gram(g, p_.omega, true);
                g.gram = unit_gram(g, {}, true);  // the same blocks, no terms, no table: finalize_sum below
                g.shape = g.gram->variable_shape();
            }
            if (psi_scale > 0 && !g.psi) g.psi = unit_gram(g, p_.psi, false);
            std::vector<std::pair<const spectral::GramSolver*, double>> units{{g.omega.get(), omega_scale}};
            if (psi_scale > 0) units.emplace_back(g.psi.get(), psi_scale);
            g.gram->finalize_sum(identity > 0 ? identity : 0.0, units);
        }
        identity_ = identity;
        omega_ = omega_scale;
        psi_ = psi_scale;
    }
    if (!several) {
        groups_.front().gram->solve(rhs, x);
        return;
    }
    for (const auto& g : groups_) {
        Image out = view(x, g.offset, g.shape);
        g.gram->solve(view(rhs, g.offset, g.shape), out);
    }
    if (rhs.data() == x.data()) return;
    for (const auto& b : blocks_)
        if (b.basis == spectral::Basis::none) {
            const std::size_t n = elements(b.shape);
            std::copy(rhs.data() + b.offset, rhs.data() + b.offset + n, x.data() + b.offset);
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

std::unique_ptr<CirculantPreconditioner> CirculantPreconditioner::of(const ir::Problem& p) {
    std::optional<ir::Problem> c = circulant_problem(p);
    if (!c) return nullptr;
    c->x_update = plan::XUpdate::fft;  // the Gram that SpectralGram inverts
    return std::make_unique<CirculantPreconditioner>(std::move(*c));
}

CirculantPreconditioner::CirculantPreconditioner(ir::Problem circulant) : problem_(std::move(circulant)) {}

}  // namespace proxgen::detail
