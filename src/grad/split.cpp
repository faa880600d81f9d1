// Linearized ADMM's and ADMM's iterations and their reverse (steppers.hpp). Both end with the split
// step of split_steps.hpp:
//   q_i = K_i x⁺ + u_i,  z⁺_i = P_i(q_i; ρ),  u⁺_i = q_i − z⁺_i        (L-ADMM: ρ = 1/λ)
// whose reverse is gq_i = gu⁺_i + J_Pᵀ(gz⁺_i − gu⁺_i) ("grad.split.g"), then gx⁺ += Σ K_iᵀ gq_i
// ("grad.split.gx"). The x-updates:
//   L-ADMM  v = x − (μ/λ) Σ K_iᵀ r_i, r_i = K_i x − z_i + u_i,  x⁺ = Q_μ(v) (Ω prox: closed form or FFT/DCT)
//           reverse: u = (∂Q/∂v)ᵀ gx⁺, gr_i = −(μ/λ) K_i u, gx = u + Σ K_iᵀ gr_i, gz_i = −gr_i,
//           gu_i = gq_i + gr_i
//   ADMM    x⁺ = G⁻¹ rhs, G = Σ_Ω 2α Aᵀa²A + ρ Σ K_iᵀK_i, rhs = −Σ_Ω 2α Aᵀ(a c) + ρ Σ K_iᵀ(z_i − u_i)
//           (elementwise or FFT/DCT; conjugate gradient is not differentiated yet)
//           reverse: w = G⁻¹ gx⁺ (G symmetric), gz_i = ρ K_i w, gu_i = gq_i − ρ K_i w,
//           ∂ρ = −Σ⟨K_i w, K_i x⁺ − z_i + u_i⟩, Ω's data through −∂_θ⟨w, ∇Ω(x⁺)⟩.
#include <cmath>

#include "steppers.hpp"

#include "../solve/engine.hpp"
#include "../solve/spectral_gram.hpp"
#include "../solve/split_steps.hpp"
#include "proxgen/catalogue/card.hpp"
#include "proxgen/error.hpp"

namespace proxgen::gradients {

using namespace Halide;
using lower::Part;

namespace {

struct SplitGradPipelines {
    const ir::Problem& p;
    const Request& req;
    const bool linearized;
    lower::Params params;
    ImageParam x, xn, gxo, gxt, uo;
    std::vector<ImageParam> z, u, gzo, guo, gq;
    Param<float> rho{"rho"}, lambda{"lambda"}, mu{"mu"}, drho_dstep{"drho_dstep"};
    std::optional<ImageParam> omega_constant;

    SplitGradPipelines(const ir::Problem& p_, const Request& r)
        : p(p_), req(r), linearized(p_.algorithm == Algorithm::ladmm), params(p_) {
        const int rv = int(p.variable_shape.size());
        const std::pair<ImageParam*, const char*> vars[] = {{&x, "x"}, {&xn, "xn"}, {&gxo, "gxo"}, {&gxt, "gxt"}, {&uo, "uo"}};
        for (const auto& [img, name] : vars) *img = ImageParam(Float(32), rv, name);
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            const int r = p.psi[i].expr.rank();
            const std::string n = std::to_string(i);
            z.emplace_back(Float(32), r, "z" + n);
            u.emplace_back(Float(32), r, "u" + n);
            gzo.emplace_back(Float(32), r, "gzo" + n);
            guo.emplace_back(Float(32), r, "guo" + n);
            gq.emplace_back(Float(32), r, "gq" + n);
        }
        if (linearized && plan::spectral(p.x_update)) omega_constant = ImageParam(Float(32), rv, "omega_constant");
    }
    std::vector<Argument> arguments() const {
        auto a = params.arguments();
        for (const auto* i : {&x, &xn, &gxo, &gxt, &uo}) a.emplace_back(*i);
        for (const auto* list : {&z, &u, &gzo, &guo, &gq})
            for (const auto& i : *list) a.emplace_back(i);
        for (const auto* s : {&rho, &lambda, &mu, &drho_dstep}) a.emplace_back(*s);
        if (omega_constant) a.emplace_back(*omega_constant);
        return a;
    }
    lower::Lowerer lowerer() { return lower::Lowerer(p, params, in(x).extents); }

