#include "split_steps.hpp"

#include "proxgen/catalogue/card.hpp"

#include <algorithm>
#include <cmath>

namespace proxgen::detail {

using namespace Halide;
using lower::Lowered;
using lower::Part;
using lower::Stages;

std::vector<Expr> split_gram(lower::Lowerer& L, const ir::Problem& p, const lower::State& x, const lower::State& v,
                             const Expr& rho, Stages& st) {
    std::vector<Expr> g(x.size(), Expr(0.0f));
    for (const auto& t : p.omega) {
        const lower::ProxSpec f = L.prox_spec(t, x, st);
        Lowered a_v = L.forward(t.expr, v, Part::linear, st);
        const auto a = lower::args(a_v.rank());
        Lowered w{Func("weighted_Av"), a_v.extents};
        w.f(a) = 2.0f * f.alpha * (*f.a)(a) * (*f.a)(a) * a_v.f(a);
        lower::add_adjoint(g, L.adjoint_state(t.expr, w, st), L);
    }
    for (const auto& t : p.psi) {
        Lowered kv = L.forward(t.expr, v, Part::linear, st);
        lower::add_adjoint(g, L.adjoint_state(t.expr, kv, st), L, rho);
    }
    return g;
}

Expr split_gram(lower::Lowerer& L, const ir::Problem& p, const Lowered& x, const Lowered& v, const Expr& rho,
                Stages& st) {
    return split_gram(L, p, lower::State{x}, lower::State{v}, rho, st).front();
}

SplitTerm split_term(lower::Lowerer& L, const ir::Problem& p, std::size_t i, const lower::State& at,
                     const lower::State& spec_at, const Lowered& u, const Expr& scale, const Expr& rho, Stages& st,
                     bool stage) {
    const auto& t = p.psi[i];
    const auto a = lower::args(u.rank());
    Lowered kx = L.forward(t.expr, at, Part::linear, st);
    SplitTerm s{Lowered{Func("z_arg"), u.extents}, {}, Lowered{Func("u_next"), u.extents}};
    s.v.f(a) = kx.f(a) + (scale.defined() ? scale * u.f(a) : u.f(a));
    const lower::ProxSpec f = L.prox_spec(t, spec_at, st);
    s.z = Lowered{lower::prox(f, s.v, rho, st), u.extents};
    s.u.f(a) = s.v.f(a) - s.z.f(a);
    if (stage) {
        const int parts = u.rank() > at.front().rank() ? lower::fused_components(p, t) : 0;
        st.add(s.z.f, parts);
        st.add(s.u.f, parts);
        s.z.staged = s.u.staged = true;
    }
    return s;
}

std::vector<Func> split_zu_outputs(lower::Lowerer& L, const ir::Problem& p, const lower::State& x,
                                   const std::vector<Lowered>& u, const Expr& rho) {
    std::vector<Func> outs;
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        Stages st;
        const SplitTerm s = split_term(L, p, i, x, x, u[i], Expr(), rho, st, false);
        st.add(s.v.f);  // z⁺ and u⁺ both read it
        const auto a = lower::args(u[i].rank());
        Func out("zu_next" + std::to_string(i));
        out(a) = Tuple(s.z.f(a), s.u.f(a));
        lower::schedule_output(out, u[i].rank(), st, lower::static_last_extent(p.psi[i].expr));
        outs.push_back(out);
    }
    return outs;
}

std::vector<Expr> split_rhs(lower::Lowerer& L, const ir::Problem& p, const lower::State& x,
                            const std::vector<Lowered>& z, const std::vector<Lowered>& u, const Expr& rho, Stages& st) {
    std::vector<Expr> rhs(x.size(), Expr(0.0f));
    for (const auto& t : p.omega) {
        const lower::ProxSpec f = L.prox_spec(t, x, st);
        if (!f.c) continue;
        const auto a = lower::args(t.expr.rank());
        Lowered w{Func("omega_rhs_arg"), L.extents(t.expr)};
        w.f(a) = -2.0f * f.alpha * (*f.a)(a) * (*f.c)(a);
        lower::add_adjoint(rhs, L.adjoint_state(t.expr, w, st), L);
    }
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const auto a = lower::args(z[i].rank());
        Lowered w{Func("psi_rhs_arg"), z[i].extents};
        w.f(a) = z[i].f(a) - u[i].f(a);
        lower::add_adjoint(rhs, L.adjoint_state(p.psi[i].expr, w, st), L, rho);
    }
    return rhs;
}

