// Quadratic terms in the per-card tier (per_card_quadratic.hpp).
#include "per_card_quadratic.hpp"

#include <algorithm>

#include "quadratic_pipelines.hpp"

namespace proxgen::detail {

namespace {

/// Term t alone over a variable standing for its operator's output, in Ω with a CG x-update:
/// the problem whose conjugate-gradient kernels give the term's gradient (the residual at y: −∇_t(y))
/// and Hessian in that space. Under ADMM whatever the solve's algorithm: one kernel per term form.
ir::Problem quadratic_term_alone(const ir::Term& t, const Image& inner) {
    ir::Problem q = term_alone(t, inner);
    q.omega = std::move(q.psi);
    q.psi.clear();
    q.algorithm = Algorithm::admm;
    q.x_update = plan::XUpdate::cg;
    ir::assign_slots(q);
    return q;
}

jit::KernelPtr quadratic_kernel(const ir::Problem& q, const std::string& role, Halide::Pipeline QuadraticPipelines::*which) {
    return lower::cached_kernel(role + ":" + ir::signature(q), lower::embeds_process_local_code(q), [&] {
        QuadraticPipelines pipes(q);
        return jit::Source{pipes.*which, pipes.arguments()};
    });
}

}  // namespace

std::vector<const ir::Term*> terms_of(const std::vector<ir::Term>& terms) {
    std::vector<const ir::Term*> out;
    for (const ir::Term& t : terms) out.push_back(&t);
    return out;
}

PerCardQuadratic::PerCardQuadratic(const ir::Problem& p, const std::vector<const ir::Term*>& terms) {
    for (const auto& s : ir::variable_shapes(p)) rhs_.emplace_back(s);
    const std::size_t n = terms.size();
    terms_.reserve(n);
    SharedBuffers shared;
    for (std::size_t t = 0; t < n; ++t) {
        ops_.emplace_back(p, terms[t]->expr, shared, PerCardOutputs::read_at_once);
        terms_.push_back(quadratic_term_alone(*terms[t], ops_[t].constant()));
        in_.push_back(shared.zeros(terms[t]->expr.shape));  // (0: the right-hand side below reads ∇_t(0))
        out_.push_back(shared.term_scratch(terms[t]->expr.shape));  // (each term's, then its adjoint's)
    }
    auto bound = [&](std::size_t t, const jit::KernelPtr& k) {
        jit::Call c(k);
        data_[t].bind(c);
        const std::vector<std::vector<int>> one{terms[t]->expr.shape};
        c.in_state("x", in_[t], one).in_state("direction", in_[t], one).in("rho_x", zero_).in("rho", zero_);
        c.out(0, out_[t]);
        return c;
    };
    for (std::size_t t = 0; t < n; ++t) {
        data_.emplace_back(terms_[t]);
        residual_.push_back(bound(t, quadratic_kernel(terms_[t], "admm.cg_residual", &QuadraticPipelines::residual)));
        gram_.push_back(bound(t, quadratic_kernel(terms_[t], "admm.gram", &QuadraticPipelines::gram_apply)));
        residual_.back().run();  // −∇_t(0): the right-hand side's data part
        ops_[t].adjoint_add(out_[t], rhs_);
    }
}

void PerCardQuadratic::add_gram(const std::vector<Image>& v, std::vector<Image>& out) {
    for (std::size_t t = 0; t < ops_.size(); ++t) {
        in_[t] = ops_[t].linear(v);  // (shares the operator's buffer: the bound object stays)
        gram_[t].run();
        ops_[t].adjoint_add(out_[t], out);
    }
}

void PerCardQuadratic::add_gradient(const std::vector<Image>& v, std::vector<Image>& out) {
    for (std::size_t t = 0; t < ops_.size(); ++t) {
        in_[t] = ops_[t].linear(v);
        residual_[t].run();
        float* r = out_[t].data();
        for (std::size_t e = 0; e < out_[t].size(); ++e) r[e] = -r[e];  // ∇_t = −residual
        ops_[t].adjoint_add(out_[t], out);
    }
}

}  // namespace proxgen::detail