    /// r_i = K_i x − z_i + u_i
    Lowered residual_arg(lower::Lowerer& L, std::size_t i, const Lowered& xl, Stages& st) {
        Lowered kx = L.forward(p.psi[i].expr, xl, Part::linear, st);
        const auto a = lower::args(kx.rank());
        Lowered r{Func("split_residual_arg"), kx.extents};
        r.f(a) = kx.f(a) - in(z[i]).f(a) + in(u[i]).f(a);
        return r;
    }
    /// L-ADMM: v = x − (μ/λ) Σ K_iᵀ r_i
    Lowered ladmm_v(lower::Lowerer& L, Stages& st) {
        const Lowered xl = in(x);
        const auto av = lower::args(xl.rank());
        Expr kt = 0.0f;
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            Lowered r = residual_arg(L, i, xl, st);
            st.add(r.f);
            r.staged = true;
            if (auto g = L.adjoint(p.psi[i].expr, r, st)) kt += (*g)(av);
        }
        Lowered v{Func("x_arg"), xl.extents};
        v.f(av) = xl.f(av) - (mu / lambda) * kt;
        return v;
    }

    // ---- forward -------------------------------------------------------------------------------
    Pipeline constant() {
        lower::Lowerer L = lowerer();
        return Pipeline(lower::omega_spectral_constant(L));
    }
    /// L-ADMM: x⁺ (or the spectral right-hand side). ADMM: x⁺ (elementwise) or the right-hand side.
    Pipeline x_step() {
        lower::Lowerer L = lowerer();
        L.omega_constant = omega_constant;
        Stages st;
        const int rv = int(p.variable_shape.size());
        const auto av = lower::args(rv);
        if (linearized) return Pipeline(lower::omega_step(L, ladmm_v(L, st), mu, st));
        const Lowered xin = in(x);
        std::vector<Lowered> zs, us;
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            zs.push_back(in(z[i]));
            us.push_back(in(u[i]));
        }
        const Expr rhs = detail::split_rhs(L, p, xin, zs, us, rho, st);
        Func out("x_rhs");
        if (p.x_update == plan::XUpdate::elementwise)
            out(av) = rhs / detail::split_gram(L, p, xin, lower::constant_like(1.0f, xin.extents), rho, st);
        else out(av) = rhs;
        lower::schedule_output(out, rv, st);
        return Pipeline(out);
    }
    /// (z⁺, u⁺) per term from x⁺ ("xn") and u: one Tuple output per term.
    Pipeline zu_step() {
        lower::Lowerer L = lowerer();
        std::vector<Lowered> us;
        for (const auto& ui : u) us.push_back(in(ui));
        return Pipeline(detail::split_zu_outputs(L, p, {in(xn)}, us, rho));
    }
    /// ADMM, elementwise G: w = gx⁺ / diag(G) (the reverse's solve).
    Pipeline diagonal_solve() {
        lower::Lowerer L = lowerer();
        Stages st;
        const int rv = int(p.variable_shape.size());
        const auto av = lower::args(rv);
        const Lowered xin = in(x), ones = lower::constant_like(1.0f, xin.extents);
        const Expr g = detail::split_gram(L, p, xin, ones, rho, st);
        Func out("grad_diagonal_solve");
        out(av) = in(gxt).f(av) / g;
        lower::schedule_output(out, rv, st);
        return Pipeline(out);
    }

    // ---- reverse -------------------------------------------------------------------------------
    StageBuilder split_reverse() {
        StageBuilder b;
        lower::Lowerer L = lowerer();
        const Lowered xl = in(xn);
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            const auto& t = p.psi[i];
            Output o;
            o.rank = t.expr.rank();
            o.shape = t.expr.shape;
            o.f = Func("split_grad" + std::to_string(i));
            const auto a = lower::args(o.rank);
            Lowered kx = L.forward(t.expr, xl, Part::linear, o.st);
            const lower::ProxSpec f = L.prox_spec(t, xl, o.st);
            Lowered q{Func("z_arg"), kx.extents};
            q.f(a) = kx.f(a) + in(u[i]).f(a);
            o.st.add(q.f);
            Lowered gzp{Func("split_prox_upstream"), kx.extents};
            gzp.f(a) = in(gzo[i]).f(a) - in(guo[i]).f(a);
            const ProxVJP d = prox_vjp(f, q, rho, gzp, o.st);
            o.image("gq" + std::to_string(i), in(guo[i]).f(a) + d.gv(a));
            o.quantity({Target::step, 0}, d.drho * drho_dstep);
            auto inner = inner_constant(L, t, xl, o.st);
            add_term_params(o, L, req, t, d.dalpha, d.da, d.dc, d.ddata, d.dweight_share,
                            inner ? std::optional<Expr>(inner->f(a)) : std::nullopt);
            b.outputs.push_back(std::move(o));
        }
        return b;
    }
    /// gx⁺ total = gxo + Σ K_iᵀ gq_i
    Pipeline x_total() {
        lower::Lowerer L = lowerer();
        Stages st;
        const int rv = int(p.variable_shape.size());
        const auto av = lower::args(rv);
        Expr e = in(gxo).f(av);
        for (std::size_t i = 0; i < p.psi.size(); ++i)
            if (auto g = L.adjoint(p.psi[i].expr, in(gq[i]), st)) e += (*g)(av);
        Func out("grad_x_total");
        out(av) = e;
        lower::schedule_output(out, rv, st);
        return Pipeline(out);
    }
    /// L-ADMM, closed-form Ω: u = (∂Q/∂v)ᵀ gx⁺ ("uo") and the binding constraints' gradients.
    StageBuilder ladmm_u() {
        StageBuilder b;
        Output o;
        o.rank = int(p.variable_shape.size());
        o.shape = p.variable_shape;
        o.f = Func("ladmm_grad_u");
        lower::Lowerer L = lowerer();
        Lowered v = ladmm_v(L, o.st);
        o.st.add(v.f);
        Expr ue = omega_closed_form_u(L, v, in(gxt), mu, o.st, &o, req);
        o.elements.insert(o.elements.begin(), ue);
        o.image_names.insert(o.image_names.begin(), "uo");
        o.targets.insert(o.targets.begin(), Target{});
        b.outputs.push_back(std::move(o));
        return b;
    }
    StageBuilder final_stage() {
        StageBuilder b;
        lower::Lowerer L = lowerer();
        const int rv = int(p.variable_shape.size());
        const auto av = lower::args(rv);
        const Expr ratio = mu / lambda;
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            const auto& t = p.psi[i];
            Output o;
            o.rank = t.expr.rank();
            o.shape = t.expr.shape;
            o.f = Func("split_grad_final" + std::to_string(i));
            const auto a = lower::args(o.rank);
            Lowered ku = L.forward(t.expr, in(uo), Part::linear, o.st);
            const std::string n = std::to_string(i);
            if (linearized) {
                Lowered r = residual_arg(L, i, in(x), o.st);
                Expr gr = -ratio * ku.f(a);
                o.image("gz_in" + n, -gr);
                o.image("gu_in" + n, in(gq[i]).f(a) + gr);
                // μ/λ: d(μ/λ) = −⟨K u, r⟩
                o.quantity({Target::step, 1}, -ku.f(a) * r.f(a) / lambda);
                o.quantity({Target::step, 0}, ku.f(a) * r.f(a) * mu / (lambda * lambda));
            } else {
                Lowered r = residual_arg(L, i, in(xn), o.st);
                o.image("gz_in" + n, rho * ku.f(a));
                o.image("gu_in" + n, in(gq[i]).f(a) - rho * ku.f(a));
                o.quantity({Target::step, 0}, -ku.f(a) * r.f(a));
            }
            b.outputs.push_back(std::move(o));
        }
        if (linearized) {
            Output o;
            o.rank = rv;
            o.shape = p.variable_shape;
            o.f = Func("ladmm_grad_x");
            Expr kt = 0.0f;
            for (std::size_t i = 0; i < p.psi.size(); ++i) {
                Lowered ku = L.forward(p.psi[i].expr, in(uo), Part::linear, o.st);
                const auto a = lower::args(ku.rank());
                Lowered gr{Func("ladmm_gr"), ku.extents};
                gr.f(a) = -ratio * ku.f(a);
                o.st.add(gr.f);
                gr.staged = true;
                if (auto g = L.adjoint(p.psi[i].expr, gr, o.st)) kt += (*g)(av);
            }
            o.image("gx_in", in(uo).f(av) + kt);
            if (!p.omega.empty()) {
                Lowered v = ladmm_v(L, o.st);
                o.quantity({Target::step, 1}, in(uo).f(av) * (in(xn).f(av) - v.f(av)) / mu);
            }
            b.outputs.push_back(std::move(o));
        }
        const Expr kappa = linearized ? Expr(mu) : Expr(1.0f);
        add_omega_params(b, L, req, [this] { return in(uo); }, [this] { return in(xn); }, kappa);
        add_omega_data(b, L, req, [this] { return in(uo); }, [this] { return in(xn); }, kappa);
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            if (!req.in_tree(p.psi[i].expr)) continue;
            std::vector<DataTerm> terms{{Expr(1.0f), [this](Stages&) { return in(xn); }, [this, i](Stages&) { return in(gq[i]); }}};
            auto ku = [this, i, &L](Stages& st) { return L.forward(p.psi[i].expr, in(uo), Part::linear, st); };
            if (linearized) {
                terms.push_back({-Expr(mu / lambda), [this](Stages&) { return in(uo); },
                                 [this, i, &L](Stages& st) { return residual_arg(L, i, in(x), st); }});
                terms.push_back({-Expr(mu / lambda), [this](Stages&) { return in(x); }, ku});
            } else {
                terms.push_back({-Expr(rho), [this](Stages&) { return in(uo); },
                                 [this, i, &L](Stages& st) { return residual_arg(L, i, in(xn), st); }});
                terms.push_back({-Expr(rho), [this](Stages&) { return in(xn); }, ku});
            }
            add_data_vjp(b, L, req, p.psi[i].expr, terms);
        }
        return b;
    }
};