Expr split_rhs(lower::Lowerer& L, const ir::Problem& p, const Lowered& x, const std::vector<Lowered>& z,
               const std::vector<Lowered>& u, const Expr& rho, Stages& st) {
    return split_rhs(L, p, lower::State{x}, z, u, rho, st).front();
}

SplitPipelines::SplitPipelines(const ir::Problem& p, lower::Lowerer& L, const lower::StateParams& x) {
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const int r = int(p.psi[i].expr.shape.size());
        z.emplace_back(Float(32), r, "z" + std::to_string(i));
        z_prev.emplace_back(Float(32), r, "z_prev" + std::to_string(i));
        u.emplace_back(Float(32), r, "u" + std::to_string(i));
    }
    const lower::State xin = x.lowered();
    if (!p.psi.empty()) {  // (z, u)-update: one Tuple-valued output per term
        std::vector<Lowered> us;
        for (const auto& ui : u) us.push_back(lower::input(ui));
        zu_step = Pipeline(split_zu_outputs(L, p, xin, us, rho));
    }
    // residual partial sums (split_residual_shapes): Kᵀ(z − z_prev), Kᵀu, (K_i x − z_i, K_i x, z_i)
    Stages st;
    std::vector<Lowered> dzs, us;
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const Lowered zi = lower::input(z[i]), zp = lower::input(z_prev[i]);
        const auto a = lower::args(zi.rank());
        Lowered dz{Func("dz"), zi.extents};
        dz.f(a) = zi.f(a) - zp.f(a);
        dzs.push_back(dz);
        us.push_back(lower::input(u[i]));
    }
    const std::vector<Expr> kdz = lower::adjoint_sums(L, p.psi, dzs, st), ktu = lower::adjoint_sums(L, p.psi, us, st);
    std::vector<Lowered> q;
    for (const auto* sums : {&kdz, &ktu})
        for (std::size_t j = 0; j < xin.size(); ++j) {
            Lowered l{Func(sums == &kdz ? "kt_dz" : "kt_u"), xin[j].extents};
            l.f(lower::args(xin[j].rank())) = (*sums)[j];
            q.push_back(l);
        }
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const Lowered zi = lower::input(z[i]);
        const auto a = lower::args(zi.rank());
        Lowered kx = L.forward(p.psi[i].expr, xin, Part::linear, st);
        Lowered r{Func("primal_residual" + std::to_string(i)), zi.extents};
        r.f(a) = kx.f(a) - zi.f(a);
        q.push_back(r);
        q.push_back(kx);
        q.push_back(zi);
    }
    const lower::SquareSums sums = lower::square_sums(q);
    lower::schedule_square_sums(sums, st);
    residual = Pipeline(sums.out);
}

std::vector<std::vector<int>> split_residual_shapes(const ir::Problem& p) {
    std::vector<std::vector<int>> s = ir::variable_shapes(p);
    for (const auto& v : ir::variable_shapes(p)) s.push_back(v);
    for (const auto& t : p.psi)
        for (int k = 0; k < 3; ++k) s.push_back(t.expr.shape);
    return s;
}

std::vector<Argument> SplitPipelines::arguments() const {
    std::vector<Argument> a;
    for (const auto* list : {&z, &z_prev, &u})
        for (const auto& i : *list) a.emplace_back(i);
    a.emplace_back(rho);
    return a;
}

SplitState::SplitState(const ir::Problem& p, const Result* warm, Algorithm a)
    : problem_(p), shapes_(psi_shapes(p)), sums_(split_residual_shapes(p)) {
    const std::size_t n = shapes_.size();
    const bool warm_duals =
        warm && warm->signature == ir::signature(p) && warm->algorithm == a && warm->duals.size() == 2 * n;
    for (std::size_t i = 0; i < n; ++i) {
        z_.push_back(warm_duals ? warm->duals[i].copy() : Image(shapes_[i]));
        // HQS keeps u = 0 whatever a warm start holds (its fused kernel does not read u)
        u_.push_back(warm_duals && a != Algorithm::hqs ? warm->duals[n + i].copy() : Image(shapes_[i]));
        z_next_.emplace_back(shapes_[i]);
        u_next_.emplace_back(shapes_[i]);
    }
}

