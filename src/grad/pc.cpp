// Pock–Chambolle's iteration and its reverse (steppers.hpp). Forward, as pg::solve's separate steps
// (the same kernels, pc_pipelines.hpp):
//   x̄ = x + θ(x − x_prev),  w_i = y_i + σ K_i x̄,  y⁺_i = w_i − σ P_i(w_i/σ; σ)     (Moreau)
//   v = x − τ Σ K_iᵀ y⁺_i,  x⁺ = Q_τ(v) (the Ω prox: closed form per pixel, or an FFT/DCT solve)
// Reverse, for adjoints (gx⁺, gx_prev⁺ = g of the new x_prev, gy⁺_i):
//   u = (∂Q/∂v)ᵀ gx⁺                        closed form per pixel ("pc.g.u") or (I + τH)⁻¹gx⁺ (spectral)
//   G_i = gy⁺_i − τ K_i u,  gw_i = G_i + (1/σ) J_Pᵀ(−σ G_i)                              ("pc.g.dual")
//   gx̄ = σ Σ K_iᵀ gw_i,  gx = u + (1+θ) gx̄ + gx_prev⁺,  gx_prev = −θ gx̄,  gy_i = gw_i ("pc.g.final")
// with the steps', weights' and data's gradients as per-element quantities, and the operators' data
// as reductions in "pc.g.final".
#include <cmath>

#include "steppers.hpp"

#include "../solve/engine.hpp"
#include "../solve/pc_pipelines.hpp"
#include "../solve/spectral_gram.hpp"
#include "proxgen/catalogue/card.hpp"
#include "proxgen/error.hpp"

namespace proxgen::gradients {

using namespace Halide;
using lower::Part;

namespace {

enum { kSigma = 0, kTau = 1, kTheta = 2 };

/// The reverse step's pipelines (every one takes arguments()).
struct PCGradPipelines {
    const ir::Problem& p;
    const Request& req;
    lower::Params params;
    ImageParam x, x_prev, xn, gxo, gxpo, u;
    std::vector<ImageParam> y, yn, gyo, gw;
    Param<float> sigma{"sigma"}, tau{"tau"}, theta{"theta"};

    PCGradPipelines(const ir::Problem& p_, const Request& r)
        : p(p_), req(r), params(p_) {
        const int rv = int(p.variable_shape.size());
        x = ImageParam(Float(32), rv, "x");
        x_prev = ImageParam(Float(32), rv, "x_prev");
        xn = ImageParam(Float(32), rv, "xn");
        gxo = ImageParam(Float(32), rv, "gxo");
        gxpo = ImageParam(Float(32), rv, "gxpo");
        u = ImageParam(Float(32), rv, "u");
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            const int r = p.psi[i].expr.rank();
            const std::string n = std::to_string(i);
            y.emplace_back(Float(32), r, "y" + n);
            yn.emplace_back(Float(32), r, "yn" + n);
            gyo.emplace_back(Float(32), r, "gyo" + n);
            gw.emplace_back(Float(32), r, "gw" + n);
        }
    }
    std::vector<Argument> arguments() const {
        auto a = params.arguments();
        for (const auto* i : {&x, &x_prev, &xn, &gxo, &gxpo, &u}) a.emplace_back(*i);
        for (const auto* list : {&y, &yn, &gyo, &gw})
            for (const auto& i : *list) a.emplace_back(i);
        for (const auto* s : {&sigma, &tau, &theta}) a.emplace_back(*s);
        return a;
    }
    Lowered xbar() const {
        const Lowered a = in(x), b = in(x_prev);
        const auto av = lower::args(a.rank());
        Lowered e{Func("x_bar"), a.extents};
        e.f(av) = a.f(av) + theta * (a.f(av) - b.f(av));
        return e;
    }
    /// v = x − τ Σ K_iᵀ y⁺_i
    Lowered v(lower::Lowerer& L, Stages& st) const {
        const Lowered xl = in(x);
        const auto av = lower::args(xl.rank());
        Expr kty = 0.0f;
        for (std::size_t i = 0; i < p.psi.size(); ++i)
            if (auto g = L.adjoint(p.psi[i].expr, in(yn[i]), st)) kty += (*g)(av);
        Lowered out{Func("primal_arg"), xl.extents};
        out.f(av) = xl.f(av) - tau * kty;
        return out;
    }

