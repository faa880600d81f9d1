// ADMM's and HQS's step pipelines; see quadratic_pipelines.hpp and, for the iteration, admm.cpp.
#include "quadratic_pipelines.hpp"

#include "proxgen/catalogue/card.hpp"
#include "proxgen/error.hpp"

namespace proxgen::detail {

using namespace Halide;
using lower::Lowered;
using lower::Part;
using lower::Stages;

namespace {

/// x = A⁻¹ r per pixel for the k×k (k ≤ plan::max_pixel_block) symmetric positive definite A whose
/// column j is `column[j]` (the Gram matrix applied to the indicator of variable j): Cramer's rule
/// with the adjugate written out, a few dozen flops per pixel and no loop.
std::vector<Expr> pixel_block_solve(const std::vector<std::vector<Expr>>& column, const std::vector<Expr>& r) {
    const std::size_t k = r.size();
    auto a = [&](std::size_t i, std::size_t j) { return column[j][i]; };
    if (k == 2) {
        const Expr det = a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
        return {(a(1, 1) * r[0] - a(0, 1) * r[1]) / det, (a(0, 0) * r[1] - a(1, 0) * r[0]) / det};
    }
    PROXGEN_INTERNAL_ASSERT(k == 3);
    // cofactors by the cyclic rule (the sign is in the index rotation)
    auto cof = [&](std::size_t i, std::size_t j) {
        const std::size_t i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
        return a(i1, j1) * a(i2, j2) - a(i1, j2) * a(i2, j1);
    };
    const Expr det = a(0, 0) * cof(0, 0) + a(0, 1) * cof(0, 1) + a(0, 2) * cof(0, 2);
    std::vector<Expr> x;
    for (std::size_t i = 0; i < 3; ++i) x.push_back((cof(0, i) * r[0] + cof(1, i) * r[1] + cof(2, i) * r[2]) / det);
    return x;
}

/// One output per variable named base, base_v1, …, each over its variable's domain, scheduled.
Pipeline per_variable(const std::string& base, const lower::State& like, const std::vector<Expr>& values,
                      const Stages& st) {
    std::vector<Func> outs;
    std::vector<int> ranks;
    for (std::size_t j = 0; j < like.size(); ++j) {
        Func f(jit::state_name(base, int(j)));
        f(lower::args(like[j].rank())) = values[j];
        outs.push_back(f);
        ranks.push_back(like[j].rank());
    }
    lower::schedule_outputs(outs, ranks, st);
    return Pipeline(outs);
}

}  // namespace

/// The operator with every Neumann grad made periodic: the circulant matrix CG's preconditioner
/// inverts by FFT (it differs from the true one only near the image border, so preconditioned CG
/// needs a few iterations). nullopt where no circulant stands in (elementwise weights, subsampling).
std::optional<ir::Node> circulant_approximation(const ir::Node& n) {
    // each node's card gives its circulant stand-in (none for mul_elemwise, subsample and most of
    // the wider catalogue: crop, warp, colour matrices, user operators…)
    std::optional<ir::Node> c = catalogue::card_of(n).circulant(n);
    if (!c) return std::nullopt;
    for (auto& a : c->args) {
        auto approx = circulant_approximation(a);
        if (!approx) return std::nullopt;
        a = std::move(*approx);
    }
    return c;
}

std::optional<ir::Problem> circulant_problem(const ir::Problem& p) {
    if (ir::variable_shapes(p).size() > 1) return std::nullopt;
    ir::Problem c = p;
    for (auto* terms : {&c.omega, &c.psi})
        for (auto& t : *terms) {
            auto approx = circulant_approximation(t.expr);
            if (!approx || (terms == &c.omega && !t.arg_weight.empty())) return std::nullopt;
            t.expr = std::move(*approx);
        }
    return c;
}

std::vector<Expr> QuadraticPipelines::x_update_values(lower::Lowerer& L, const ir::Problem& p, const lower::State& xin,
                                                      const std::vector<Lowered>& z, const std::vector<Lowered>& u,
                                                      Stages& st) const {
    // G v = Σ_Ω 2α Aᵀ(a² ⊙ A v) + ρ Σ_Ψ KᵀK v;  rhs = −Σ_Ω 2α Aᵀ(a ⊙ g) + ρ Σ_Ψ Kᵀ(z − u)
    auto gram = [&](const lower::State& v) { return split_gram(L, p, xin, v, rho, st); };
    std::vector<Expr> out = split_rhs(L, p, xin, z, u, rho, st);
    bool any_elementwise = false;
    for (std::size_t j = 0; j < xin.size(); ++j)
        any_elementwise = any_elementwise || ir::block_update(p, int(j)) == plan::XUpdate::elementwise;
    if (any_elementwise) {
        // G is diagonal on those blocks, so their diagonal is G·1 (spectral blocks keep their
        // right-hand side: SpectralGram solves them)
        lower::State ones;
        for (const auto& v : xin) ones.push_back(lower::constant_like(1.0f, v.extents));
        const std::vector<Expr> diagonal = gram(ones);
        for (std::size_t j = 0; j < out.size(); ++j)
            if (ir::block_update(p, int(j)) == plan::XUpdate::elementwise) out[j] = out[j] / diagonal[j];
    }
    if (p.x_update == plan::XUpdate::pixel_block) {
        // the variables share one shape: G's column j at a pixel is G applied to the
        // indicator of variable j, evaluated there
        std::vector<std::vector<Expr>> column;
        for (std::size_t j = 0; j < xin.size(); ++j) {
            lower::State indicator;
            for (std::size_t i = 0; i < xin.size(); ++i)
                indicator.push_back(lower::constant_like(i == j ? 1.0f : 0.0f, xin[i].extents));
            column.push_back(gram(indicator));
        }
        out = pixel_block_solve(column, out);
    }
    return out;
}

bool QuadraticPipelines::fusable(const ir::Problem& p) {
    return lower::psi_fusable(p) && p.x_update != plan::XUpdate::cg;
}

Pipeline QuadraticPipelines::zu_and_x(const ir::Problem& p) {
    PROXGEN_INTERNAL_ASSERT(fusable(p));
    const lower::State xin = x.lowered();
    const int rv = xin.front().rank();
    const auto av = lower::args(rv);
    lower::Lowerer L(p, params, xin);
    Stages st;
    // x̂ = x + m (x − x_prev): K x̂ reads it at neighbouring pixels
    const Lowered xp = lower::input(x_prev);
    Lowered x_hat{Func("x_hat"), xin.front().extents};
    x_hat.f(av) = xin.front().f(av) + momentum * (xin.front().f(av) - xp.f(av));
    st.add(x_hat.f);
    x_hat.staged = true;
    const bool keep_dual = p.algorithm != Algorithm::hqs;
    std::vector<Lowered> z_next, u_rhs;
    std::vector<Expr> elements{Expr()};  // the x-update's output first, set below
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        // HQS keeps u = 0: a constant, not a plane read at every iteration
        const Lowered ui = keep_dual ? lower::input(split->u[i]) : lower::zeros(lower::input(split->u[i]).extents);
        // staged: the x-update's adjoints read z⁺ and u⁺ at neighbouring pixels
        const SplitTerm s = split_term(L, p, i, lower::State{x_hat}, lower::State{x_hat}, ui, Expr(), split->rho, st, true);
        z_next.push_back(s.z);
        u_rhs.push_back(keep_dual ? s.u : ui);  // HQS keeps u = 0: its next right-hand side reads that
        const int count = lower::fused_components(p, p.psi[i]);
        for (Expr c : lower::components(s.z.f, rv, count)) elements.push_back(c);
        for (Expr c : lower::components(s.u.f, rv, count)) elements.push_back(c);
    }
    elements.front() = x_update_values(L, p, xin, z_next, u_rhs, st).front();
    Func out(p.algorithm == Algorithm::hqs ? "hqs_zu_x" : "admm_zu_x");
    out(av) = Tuple(elements);
    lower::schedule_output(out, rv, st);
    return Pipeline(out);
}