struct SplitGradKernels {
    jit::KernelPtr constant, x_step, zu_step, x_total, diagonal;
    Stage split, u, final_;
};

template <class Make>
jit::KernelPtr plain_kernel(const ir::Problem& p, const std::string& role, const Request& req, Make make) {
    return detail::kernel_for(p, role, [&] {
        SplitGradPipelines pipes(p, req);
        return jit::Source{make(pipes), pipes.arguments()};
    });
}


class SplitStepper final : public Stepper {
public:
    SplitStepper(const ir::Problem& p, const Request& req, lower::DataArgs& data)
        : p_(p), req_(req), data_(data), linearized_(p.algorithm == Algorithm::ladmm), gram_(p) {
        if (!linearized_ && p.x_update == plan::XUpdate::cg)
            fail("gradient: ADMM's conjugate-gradient x-update is not differentiated yet; use Pock-Chambolle or "
                 "linearized ADMM, or periodic boundaries (an FFT x-update) for this problem");
        if (!linearized_ && p.x_update == plan::XUpdate::pixel_block)
            fail("gradient: ADMM's per-pixel block x-update (variables coupled pixel by pixel) is not "
                 "differentiated yet; use Pock-Chambolle or linearized ADMM for this problem");
        const std::string a = linearized_ ? "grad.ladmm" : "grad.admm";
        auto K = jit::cached_as<SplitGradKernels>(a + ":" + req.key() + ":" + ir::signature(p), [&] {
            auto k = std::make_shared<SplitGradKernels>();
            if (linearized_ && detail::spectral(p))
                k->constant = plain_kernel(p, a + ".omega_constant", req, [](auto& s) { return s.constant(); });
            k->x_step = plain_kernel(p, a + ".x", req, [](auto& s) { return s.x_step(); });
            if (!p.psi.empty()) {
                k->zu_step = plain_kernel(p, a + ".zu", req, [](auto& s) { return s.zu_step(); });
                k->split = compile_stage(p, a + ".g.split", req, &SplitGradPipelines::split_reverse);
            }
            k->x_total = plain_kernel(p, a + ".g.x_total", req, [](auto& s) { return s.x_total(); });
            if (linearized_ && !detail::spectral(p)) k->u = compile_stage(p, a + ".g.u", req, &SplitGradPipelines::ladmm_u);
            if (!linearized_ && p.x_update == plan::XUpdate::elementwise)
                k->diagonal = plain_kernel(p, a + ".g.diagonal", req, [](auto& s) { return s.diagonal_solve(); });
            k->final_ = compile_stage(p, a + ".g.final", req, &SplitGradPipelines::final_stage);
            return k;
        }, compile_seconds);
        K_ = K;
        if (K->split.defined()) split_run_ = StageRun(K->split);
        if (K->u.defined()) u_run_ = StageRun(K->u);
        final_run_ = StageRun(K->final_);
        gxt_ = Image(p.variable_shape);
        uo_ = Image(p.variable_shape);
        rhs_ = Image(p.variable_shape);
        for (const auto& t : p.psi) {
            gq_.emplace_back(t.expr.shape);
            u_eff_.emplace_back(t.expr.shape);
        }
        if (K->constant) {
            std::vector<Image> zero;
            for (const auto& s : state_shapes()) zero.emplace_back(s);
            omega_constant_ = Image(p.variable_shape);
            Bindings b = common(zero, zero, nullptr, zero_view(zero));
            run_kernel(K->constant, b, data_, {&omega_constant_});
        }
    }