    /// Closed-form Ω only: u and the binding constraints' gradients.
    StageBuilder omega_u() {
        StageBuilder b;
        Output o;
        o.rank = int(p.variable_shape.size());
        o.shape = p.variable_shape;
        o.f = Func("pc_grad_u");
        const Lowered xl = in(x);
        lower::Lowerer L(p, params, xl.extents);
        const Lowered vv = v(L, o.st);
        o.st.add(vv.f);
        Expr ue = omega_closed_form_u(L, vv, in(gxo), tau, o.st, &o, req);
        o.elements.insert(o.elements.begin(), ue);
        o.image_names.insert(o.image_names.begin(), "u");
        o.targets.insert(o.targets.begin(), Target{});
        b.outputs.push_back(std::move(o));
        return b;
    }

    StageBuilder dual() {
        StageBuilder b;
        const Lowered xl = in(x);
        lower::Lowerer L(p, params, xl.extents);
        for (std::size_t i = 0; i < p.psi.size(); ++i) {
            const auto& t = p.psi[i];
            Output o;
            o.rank = t.expr.rank();
            o.shape = t.expr.shape;
            o.f = Func("pc_grad_dual" + std::to_string(i));
            const auto a = lower::args(o.rank);
            const Lowered yi = in(y[i]), ui = in(u);
            Lowered kxbar = L.forward(t.expr, xbar(), Part::linear, o.st);
            Lowered ku = L.forward(t.expr, ui, Part::linear, o.st);
            const lower::ProxSpec f = L.prox_spec(t, xl, o.st);
            Lowered w{Func("dual_arg"), yi.extents};
            w.f(a) = yi.f(a) + sigma * kxbar.f(a);
            Lowered vs{Func("dual_scaled"), yi.extents};
            vs.f(a) = w.f(a) * (1.0f / sigma);
            o.st.add(vs.f);
            Lowered G{Func("dual_upstream"), yi.extents};
            G.f(a) = in(gyo[i]).f(a) - tau * ku.f(a);
            o.st.add(G.f);
            Lowered gz{Func("prox_upstream_scaled"), yi.extents};
            gz.f(a) = -sigma * G.f(a);
            const ProxVJP d = prox_vjp(f, vs, sigma, gz, o.st);
            Expr gwe = G.f(a) + d.gv(a) * (1.0f / sigma);
            o.image("gw" + std::to_string(i), gwe);
            // σ: y⁺ = w − σ z(w/σ; σ): −G z + ∂ρ − gv_p·v/σ, and ⟨gw, K x̄⟩ through w
            o.quantity({Target::step, kSigma},
                       -G.f(a) * d.z + d.drho - d.gv(a) * vs.f(a) * (1.0f / sigma) + gwe * kxbar.f(a));
            // τ through v = x − τ Σ Kᵀy⁺: −⟨K u, y⁺⟩
            o.quantity({Target::step, kTau}, -ku.f(a) * in(yn[i]).f(a));
            auto inner = inner_constant(L, t, xl, o.st);
            add_term_params(o, L, req, t, d.dalpha, d.da, d.dc, d.ddata, d.dweight_share,
                            inner ? std::optional<Expr>(inner->f(a)) : std::nullopt);
            b.outputs.push_back(std::move(o));
        }
        return b;
    }

