// Linearized ADMM's step pipelines; see ladmm_pipelines.hpp and, for the iteration, ladmm.cpp.
#include "ladmm_pipelines.hpp"

#include "proxgen/error.hpp"

namespace proxgen::detail {

using namespace Halide;
using lower::Lowered;
using lower::Part;
using lower::Stages;

LADMMPipelines::LADMMPipelines(const ir::Problem& p) : params(p), x(p, "x") {
    const int rv = int(p.variable_shape.size());
    const lower::State xin = x.lowered();
    if (lower::spectral_constant_precomputed(p)) {
        omega_constant = ImageParam(Float(32), rv, "omega_constant");
        lower::Lowerer L(p, params, xin);
        constant = Pipeline(lower::omega_spectral_constant(L));
    }
    lower::Lowerer L(p, params, xin);
    L.omega_constant = omega_constant;
    split = std::make_unique<SplitPipelines>(p, L, x);
    std::vector<Lowered> z, u;
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        z.push_back(lower::input(split->z[i]));
        u.push_back(lower::input(split->u[i]));
    }
    Stages st;
    const std::vector<Func> outs = lower::omega_update_state(L, x_arg(L, xin, z, u, Expr(1.0f), st, false), mu, st);
    std::vector<int> ranks;
    for (const auto& v : xin) ranks.push_back(v.rank());
    lower::schedule_outputs(outs, ranks, st);
    x_step = Pipeline(outs);
}

lower::State LADMMPipelines::x_arg(lower::Lowerer& L, const lower::State& xin, const std::vector<Lowered>& z,
                                   const std::vector<Lowered>& u, Expr scale, Stages& st, bool stage) const {
    const ir::Problem& p = L.problem();
    const int rv = xin.front().rank();
    std::vector<Lowered> ws;
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const auto a = lower::args(z[i].rank());
        Lowered kx = L.forward(p.psi[i].expr, xin, Part::linear, st);
        Lowered w{Func("ladmm_residual_arg"), z[i].extents};
        w.f(a) = kx.f(a) - z[i].f(a) + scale * u[i].f(a);
        if (stage) {
            st.add(w.f, w.rank() > rv ? lower::fused_components(p, p.psi[i]) : 0);
            w.staged = true;
        }
        ws.push_back(w);
    }
    const std::vector<Expr> kt = lower::adjoint_sums(L, p.psi, ws, st);
    lower::State v;
    for (std::size_t j = 0; j < xin.size(); ++j) {
        const auto av = lower::args(xin[j].rank());
        Lowered vj{Func("x_arg"), xin[j].extents};
        vj.f(av) = xin[j].f(av) - (mu / lambda) * kt[j];
        v.push_back(vj);
    }
    return v;
}

LADMMPipelines::Level LADMMPipelines::level(lower::Lowerer& L, const lower::State& xin,
                                            const std::vector<Lowered>& z, const std::vector<Lowered>& u, Expr scale,
                                            Stages& st, bool stage_zu, bool stage_w) const {
    const ir::Problem& p = L.problem();
    Level next;
    const std::vector<Func> xn = lower::omega_update_state(L, x_arg(L, xin, z, u, scale, st, stage_w), mu, st);
    for (std::size_t j = 0; j < xn.size(); ++j) {
        st.add(xn[j]);  // K x⁺ reads it at neighbouring pixels
        next.x.push_back(Lowered{xn[j], xin[j].extents});
        next.x.back().staged = true;
    }
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const SplitTerm s = split_term(L, p, i, next.x, xin, u[i], scale, 1.0f / lambda, st, stage_zu);
        next.z.push_back(s.z);
        next.u.push_back(s.u);
    }
    return next;
}

std::vector<Expr> LADMMPipelines::elements(const ir::Problem& p, const Level& l) {
    const int rv = l.x.front().rank();
    std::vector<Expr> e;
    for (const auto& xj : l.x) e.push_back(xj.f(lower::args(rv)));
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const int parts = lower::fused_components(p, p.psi[i]);
        for (Expr c : lower::components(l.z[i].f, rv, parts)) e.push_back(c);
        for (Expr c : lower::components(l.u[i].f, rv, parts)) e.push_back(c);
    }
    return e;
}