    std::vector<std::vector<int>> state_shapes() const override {
        std::vector<std::vector<int>> s{p_.variable_shape};
        for (int k = 0; k < 2; ++k)
            for (const auto& t : p_.psi) s.push_back(t.expr.shape);
        return s;
    }
    int step_count() const override { return linearized_ ? 2 : 1; }
    std::size_t bytes() const override {
        std::size_t n = gxt_.size() + uo_.size() + rhs_.size() + omega_constant_.size();
        for (const auto& g : gq_) n += g.size();
        for (const auto& g : u_eff_) n += g.size();
        return n * sizeof(float) + split_run_.bytes() + u_run_.bytes() + final_run_.bytes();
    }

    void forward(const std::vector<Image>& in, std::vector<Image>& out, const double* steps,
                 const double* previous) override {
        set_steps(steps);
        const std::vector<const Image*> u = effective_u(in, steps, previous);
        Bindings b = common(in, out, nullptr, u);
        const std::size_t m = p_.psi.size();
        Image& xo = out[0];
        if (linearized_) {
            jit::Call c(K_->x_step);
            bind(c, *K_->x_step, b);
            gram_.omega_step(c, xo, steps[1]);
        } else if (p_.x_update == plan::XUpdate::elementwise) {
            run_kernel(K_->x_step, b, data_, {&xo});
        } else {
            run_kernel(K_->x_step, b, data_, {&rhs_});
            gram_.solve(rhs_, xo, 0.0, 1.0, steps[0]);
        }
        if (m > 0) {
            std::vector<Image*> outs;
            for (std::size_t i = 0; i < m; ++i) {
                outs.push_back(&out[1 + i]);
                outs.push_back(&out[1 + m + i]);
            }
            run_kernel(K_->zu_step, b, data_, outs);
        }
    }