    StageBuilder final_stage() {
        StageBuilder b;
        const int rv = int(p.variable_shape.size());
        const auto av = lower::args(rv);
        {
            Output o;
            o.rank = rv;
            o.shape = p.variable_shape;
            o.f = Func("pc_grad_x");
            const Lowered xl = in(x), xp = in(x_prev);
            lower::Lowerer L(p, params, xl.extents);
            Expr kt = 0.0f;
            for (std::size_t i = 0; i < p.psi.size(); ++i)
                if (auto g = L.adjoint(p.psi[i].expr, in(gw[i]), o.st)) kt += (*g)(av);
            Expr gxbar = sigma * kt;
            o.image("gx_in", in(u).f(av) + (1.0f + theta) * gxbar + in(gxpo).f(av));
            o.image("gxp_in", -theta * gxbar);
            o.quantity({Target::step, kTheta}, gxbar * (xl.f(av) - xp.f(av)));
            if (!p.omega.empty()) {
                // τ in the Ω prox: ⟨u, x⁺ − v⟩/τ
                const Lowered vv = v(L, o.st);
                o.quantity({Target::step, kTau}, in(u).f(av) * (in(xn).f(av) - vv.f(av)) / tau);
            }
            b.outputs.push_back(std::move(o));
        }
        {
            const Lowered xl = in(x);
            lower::Lowerer L(p, params, xl.extents);
            add_omega_params(b, L, req, [this] { return in(u); }, [this] { return in(xn); }, tau);
            add_omega_data(b, L, req, [this] { return in(u); }, [this] { return in(xn); }, tau);
            for (std::size_t i = 0; i < p.psi.size(); ++i) {
                if (!req.in_tree(p.psi[i].expr)) continue;
                // σ ⟨gw, K'(x̄)⟩ − τ ⟨y⁺, K'(u)⟩
                add_data_vjp(b, L, req, p.psi[i].expr,
                             {{Expr(sigma), [this](Stages&) { return xbar(); }, [this, i](Stages&) { return in(gw[i]); }},
                              {-Expr(tau), [this](Stages&) { return in(u); }, [this, i](Stages&) { return in(yn[i]); }}});
            }
        }
        return b;
    }
};

struct PCGradKernels {
    jit::KernelPtr dual, primal, constant;
    Stage u, gdual, gfinal;
};


class PCStepper final : public Stepper {
public:
    PCStepper(const ir::Problem& p, const Request& req, lower::DataArgs& data)
        : p_(p), req_(req), data_(data), gram_(p) {
        auto K = jit::cached_as<PCGradKernels>("grad.pc:" + req.key() + ":" + ir::signature(p), [&] {
            auto k = std::make_shared<PCGradKernels>();
            detail::LazyPipelines<detail::PCPipelines> pipes(p);
            if (detail::spectral(p))
                k->constant = detail::kernel_for(p, "pc.omega_constant", pipes.source(&detail::PCPipelines::constant));
            if (!p.psi.empty()) k->dual = detail::kernel_for(p, "pc.dual", pipes.source(&detail::PCPipelines::dual));
            k->primal = detail::kernel_for(p, "pc.primal", pipes.source(&detail::PCPipelines::primal));
            if (!detail::spectral(p)) k->u = compile_stage(p, "grad.pc.u", req, &PCGradPipelines::omega_u);
            if (!p.psi.empty()) k->gdual = compile_stage(p, "grad.pc.dual", req, &PCGradPipelines::dual);
            k->gfinal = compile_stage(p, "grad.pc.final", req, &PCGradPipelines::final_stage);
            return k;
        }, compile_seconds);
        K_ = K;
        if (K->u.defined()) u_run_ = StageRun(K->u);
        if (K->gdual.defined()) dual_run_ = StageRun(K->gdual);
        final_run_ = StageRun(K->gfinal);
        u_ = Image(p.variable_shape);
        if (K->constant) {  // the spectral right-hand side's data-only part (its state inputs unused)
            std::vector<Image> zero;
            for (const auto& s : state_shapes()) zero.emplace_back(s);
            omega_constant_ = Image(p.variable_shape);
            Bindings b = common(&zero, &zero, nullptr);
            for (std::size_t i = 0; i < p.psi.size(); ++i) b.image("y_prev" + std::to_string(i), zero[2 + i]);
            run_kernel(K->constant, b, data_, {&omega_constant_});
        }
    }

    std::vector<std::vector<int>> state_shapes() const override {
        std::vector<std::vector<int>> s{p_.variable_shape, p_.variable_shape};
        for (const auto& t : p_.psi) s.push_back(t.expr.shape);
        return s;
    }
    int step_count() const override { return 3; }
    std::size_t bytes() const override {
        const std::size_t n = (u_.size() + omega_constant_.size()) * sizeof(float);
        return n + u_run_.bytes() + dual_run_.bytes() + final_run_.bytes();
    }