std::vector<Argument> QuadraticPipelines::zu_and_x_arguments() const {
    auto a = arguments();
    a.emplace_back(x_prev);
    a.emplace_back(momentum);
    return a;
}

QuadraticPipelines::QuadraticPipelines(const ir::Problem& p)
    : params(p), x(p, "x"), direction(p, "direction"), precond_direction(p, "precond_direction") {
    const lower::State xin = x.lowered();
    lower::Lowerer L(p, params, xin);
    split = std::make_unique<SplitPipelines>(p, L, x);
    x_prev = ImageParam(Float(32), int(p.variable_shape.size()), "x_prev");

    auto gram = [&](const lower::State& v, Stages& st) { return split_gram(L, p, xin, v, rho, st); };
    Stages st;
    std::vector<Lowered> zs, us;
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        zs.push_back(lower::input(split->z[i]));
        us.push_back(lower::input(split->u[i]));
    }
    const std::vector<Expr> out = x_update_values(L, p, xin, zs, us, st);
    if (p.x_update != plan::XUpdate::cg) {  // CG starts from its own residual pipeline below
        rhs_or_x = per_variable("x_rhs", xin, out, st);
        if (plan::spectral(p.x_update)) {
            // the Gram's two parts, which a generated solver applies to an impulse for its eigenvalues
            Stages sg, sp;
            gram_apply = per_variable("gram_apply", xin, gram(direction.lowered(), sg), sg);
            ir::Problem psi_only = p;
            psi_only.omega.clear();
            gram_psi = per_variable("gram_psi", xin, split_gram(L, psi_only, xin, direction.lowered(), Expr(1.0f), sp), sp);
        }
        return;
    }
    Stages sg;
    gram_apply = per_variable("gram_apply", xin, gram(direction.lowered(), sg), sg);
    // r = Σ_Ω Aᵀ(−2α a ⊙ (c + a ⊙ A x)) + ρ Σ_Ψ Kᵀ(z − u − K x): the differences are formed
    // before the adjoints, so no large ρKᵀz and ρKᵀKx cancel in float32
    Stages sr;
    std::vector<const ir::Term*> omega;
    for (const auto& t : p.omega) omega.push_back(&t);
    std::vector<Expr> r = lower::quadratic_gradient(L, omega, xin, -2.0f, sr);
    for (std::size_t i = 0; i < p.psi.size(); ++i) {
        const Lowered zi = lower::input(split->z[i]), ui = lower::input(split->u[i]);
        Lowered kx = L.forward(p.psi[i].expr, xin, Part::linear, sr);
        const auto a = lower::args(zi.rank());
        Lowered w{Func("psi_residual_arg"), zi.extents};
        w.f(a) = zi.f(a) - ui.f(a) - kx.f(a);
        lower::add_adjoint(r, L.adjoint_state(p.psi[i].expr, w, sr), L, rho);
    }
    residual = per_variable("cg_residual", xin, r, sr);
    if (const std::optional<ir::Problem> c = circulant_problem(p)) {
        lower::Lowerer Lc(*c, params, xin);
        ir::Problem c_psi = *c;
        c_psi.omega.clear();
        Stages s1, s2;
        precond_gram = per_variable("precond_gram", xin, split_gram(Lc, *c, xin, direction.lowered(), rho, s1), s1);
        precond_gram_psi =
            per_variable("precond_gram_psi", xin, split_gram(Lc, c_psi, xin, direction.lowered(), Expr(1.0f), s2), s2);
        // E d over the terms whose stand-in differs (by signature: equal ones cancel exactly)
        ir::Problem differ = p, differ_c = *c;
        for (auto* q : {&differ, &differ_c}) q->omega.clear(), q->psi.clear();
        for (auto list : {&ir::Problem::omega, &ir::Problem::psi})
            for (std::size_t i = 0; i < (p.*list).size(); ++i)
                if (ir::signature((p.*list)[i]) != ir::signature(((*c).*list)[i])) {
                    (differ.*list).push_back((p.*list)[i]);
                    (differ_c.*list).push_back(((*c).*list)[i]);
                }
        Stages s3;
        const std::vector<Expr> e = split_gram(L, differ, xin, direction.lowered(), rho, s3),
                                e_c = split_gram(Lc, differ_c, xin, direction.lowered(), rho, s3);
        const lower::State pd = precond_direction.lowered();
        std::vector<Expr> g;
        for (std::size_t j = 0; j < xin.size(); ++j) g.push_back(pd[j].f(lower::args(pd[j].rank())) + (e[j] - e_c[j]));
        gram_split = per_variable("gram_split", xin, g, s3);
    }
}

