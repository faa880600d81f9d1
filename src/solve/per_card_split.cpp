// The per-card split (per_card_split.hpp).
#include "per_card_split.hpp"

#include "ladmm_pipelines.hpp"

namespace proxgen::detail {

jit::KernelPtr split_zu_kernel(const ir::Problem& q) {
    // one kernel per term form whatever the algorithm: the (z, u) step reads none of its own
    ir::Problem s = q;
    s.algorithm = Algorithm::ladmm;
    return lower::cached_kernel("split.zu:" + ir::signature(s), lower::embeds_process_local_code(s), [&] {
        LADMMPipelines pipes(s);
        return jit::Source{pipes.zu_step(), pipes.arguments()};
    });
}

PerCardSplit::PerCardSplit(const ir::Problem& p, const Result* warm, Algorithm a) : p_(p) {
    const auto shapes = psi_shapes(p);
    const std::size_t n = p.psi.size();
    const bool warm_duals =
        warm && warm->signature == ir::signature(p) && warm->algorithm == a && warm->duals.size() == 2 * n;
    for (auto* v : {&z_, &u_, &z_next_, &u_next_, &kx_, &w_}) v->reserve(n);
    terms_.reserve(n);
    SharedBuffers shared;
    for (std::size_t i = 0; i < n; ++i) {
        ops_.emplace_back(p, p.psi[i].expr, shared);
        terms_.push_back(term_alone(p.psi[i], ops_[i].constant()));
        z_.push_back(warm_duals ? warm->duals[i].copy() : Image(shapes[i]));
        u_.push_back(warm_duals ? warm->duals[n + i].copy() : Image(shapes[i]));
        for (auto* v : {&z_next_, &u_next_}) v->emplace_back(shapes[i]);
        kx_.push_back(shared.zeros(shapes[i]));  // (the operator's output once x is applied)
        w_.push_back(shared.term_scratch(shapes[i]));
    }
    for (const auto& s : ir::variable_shapes(p)) kt_.emplace_back(s);
    for (std::size_t i = 0; i < n; ++i) {
        const lower::DataArgs& data = term_data_.emplace_back(terms_[i]);
        jit::Call c(split_zu_kernel(terms_[i]));
        data.bind(c);
        c.in_state("x", kx_[i], {shapes[i]});
        c.in("z0", z_[i]).in("z_prev0", z_next_[i]).in("u0", u_[i]);
        // (λ, μ and u_scale: linearized ADMM's inputs, which the (z, u) step does not read)
        c.in("rho", rho_f_).in("lambda", one_).in("mu", one_).in("u_scale", one_);
        c.out(0, z_next_[i]).out(1, u_next_[i]);
        zu_.push_back(std::move(c));
    }
}

void PerCardSplit::apply(const Image& x) {
    const std::vector<Image> xs = ir::split_state(p_, x);
    for (std::size_t i = 0; i < ops_.size(); ++i) kx_[i] = ops_[i].linear(xs);
    applied_ = true;
}

void PerCardSplit::adjoint_sum(std::vector<Image>& g, float a, float b, float c) {
    for (Image& gj : g) std::fill_n(gj.data(), gj.size(), 0.0f);
    for (std::size_t i = 0; i < ops_.size(); ++i) {
        const float *kx = kx_[i].data(), *z = z_[i].data(), *u = u_[i].data();
        float* w = w_[i].data();
        if (a == 0)
            for (std::size_t e = 0; e < w_[i].size(); ++e) w[e] = b * z[e] + c * u[e];
        else
            for (std::size_t e = 0; e < w_[i].size(); ++e) w[e] = a * kx[e] + b * z[e] + c * u[e];
        ops_[i].adjoint_add(w_[i], g);
    }
}

void PerCardSplit::add_gram(const std::vector<Image>& v, std::vector<Image>& out, double rho) {
    applied_ = false;
    for (Image& k : kt_) std::fill_n(k.data(), k.size(), 0.0f);
    for (std::size_t i = 0; i < ops_.size(); ++i) ops_[i].adjoint_add(ops_[i].linear(v), kt_);
    const float r = float(rho);
    for (std::size_t j = 0; j < out.size(); ++j)
        for (std::size_t e = 0; e < out[j].size(); ++e) out[j].data()[e] += r * kt_[j].data()[e];
}

void PerCardSplit::update(double rho, bool keep_dual) {
    rho_f_ = float(rho);
    for (auto& c : zu_) c.run();
    swap_each(z_, z_next_);  // z_next now holds the previous z
    if (keep_dual) swap_each(u_, u_next_);
}

algorithms::SplitSums PerCardSplit::measure(const Image& x, bool implicit_dual) {
    if (!applied_) apply(x);
    algorithms::SplitSums out;
    // Kᵀ(z − z_prev) and Kᵀu, summed per variable
    for (const bool difference : {true, false}) {
        for (Image& k : kt_) std::fill_n(k.data(), k.size(), 0.0f);
        for (std::size_t i = 0; i < ops_.size(); ++i) {
            const float *z = z_[i].data(), *zp = z_next_[i].data();
            const float* u = (implicit_dual ? u_next_ : u_)[i].data();
            float* w = w_[i].data();
            for (std::size_t e = 0; e < w_[i].size(); ++e) w[e] = difference ? z[e] - zp[e] : u[e];
            ops_[i].adjoint_add(w_[i], kt_);
        }
        double& sum = difference ? out.kdz : out.ktu;
        for (const Image& k : kt_) sum += squared_norm2(k);
    }
    for (std::size_t i = 0; i < ops_.size(); ++i) {
        const float *kx = kx_[i].data(), *z = z_[i].data();
        for (std::size_t e = 0; e < kx_[i].size(); ++e) {
            const double d = double(kx[e]) - z[e];
            out.r += d * d;
        }
        out.kx += squared_norm2(kx_[i]);
        out.z += squared_norm2(z_[i]);
    }
    out.n = double(x.size());
    out.m = double(psi_elements(p_));
    return out;
}

void PerCardSplit::rescale_dual(double factor) {
    for (Image& u : u_)
        for (std::size_t e = 0; e < u.size(); ++e) u.data()[e] = float(u.data()[e] * factor);
}

std::vector<Image> PerCardSplit::duals() const {
    std::vector<Image> d;
    for (const Image& z : z_) d.push_back(z.copy());
    for (const Image& u : u_) d.push_back(u.copy());
    return d;
}

const Image& PerCardSplit::solution(const Image& x) const {
    const int i = split_solution_term(p_);
    return i >= 0 ? z_[std::size_t(i)] : x;
}

}  // namespace proxgen::detail