Pipeline LADMMPipelines::fused(const ir::Problem& p, bool with_check) {
    const lower::State xin = x.lowered();
    const int rv = xin.front().rank();
    const auto av = lower::args(rv);
    lower::Lowerer L(p, params, xin);
    Stages st;
    std::vector<Lowered> z, u;
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        z.push_back(lower::input(split->z[i]));
        u.push_back(lower::input(split->u[i]));
    }
    // with the check, z⁺ and u⁺ are staged too: Kᵀ(z⁺ − z) and Kᵀu⁺ read them at neighbours
    const Level next = level(L, xin, z, u, u_scale, st, with_check);
    Func out("ladmm_step");
    out(av) = Tuple(elements(p, next));
    if (!with_check) {
        lower::schedule_output(out, rv, st);
        return Pipeline(out);
    }
    // split_residual_shapes: Kᵀ(z⁺ − z) and Kᵀu⁺ per variable, then (K x⁺ − z⁺, K x⁺, z⁺) per term
    std::vector<Lowered> dzs, per_term;
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const auto a = lower::args(z[i].rank());
        Lowered dz{Func("dz"), z[i].extents};
        dz.f(a) = next.z[i].f(a) - z[i].f(a);
        dzs.push_back(dz);
        Lowered kx = L.forward(p.psi[i].expr, next.x, Part::linear, st);
        Lowered r{Func("primal_residual" + std::to_string(i)), z[i].extents};
        r.f(a) = kx.f(a) - next.z[i].f(a);
        per_term.push_back(r);
        per_term.push_back(kx);
        per_term.push_back(next.z[i]);
    }
    const std::vector<Expr> kdz = lower::adjoint_sums(L, p.psi, dzs, st),
                            ktu = lower::adjoint_sums(L, p.psi, next.u, st);
    std::vector<Lowered> q;
    for (const auto* sums : {&kdz, &ktu})
        for (std::size_t j = 0; j < xin.size(); ++j) {
            Lowered l{Func(sums == &kdz ? "kt_dz" : "kt_u"), xin[j].extents};
            l.f(av) = (*sums)[j];
            q.push_back(l);
        }
    q.insert(q.end(), per_term.begin(), per_term.end());
    const lower::SquareSums sums = lower::square_sums(q);
    lower::schedule_output(out, rv, st);
    lower::schedule_square_sums_with(sums, out);
    return Pipeline({out, sums.out});
}

Pipeline LADMMPipelines::iterations(const ir::Problem& p, int n) {
    PROXGEN_INTERNAL_ASSERT(n >= 2 && lower::psi_blockable(p));
    const int rv = int(p.variable_shape.size());
    const Lowered xin = lower::input(x.vars.front());
    lower::Lowerer L(p, params, xin.extents);
    Stages st;
    Level cur;
    cur.x = {xin};
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        cur.z.push_back(lower::input(split->z[i]));
        cur.u.push_back(lower::input(split->u[i]));
    }
    // K x − z + u is recomputed where the adjoint reads it (a sliding window more per level
    // made Halide's loop trimming take minutes)
    for (int k = 0; k < n; ++k)
        cur = level(L, cur.x, cur.z, cur.u, k == 0 ? Expr(u_scale) : Expr(1.0f), st, false, false);
    Func out("ladmm_iterations");
    out(lower::args(rv)) = Tuple(elements(p, cur));
    // K x − z + u is inlined, so a level's x is read over K's and Kᵀ's reach and the inlined
    // z, u chains': 8 rows were too few (Halide's fold check failed), 16 suffice
    lower::schedule_blocked(out, rv, st, 32, 16);
    return Pipeline(out);
}

std::vector<Argument> LADMMPipelines::arguments() const {
    auto a = params.arguments();
    x.append_to(a);
    for (auto& s : split->arguments()) a.push_back(s);
    a.emplace_back(lambda);
    a.emplace_back(mu);
    a.emplace_back(u_scale);
    if (omega_constant) a.emplace_back(*omega_constant);
    return a;
}

}  // namespace proxgen::detail