std::vector<Argument> QuadraticPipelines::gram_split_arguments() const {
    auto a = arguments();
    precond_direction.append_to(a);
    return a;
}

CGVectorPipelines::CGVectorPipelines(const ir::Problem& p)
    : x(p, "cg_x"), r(p, "cg_r"), d(p, "cg_d"), gd(p, "cg_gd"), s(p, "cg_s"), pd(p, "cg_pd") {
    const lower::State xs = x.lowered(), rs = r.lowered(), ds = d.lowered(), gds = gd.lowered(), ss = s.lowered(),
                       pds = pd.lowered();
    std::vector<Func> x_next, r_next, d_next, pair_next;
    std::vector<int> ranks;
    std::vector<std::pair<Lowered, Lowered>> squares, products;
    for (std::size_t j = 0; j < xs.size(); ++j) {
        const auto a = lower::args(xs[j].rank());
        Func xn(jit::state_name("cg_x_next", int(j))), rn(jit::state_name("cg_r_next", int(j))),
            dn(jit::state_name("cg_d_next", int(j)));
        // d = s + β d: the direction alone, and beside its image under P (direction_pair)
        const Expr next_direction = ss[j].f(a) + factor * ds[j].f(a);
        xn(a) = xs[j].f(a) + factor * ds[j].f(a);
        rn(a) = rs[j].f(a) - factor * gds[j].f(a);
        dn(a) = next_direction;
        Func dp(jit::state_name("cg_dp_next", int(j))), pdn(jit::state_name("cg_pd_next", int(j)));
        dp(a) = next_direction;
        pdn(a) = rs[j].f(a) + factor * pds[j].f(a);
        pair_next.insert(pair_next.begin() + std::ptrdiff_t(j), dp);
        pair_next.push_back(pdn);
        x_next.push_back(xn);
        r_next.push_back(rn);
        d_next.push_back(dn);
        ranks.push_back(xs[j].rank());
        const Lowered r_after{rn, xs[j].extents};
        squares.emplace_back(r_after, r_after);
        products.emplace_back(xs[j], rs[j]);
    }
    std::vector<int> both_ranks = ranks;
    both_ranks.insert(both_ranks.end(), ranks.begin(), ranks.end());
    std::vector<Func> updated = x_next;
    updated.insert(updated.end(), r_next.begin(), r_next.end());
    lower::schedule_outputs(updated, both_ranks, Stages{});
    const lower::SquareSums after = lower::product_sums(squares);
    lower::schedule_square_sums(after, Stages{});
    updated.push_back(after.out);
    update = Pipeline(updated);

    lower::schedule_outputs(d_next, ranks, Stages{});
    direction = Pipeline(d_next);
    lower::schedule_outputs(pair_next, both_ranks, Stages{});
    direction_pair = Pipeline(pair_next);

    const lower::SquareSums inner = lower::product_sums(products);
    lower::schedule_square_sums(inner, Stages{});
    dot = Pipeline(inner.out);
}

std::vector<Argument> CGVectorPipelines::update_arguments() const {
    std::vector<Argument> a;
    for (const auto* v : {&x, &r, &d, &gd}) v->append_to(a);
    a.emplace_back(factor);
    return a;
}

std::vector<Argument> CGVectorPipelines::direction_arguments() const {
    std::vector<Argument> a;
    s.append_to(a);
    d.append_to(a);
    a.emplace_back(factor);
    return a;
}

std::vector<Argument> CGVectorPipelines::direction_pair_arguments() const {
    std::vector<Argument> a;
    for (const auto* v : {&s, &d, &r, &pd}) v->append_to(a);
    a.emplace_back(factor);
    return a;
}

std::vector<Argument> CGVectorPipelines::dot_arguments() const {
    std::vector<Argument> a;
    x.append_to(a);
    r.append_to(a);
    return a;
}

std::vector<Argument> QuadraticPipelines::arguments() const {
    auto a = params.arguments();
    x.append_to(a);
    direction.append_to(a);
    a.emplace_back(rho);
    for (auto& s : split->arguments()) a.push_back(s);
    return a;
}

}  // namespace proxgen::detail