    void forward(const std::vector<Image>& in, std::vector<Image>& out, const double* steps, const double*) override {
        set_steps(steps);
        const std::size_t m = p_.psi.size();
        Bindings b = common(&in, &out, nullptr);
        b.image("x_prev2", in[1]);
        for (std::size_t i = 0; i < m; ++i) {
            b.image("y" + std::to_string(i), in[2 + i]);
            b.image("y_prev" + std::to_string(i), out[2 + i]);
        }
        if (m > 0) {
            std::vector<Image*> outs;
            for (std::size_t i = 0; i < m; ++i) outs.push_back(&out[2 + i]);
            run_kernel(K_->dual, b, data_, outs);
        }
        // the primal step reads the new duals
        for (std::size_t i = 0; i < m; ++i) b.image("y" + std::to_string(i), out[2 + i]);
        jit::Call primal(K_->primal);
        bind(primal, *K_->primal, b);
        gram_.omega_step(primal, out[0], tau_f_);
        copy_into(in[0], out[1]);
    }

    void reverse(const std::vector<Image>& in, const std::vector<Image>& out, std::vector<Image>& g_out,
                 std::vector<Image>& g_in, const double* steps, const double*, Accumulator& acc, double*) override {
        set_steps(steps);
        const std::size_t m = p_.psi.size();
        Bindings b = common(&in, &out, &g_out);
        for (std::size_t i = 0; i < m; ++i) b.image("gw" + std::to_string(i), g_in[2 + i]);  // gy_i = gw_i
        b.image("u", u_);
        b.image("gx_in", g_in[0]);
        b.image("gxp_in", g_in[1]);
        if (u_run_.defined()) u_run_.run(b, data_, acc);
        else gram_.solve(g_out[0], u_, 1.0, tau_, 0.0);  // spectral: (I + τH)⁻¹ gx⁺, H symmetric
        if (dual_run_.defined()) dual_run_.run(b, data_, acc);
        final_run_.run(b, data_, acc);
    }

private:
    void set_steps(const double* s) {
        sigma_f_ = float(s[kSigma]);
        tau_f_ = float(s[kTau]);
        theta_f_ = float(s[kTheta]);
        tau_ = s[kTau];
    }
    Bindings common(const std::vector<Image>* in, const std::vector<Image>* out, std::vector<Image>* g_out) {
        Bindings b;
        const Image& any = in ? (*in)[0] : u_;
        b.image("x", in ? (*in)[0] : any);
        b.image("x_prev", in ? (*in)[1] : any);
        b.image("x_prev2", in ? (*in)[1] : any);
        b.image("xn", out ? (*out)[0] : any);
        for (std::size_t i = 0; i < p_.psi.size(); ++i) {
            const std::string n = std::to_string(i);
            if (in) b.image("y" + n, (*in)[2 + i]);
            if (out) b.image("yn" + n, (*out)[2 + i]);
            if (g_out) b.image("gyo" + n, (*g_out)[2 + i]);
        }
        if (g_out) {
            b.image("gxo", (*g_out)[0]);
            b.image("gxpo", (*g_out)[1]);
        }
        b.value("sigma", sigma_f_);
        b.value("tau", tau_f_);
        b.value("theta", theta_f_);
        for (const char* r : {"res_sigma", "res_tau", "res_theta"}) b.value(r, zero_);
        // the iteration differentiated is the unpreconditioned one (Options::precondition is not
        // read by gradients): every Ψ term's dual step is σ
        for (std::size_t i = 0; i < p_.psi.size(); ++i) b.value("sigma_scale" + std::to_string(i), one_);
        if (!omega_constant_.empty()) b.image("omega_constant", omega_constant_);
        return b;
    }
    void bind(jit::Call& c, const jit::Kernel& k, const Bindings& b) { bind_inputs(c, k, b, data_); }

    const ir::Problem& p_;
    const Request& req_;
    lower::DataArgs& data_;
    std::shared_ptr<const PCGradKernels> K_;
    detail::SpectralGram gram_;
    StageRun u_run_, dual_run_, final_run_;
    Image u_, omega_constant_;
    float sigma_f_ = 0, tau_f_ = 0, theta_f_ = 0, zero_ = 0, one_ = 1;
    double tau_ = 0;
};

}  // namespace

std::unique_ptr<Stepper> make_pock_chambolle(const ir::Problem& p, const Request& req, lower::DataArgs& data) {
    return std::make_unique<PCStepper>(p, req, data);
}

}  // namespace proxgen::gradients
