// Linearized ADMM (Parikh & Boyd, Proximal Algorithms, §4.4.2), split z_i = K_i x:
//   x⁺ = prox_{μΩ}(x − (μ/λ) Kᵀ(K x − z + u))      (one pipeline, K and Kᵀ fused)
//   z⁺ = prox_{λΨ}(K x⁺ + u),  u⁺ = u + K x⁺ − z⁺   (one pipeline, Tuple output per term)
// with 0 < μ ≤ λ/‖K‖². Residuals and stopping as Boyd et al. 2011 with ρ = 1/λ.
#include <cmath>

#include "engine.hpp"
#include "proxgen/error.hpp"

namespace proxgen::detail {

using namespace Halide;
using lower::Lowered;
using lower::Part;
using lower::Stages;

namespace {

struct LADMMKernels {
    lower::Params params;
    ImageParam x;
    std::vector<ImageParam> z, z_prev, u;
    Param<float> lambda{"lambda"}, mu{"mu"};
    Pipeline x_step, zu_step, residual;

    explicit LADMMKernels(const ir::Problem& p) : params(p), x(Float(32), int(p.variable_shape.size()), "x") {
        const int rv = int(p.variable_shape.size());
        const auto av = lower::args(rv);
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            const int r = int(p.psi[i].expr.shape.size());
            z.emplace_back(Float(32), r, "z" + std::to_string(i));
            z_prev.emplace_back(Float(32), r, "z_prev" + std::to_string(i));
            u.emplace_back(Float(32), r, "u" + std::to_string(i));
        }
        const Lowered xin = lower::input(x);
        lower::Lowerer L(p, params, xin.extents);

        {  // x-update
            Stages st;
            Expr kt = 0.0f;
            for (std::size_t i = 0; i < p.psi.size(); ++i) {
                const Lowered zi = lower::input(z[i]), ui = lower::input(u[i]);
                const auto a = lower::args(zi.rank());
                Lowered kx = L.forward(p.psi[i].expr, xin, Part::linear, st);
                Lowered w{Func("ladmm_residual_arg"), zi.extents};
                w.f(a) = kx.f(a) - zi.f(a) + ui.f(a);
                if (auto g = L.adjoint(p.psi[i].expr, w, st)) kt += (*g)(av);
            }
            Lowered v{Func("x_arg"), xin.extents};
            v.f(av) = xin.f(av) - (mu / lambda) * kt;
            Func prox = lower::omega_prox(L, v, mu, st);
            Func x_next("x_next");
            x_next(av) = prox(av);
            lower::schedule_output(x_next, rv, st);
            x_step = Pipeline(x_next);
            compile(x_step);
        }
        if (!p.psi.empty()) {  // (z, u)-update: one Tuple-valued output per term
            std::vector<Func> outs;
            for (std::size_t i = 0; i < p.psi.size(); ++i) {
                const auto& t = p.psi[i];
                Stages st;
                const Lowered ui = lower::input(u[i]);
                const auto a = lower::args(ui.rank());
                Lowered kx = L.forward(t.expr, xin, Part::linear, st);
                Lowered c = L.forward(t.expr, xin, Part::offset, st);
                Func v_f("z_arg");
                v_f(a) = kx.f(a) + ui.f(a);
                st.add(v_f);
                Lowered v{v_f, ui.extents};
                Func zf = lower::prox(t.penalty, v, c.is_zero ? std::nullopt : std::optional<Func>(c.f), L.weight(t),
                                      1.0f / lambda, st);
                Func out("zu_next" + std::to_string(i));
                out(a) = Tuple(zf(a), v_f(a) - zf(a));
                lower::schedule_output(out, ui.rank(), st);
                outs.push_back(out);
            }
            zu_step = Pipeline(outs);
            compile(zu_step);
        }
        {  // residual ingredients: K_i x, Kᵀ(z − z_prev), Kᵀu
            std::vector<Func> outs;
            Stages s1, s2;
            Expr kdz = 0.0f, ktu = 0.0f;
            for (std::size_t i = 0; i < p.psi.size(); ++i) {
                const Lowered zi = lower::input(z[i]), zp = lower::input(z_prev[i]), ui = lower::input(u[i]);
                const auto a = lower::args(zi.rank());
                Lowered dz{Func("dz"), zi.extents};
                dz.f(a) = zi.f(a) - zp.f(a);
                if (auto g = L.adjoint(p.psi[i].expr, dz, s1)) kdz += (*g)(av);
                if (auto g = L.adjoint(p.psi[i].expr, ui, s2)) ktu += (*g)(av);
            }
            Func kdz_f("kt_dz"), ktu_f("kt_u");
            kdz_f(av) = kdz;
            ktu_f(av) = ktu;
            lower::schedule_output(kdz_f, rv, s1);
            lower::schedule_output(ktu_f, rv, s2);
            outs.push_back(kdz_f);
            outs.push_back(ktu_f);
            for (std::size_t i = 0; i < p.psi.size(); ++i) {
                Stages st;
                Lowered kx = L.forward(p.psi[i].expr, xin, Part::linear, st);
                Func kx_f("kx" + std::to_string(i));
                kx_f(lower::args(kx.rank())) = kx.f(lower::args(kx.rank()));
                lower::schedule_output(kx_f, kx.rank(), st);
                outs.push_back(kx_f);
            }
            residual = Pipeline(outs);
            compile(residual);
        }
    }
};

}  // namespace