void SplitState::bind(jit::Call& c) const {
    for (std::size_t i = 0; i < z_.size(); ++i) {
        const std::string n = std::to_string(i);
        c.in("z" + n, z_[i]).in("z_prev" + n, z_next_[i]).in("u" + n, u_[i]);
    }
    c.in("rho", rho_);
}

void SplitState::set_kernels(jit::Call zu_step, jit::Call residual, jit::Call zu_at_extrapolated) {
    zu_ = std::move(zu_step);
    residual_ = std::move(residual);
    zu_extrapolated_ = std::move(zu_at_extrapolated);
    for (auto* zu : {&zu_, &zu_extrapolated_})
        if (zu->defined())
            for (std::size_t i = 0; i < z_.size(); ++i) zu->out(int(2 * i), z_next_[i]).out(int(2 * i + 1), u_next_[i]);
    residual_.out(0, sums_.partials);
}

void SplitState::measure_implicit_dual() {
    for (std::size_t i = 0; i < u_next_.size(); ++i) residual_.in("u" + std::to_string(i), u_next_[i]);
}

void SplitState::update(double rho, bool keep_dual, bool at_extrapolated) {
    if (z_.empty()) return;
    rho_ = float(rho);
    (at_extrapolated ? zu_extrapolated_ : zu_).run();
    swap_with_views(z_, z_views_, z_next_, z_next_views_);  // z_next_ now holds the previous z
    if (keep_dual) swap_with_views(u_, u_views_, u_next_, u_next_views_);
}

void SplitState::measure(double rho) {
    rho_ = float(rho);
    residual_.run();
}

algorithms::SplitSums SplitState::totals(const Image& x) const {
    const std::vector<double> s = sums_.totals();
    return algorithms::split_sums(s.data(), int(ir::variable_shapes(problem_).size()), int(z_.size()),
                                  double(x.size()), double(psi_elements(problem_)));
}

int SplitState::bind_fused_outputs(jit::Call& c, int first, int var_rank) {
    if (z_views_.empty())
        for (std::size_t i = 0; i < z_.size(); ++i) {
            z_views_.push_back(component_views(z_[i], var_rank));
            u_views_.push_back(component_views(u_[i], var_rank));
            z_next_views_.push_back(component_views(z_next_[i], var_rank));
            u_next_views_.push_back(component_views(u_next_[i], var_rank));
        }
    for (std::size_t i = 0; i < z_.size(); ++i) {
        for (auto& v : z_next_views_[i]) c.out(first++, v);
        for (auto& v : u_next_views_[i]) c.out(first++, v);
    }
    return first;
}

void SplitState::advance_fused(bool keep_dual) {
    swap_with_views(z_, z_views_, z_next_, z_next_views_);  // z_next_ now holds the previous z
    if (keep_dual) swap_with_views(u_, u_views_, u_next_, u_next_views_);
}

void SplitState::run_fused(jit::Call& c, double rho, bool keep_dual) {
    rho_ = float(rho);
    c.run();
    advance_fused(keep_dual);
}

void SplitState::rescale_dual(double factor) {
    for (auto& u : u_) {
        // a pass over u at every change of ρ: on the kernels' threads where u is large
        const long n = long(u.size());
        float* d = u.data();
        jit::in_pieces(n, n, [&](long a, long b) {
            for (long i = a; i < b; ++i) d[i] = float(d[i] * factor);
        });
    }
}

int split_solution_term(const ir::Problem& p) {
    // several variables: x is the stacked state, which no split copy has the shape of
    if (p.variables.size() > 1) return -1;
    int copy = -1, constraints = 0;
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const auto& t = p.psi[i];
        if (!catalogue::card_of(t).facts().interval) continue;
        ++constraints;
        if (t.expr.is_variable()) copy = int(i);
    }
    for (const auto& t : p.omega) constraints += catalogue::card_of(t).facts().interval;
    return constraints == 1 ? copy : -1;
}

const Image& SplitState::solution(const Image& x) const {
    const int i = split_solution_term(problem_);
    return i >= 0 ? z_[std::size_t(i)] : x;
}

std::vector<Image> SplitState::duals() const {
    std::vector<Image> d = z_;
    d.insert(d.end(), u_.begin(), u_.end());
    return d;
}

}  // namespace proxgen::detail