    void reverse(const std::vector<Image>& in, const std::vector<Image>& out, std::vector<Image>& g_out,
                 std::vector<Image>& g_in, const double* steps, const double* previous, Accumulator& acc,
                 double* previous_grads) override {
        set_steps(steps);
        const std::vector<const Image*> u = effective_u(in, steps, previous);
        Bindings b = common(in, out, &g_out, u);
        const std::size_t m = p_.psi.size();
        for (std::size_t i = 0; i < m; ++i) {
            const std::string n = std::to_string(i);
            b.image("gq" + n, gq_[i]);
            b.image("gz_in" + n, g_in[1 + i]);
            b.image("gu_in" + n, g_in[1 + m + i]);
        }
        b.image("gx_in", g_in[0]);
        if (split_run_.defined()) split_run_.run(b, data_, acc);
        run_kernel(K_->x_total, b, data_, {&gxt_});
        if (linearized_) {
            if (u_run_.defined()) u_run_.run(b, data_, acc);
            else gram_.solve(gxt_, uo_, 1.0, steps[1], 0.0);
        } else if (p_.x_update == plan::XUpdate::elementwise) {
            run_kernel(K_->diagonal, b, data_, {&uo_});
        } else {
            gram_.solve(gxt_, uo_, 0.0, 1.0, steps[0]);
        }
        final_run_.run(b, data_, acc);
        // the rescale u_eff = s·u that opened the iteration. After the first iteration s is a
        // function of this iteration's and the previous one's step (previous_grads given), and its
        // derivative counts even where the steps are equal (s = 1): a change of either step
        // rescales u.
        const double s = rescale(steps, previous);
        const bool step_dependent = previous_grads != nullptr && acc.steps != nullptr;
        if (s != 1.0 || step_dependent) {
            double ds = 0;
            for (std::size_t i = 0; i < m; ++i) {
                Image& gu = g_in[1 + m + i];
                ds += dot(gu, in[1 + m + i]);
                if (s != 1.0) scale_into(gu, s, gu);
            }
            if (acc.steps && previous_grads) {
                if (linearized_) {  // s = λ_k/λ_{k−1}
                    (*acc.steps)[0] += ds / previous[0];
                    previous_grads[0] += -ds * steps[0] / (previous[0] * previous[0]);
                } else {  // s = ρ_{k−1}/ρ_k
                    (*acc.steps)[0] += -ds * previous[0] / (steps[0] * steps[0]);
                    previous_grads[0] += ds / steps[0];
                }
            }
        }
    }

private:
    double rescale(const double* steps, const double* previous) const {
        if (!previous || previous[0] == steps[0]) return 1.0;
        return linearized_ ? steps[0] / previous[0] : previous[0] / steps[0];
    }
    std::vector<const Image*> effective_u(const std::vector<Image>& in, const double* steps, const double* previous) {
        const std::size_t m = p_.psi.size();
        std::vector<const Image*> u;
        const double s = rescale(steps, previous);
        for (std::size_t i = 0; i < m; ++i) {
            if (s == 1.0) {
                u.push_back(&in[1 + m + i]);
            } else {
                scale_into(in[1 + m + i], s, u_eff_[i]);
                u.push_back(&u_eff_[i]);
            }
        }
        return u;
    }
    static std::vector<const Image*> zero_view(const std::vector<Image>& z) {
        std::vector<const Image*> v;
        const std::size_t m = (z.size() - 1) / 2;
        for (std::size_t i = 0; i < m; ++i) v.push_back(&z[1 + m + i]);
        return v;
    }
    void set_steps(const double* s) {
        if (linearized_) {
            lambda_f_ = float(s[0]);
            mu_f_ = float(s[1]);
            rho_f_ = float(1.0 / s[0]);
            drho_dstep_f_ = float(-1.0 / (s[0] * s[0]));
        } else {
            rho_f_ = float(s[0]);
            lambda_f_ = mu_f_ = 1.0f;
            drho_dstep_f_ = 1.0f;
        }
    }
    Bindings common(const std::vector<Image>& in, const std::vector<Image>& out, std::vector<Image>* g_out,
                    const std::vector<const Image*>& u) {
        Bindings b;
        const std::size_t m = p_.psi.size();
        b.image("x", in[0]);
        b.image("xn", out[0]);
        b.image("gxt", gxt_);
        b.image("uo", uo_);
        b.image("gxo", g_out ? (*g_out)[0] : gxt_);
        for (std::size_t i = 0; i < m; ++i) {
            const std::string n = std::to_string(i);
            b.image("z" + n, in[1 + i]);
            b.image("u" + n, *u[i]);
            b.image("gq" + n, gq_[i]);
            b.image("gzo" + n, g_out ? (*g_out)[1 + i] : gq_[i]);
            b.image("guo" + n, g_out ? (*g_out)[1 + m + i] : gq_[i]);
        }
        b.value("rho", rho_f_);
        b.value("lambda", lambda_f_);
        b.value("mu", mu_f_);
        b.value("drho_dstep", drho_dstep_f_);
        if (!omega_constant_.empty()) b.image("omega_constant", omega_constant_);
        else if (linearized_ && detail::spectral(p_)) b.image("omega_constant", gxt_);
        return b;
    }
    void bind(jit::Call& c, const jit::Kernel& k, const Bindings& b) { bind_inputs(c, k, b, data_); }

    const ir::Problem& p_;
    const Request& req_;
    lower::DataArgs& data_;
    const bool linearized_;
    std::shared_ptr<const SplitGradKernels> K_;
    detail::SpectralGram gram_;
    StageRun split_run_, u_run_, final_run_;
    Image gxt_, uo_, rhs_, omega_constant_;
    std::vector<Image> gq_, u_eff_;
    float rho_f_ = 0, lambda_f_ = 0, mu_f_ = 0, drho_dstep_f_ = 0;
};

}  // namespace

std::unique_ptr<Stepper> make_ladmm(const ir::Problem& p, const Request& req, lower::DataArgs& data) {
    return std::make_unique<SplitStepper>(p, req, data);
}
std::unique_ptr<Stepper> make_admm(const ir::Problem& p, const Request& req, lower::DataArgs& data) {
    return std::make_unique<SplitStepper>(p, req, data);
}

}  // namespace proxgen::gradients