LADMMSteps ladmm_steps(const ir::Problem& p, const Options& opt) {
    const double L = std::max(stacked_norm_bound(p), 1e-12);
    LADMMSteps s{};
    s.lambda = opt.lambda > 0 ? opt.lambda : 1.0 / L;
    s.mu = opt.mu > 0 ? opt.mu : s.lambda / (L * L);
    if (s.mu > s.lambda / (L * L) * (1 + 1e-6))
        fail("ladmm: mu = {} exceeds lambda / ||K||^2 = {:.4g}; the iteration may diverge", s.mu,
             s.lambda / (L * L));
    return s;
}

Result linearized_admm(const ir::Problem& p, const Options& opt, const Result* warm) {
    Result res;
    auto K = cached_as<LADMMKernels>("ladmm:" + ir::signature(p), [&] { return std::make_shared<LADMMKernels>(p); },
                                     res.compile_seconds);
    K->params.bind(p);
    const LADMMSteps steps = ladmm_steps(p, opt);
    K->lambda.set(float(steps.lambda));
    K->mu.set(float(steps.mu));

    Image x = initial_x(p, opt, warm), x_next(p.variable_shape);
    const auto shapes = psi_shapes(p);
    const std::size_t n_terms = shapes.size();
    const bool warm_duals = warm && warm->signature == ir::signature(p) && warm->algorithm == Algorithm::ladmm &&
                            warm->duals.size() == 2 * n_terms;
    std::vector<Image> z, u, z_next, u_next;
    for (std::size_t i = 0; i < n_terms; ++i) {
        z.push_back(warm_duals ? warm->duals[i].copy() : Image(shapes[i]));
        u.push_back(warm_duals ? warm->duals[n_terms + i].copy() : Image(shapes[i]));
        z_next.emplace_back(shapes[i]);
        u_next.emplace_back(shapes[i]);
    }
    Image r_kdz(p.variable_shape), r_ktu(p.variable_shape);
    std::vector<Image> r_kx;
    for (const auto& s : shapes) r_kx.emplace_back(s);

    const double sqrt_n = std::sqrt(double(x.size())), sqrt_m = std::sqrt(double(psi_elements(p)));
    Monitor mon(p, opt, res);
    int it = 0;
    bool converged = false, stopped = false;
    while (it < opt.max_iters && !converged && !stopped) {
        ++it;
        set(K->x, x);
        for (std::size_t i = 0; i < n_terms; ++i) {
            set(K->z[i], z[i]);
            set(K->u[i], u[i]);
        }
        run(K->x_step, {&x_next});
        std::swap(x, x_next);
        if (n_terms) {
            set(K->x, x);
            std::vector<Image*> outs;
            for (std::size_t i = 0; i < n_terms; ++i) {
                outs.push_back(&z_next[i]);
                outs.push_back(&u_next[i]);
            }
            run(K->zu_step, outs);
            std::swap(z, z_next);  // z_next now holds the previous z
            std::swap(u, u_next);
        }
        if (mon.should_check(it)) {
            set(K->x, x);
            for (std::size_t i = 0; i < n_terms; ++i) {
                set(K->z[i], z[i]);
                set(K->z_prev[i], z_next[i]);
                set(K->u[i], u[i]);
            }
            std::vector<Image*> outs{&r_kdz, &r_ktu};
            for (auto& k : r_kx) outs.push_back(&k);
            run(K->residual, outs);
            double r2 = 0, kx2 = 0, z2 = 0;
            for (std::size_t i = 0; i < n_terms; ++i) {
                r2 += std::pow(norm2_diff(r_kx[i], z[i]), 2);
                kx2 += std::pow(norm2(r_kx[i]), 2);
                z2 += std::pow(norm2(z[i]), 2);
            }
            const double rho = 1.0 / steps.lambda;
            const double r_pri = std::sqrt(r2), r_dual = rho * norm2(r_kdz);
            const double eps_pri = sqrt_m * opt.eps_abs + opt.eps_rel * std::sqrt(std::max(kx2, z2));
            const double eps_dual = sqrt_n * opt.eps_abs + opt.eps_rel * rho * norm2(r_ktu);
            converged = mon.record(it, r_pri, eps_pri, r_dual, eps_dual, x);
        }
        if (!mon.after_iteration(it)) stopped = true;
    }
    mon.finish(it, converged, stopped);
    res.x = x;
    res.duals = z;
    res.duals.insert(res.duals.end(), u.begin(), u.end());
    return res;
}

}  // namespace proxgen::detail
