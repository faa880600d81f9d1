// The pieces of the reverse steps (backward.hpp): the generalised prox's derivative around each
// card's prox_vjp, the Ω x-update's derivative, the walk to operators' data, and the stages that
// run them.
#include "backward.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/error.hpp"

namespace proxgen::gradients {

using namespace Halide;
using lower::Part;

// ---- requests ------------------------------------------------------------------------------------

bool Request::any() const {
    return std::find(image.begin(), image.end(), true) != image.end() ||
           std::find(scalar.begin(), scalar.end(), true) != scalar.end();
}

std::string Request::key() const {
    std::string k = "i";
    for (bool b : image) k += b ? '1' : '0';
    k += 's';
    for (bool b : scalar) k += b ? '1' : '0';
    return k;
}

bool Request::in_tree(const ir::Node& n) const {
    bool found = false;
    ir::for_each_node(n, [&](const ir::Node& m) {
        if ((m.image_slot >= 0 && image[m.image_slot]) || (m.scalar_slot >= 0 && scalar[m.scalar_slot])) found = true;
    });
    return found;
}

bool wants_operator_data(const ir::Problem& p, const Request& req) {
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms)
            if (req.in_tree(t.expr)) return true;
    return false;
}

Lowered in(const ImageParam& p) { return lower::input(p); }

void check_differentiable(const ir::Problem& p) {
    for (const auto& t : p.psi)
        if (!lower::lowering(*t.penalty).has_prox_vjp())
            fail("gradients: the prox of {} has no derivative (the card of {} gives none); gradients need every "
                 "split term's prox derivative",
                 t.text, ir::name(t));
}

// ---- stages --------------------------------------------------------------------------------------

Pipeline StageBuilder::pipeline() {
    std::vector<Func> outs;
    for (auto& o : outputs) {
        o.f(lower::args(o.rank)) = Tuple(o.elements);
        lower::schedule_output(o.f, o.rank, o.st);
        outs.push_back(o.f);
    }
    for (auto& r : reductions) outs.push_back(r.partials);
    return Pipeline(outs);
}

Stage StageBuilder::describe(jit::KernelPtr k) const {
    Stage s;
    s.kernel = std::move(k);
    for (const auto& o : outputs) {
        s.image_names.push_back(o.image_names);
        s.targets.push_back(o.targets);
        s.shapes.push_back(o.shape);
    }
    s.reductions = reductions;
    for (auto& r : s.reductions) r.partials = Func();
    return s;
}

namespace {
constexpr int kLanes = 16;
int strips(const std::vector<int>& shape) {
    const int h = shape.size() >= 2 ? shape[1] : 1;
    return (h + lower::kStripRows - 1) / lower::kStripRows;
}
std::vector<int> partial_shape(const Reduction& r) {
    std::vector<int> s = r.data_shape;
    s.push_back(kLanes);
    s.push_back(strips(r.out_shape));
    return s;
}
}  // namespace

StageRun::StageRun(const Stage& s) : stage_(&s) {
    quantities_.resize(s.image_names.size());
    for (std::size_t o = 0; o < s.image_names.size(); ++o)
        for (const auto& name : s.image_names[o])
            quantities_[o].push_back(name.empty() ? Image(s.shapes[o]) : Image());
    for (const auto& r : s.reductions) partials_.emplace_back(partial_shape(r));
}

std::size_t StageRun::bytes() const {
    std::size_t n = 0;
    for (const auto& q : quantities_)
        for (const auto& i : q) n += i.size() * sizeof(float);
    for (const auto& p : partials_) n += p.size() * sizeof(float);
    return n;
}

void bind_inputs(jit::Call& c, const jit::Kernel& k, const Bindings& b, const lower::DataArgs& data) {
    data.bind(c);
    for (const auto& a : k.args()) {
        if (a.output) continue;
        if (a.name.rfind("data", 0) == 0 || a.name.rfind("scalar", 0) == 0) continue;
        if (a.kind == jit::ArgInfo::Kind::float32) {
            auto it = b.floats.find(a.name);
            if (it == b.floats.end()) fail("internal error: gradient kernel input '{}' unbound", a.name);
            c.in(a.name, *it->second);
        } else {
            auto it = b.images.find(a.name);
            if (it == b.images.end()) fail("internal error: gradient kernel input '{}' unbound", a.name);
            c.in(a.name, *it->second);
        }
    }
}

void run_kernel(const jit::KernelPtr& k, const Bindings& b, const lower::DataArgs& data, const std::vector<Image*>& outputs) {
    jit::Call c(k);
    bind_inputs(c, *k, b, data);
    for (std::size_t i = 0; i < outputs.size(); ++i) c.out(int(i), *outputs[i]);
    c.run();
}

namespace {
double sum_of(const Image& img) {
    const float* d = img.data();
    const std::size_t n = img.size();
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (std::size_t i = 0; i < n; ++i) s += double(d[i]);
    return s;
}
}  // namespace

void StageRun::run(const Bindings& b, const lower::DataArgs& data, Accumulator& acc) {
    const Stage& s = *stage_;
    const double scale = 1.0;
    jit::Call call(s.kernel);
    bind_inputs(call, *s.kernel, b, data);
    int index = 0;
    for (std::size_t o = 0; o < s.image_names.size(); ++o)
        for (std::size_t e = 0; e < s.image_names[o].size(); ++e) {
            const std::string& name = s.image_names[o][e];
            if (name.empty()) {
                call.out(index++, quantities_[o][e]);
                continue;
            }
            auto it = b.images.find(name);
            if (it == b.images.end()) fail("internal error: gradient kernel output '{}' unbound", name);
            call.out(index++, *it->second);
        }
    for (auto& p : partials_) call.out(index++, p);
    call.run();
    for (std::size_t o = 0; o < s.targets.size(); ++o)
        for (std::size_t e = 0; e < s.targets[o].size(); ++e) {
            if (!s.image_names[o][e].empty()) continue;
            const Target t = s.targets[o][e];
            const Image& q = quantities_[o][e];
            switch (t.kind) {
            case Target::step:
                if (acc.steps) (*acc.steps)[t.index] += scale * sum_of(q);
                break;
            case Target::scalar_slot: acc.scalar[t.index] += scale * sum_of(q); break;
            case Target::image_slot: {
                auto& a = acc.image[t.index];
                PROXGEN_INTERNAL_ASSERT(a.size() == q.size());
                const float* d = q.data();
                for (std::size_t i = 0; i < a.size(); ++i) a[i] += scale * d[i];
                break;
            }
            case Target::group_slot: {  // summed over the last (group) axis
                auto& a = acc.image[t.index];
                const std::size_t stride = a.size();
                PROXGEN_INTERNAL_ASSERT(stride > 0 && q.size() % stride == 0);
                const float* d = q.data();
                for (std::size_t i = 0; i < q.size(); ++i) a[i % stride] += scale * d[i];
                break;
            }
            }
        }
    for (std::size_t k = 0; k < s.reductions.size(); ++k) {
        const Reduction& r = s.reductions[k];
        const Image& p = partials_[k];
        std::size_t n = 1;
        for (int d : r.data_shape) n *= std::size_t(d);
        const std::size_t per = p.size() / n;  // lanes × strips, the slowest axes
        std::vector<double> total(n, 0.0);
        for (std::size_t j = 0; j < per; ++j)
            for (std::size_t i = 0; i < n; ++i) total[i] += p.data()[j * n + i];
        if (r.scalar) acc.scalar[r.slot] += scale * total[0];
        else {
            auto& a = acc.image[r.slot];
            PROXGEN_INTERNAL_ASSERT(a.size() == n);
            for (std::size_t i = 0; i < n; ++i) a[i] += scale * total[i];
        }
    }
}

// ---- the generalised prox --------------------------------------------------------------------------

ProxVJP prox_vjp(const lower::ProxSpec& f, const Lowered& v, Expr rho, const Lowered& g, Stages& st) {
    const int r = v.rank();
    const auto at = lower::args(r);
    Expr a = f.a ? (*f.a)(at) : Expr(1.0f);
    Expr c = f.c ? (*f.c)(at) : Expr(0.0f);
    Func t("prox_argument");
    t(at) = a * v.f(at) + c;
    Expr tau = f.alpha * a * a / rho;
    lower::Back b{nullptr, st};
    const lower::PenaltyLowering& card = lower::lowering(*f.term->penalty);
    Expr p = card.prox(b, f, t, v.extents, tau);
    Expr nonzero = a != 0.0f;
    Expr inv_a = 1.0f / select(nonzero, a, 1.0f);
    Func gp("prox_upstream");
    gp(at) = select(nonzero, g.f(at) * inv_a, 0.0f);
    const catalogue::ProxVJP<Expr> d = card.prox_vjp(b, f, t, v.extents, tau, gp);
    Expr z = (p - c) * inv_a;
    ProxVJP out;
    out.z = select(nonzero, z, v.f(at));
    out.gv = Func("prox_vjp_v");
    out.gv(at) = select(nonzero, a * d.du, g.f(at));
    out.dc = select(nonzero, d.du - gp(at), 0.0f);
    out.da = select(nonzero, d.du * v.f(at) + d.dtau * 2.0f * f.alpha * a / rho - gp(at) * z, 0.0f);
    out.dalpha = select(nonzero, d.dtau * a * a / rho, 0.0f);
    out.drho = select(nonzero, -d.dtau * tau / rho, 0.0f);
    if (d.ddata) out.ddata = select(nonzero, *d.ddata, 0.0f);
    if (d.dweight) {
        // per group at the group's axes: each element's share
        const int last = r - 1;
        out.dweight_share = select(nonzero, *d.dweight, 0.0f) / cast<float>(v.extents[last]);
    }
    return out;
}

std::optional<Lowered> inner_constant(lower::Lowerer& L, const ir::Term& t, const Lowered& x, Stages& st) {
    Lowered inner = L.forward(t.expr, x, Part::offset, st);
    if (inner.is_zero) return std::nullopt;
    return inner;
}

void add_term_params(Output& out, lower::Lowerer& L, const Request& req, const ir::Term& t, Expr dalpha, Expr da,
                     Expr dc, const std::optional<Expr>& ddata, const std::optional<Expr>& dweight_share,
                     const std::optional<Expr>& inner) {
    const int r = out.rank;
    const auto at = lower::args(r);
    const bool grouped = t.penalty->weights_groups();
    const bool weighted = t.arg_weight_slot >= 0 && !grouped;
    if (inner) da = da + dc * *inner;  // c = a·inner + offset
    const auto& P = L.params();
    if (t.weight_slot >= 0 && req.scalar[t.weight_slot]) out.quantity({Target::scalar_slot, t.weight_slot}, dalpha);
    // a = β w (w: the argument weight of separable penalties, else 1)
    if (t.beta_slot >= 0 && req.scalar[t.beta_slot])
        out.quantity({Target::scalar_slot, t.beta_slot}, weighted ? da * P.images[t.arg_weight_slot](at) : da);
    if (t.arg_weight_slot >= 0 && req.image[t.arg_weight_slot]) {
        if (weighted) {
            out.quantity({Target::image_slot, t.arg_weight_slot}, da * P.scalars[t.beta_slot]);
        } else {
            if (!dweight_share)
                fail("gradients: the group weights of {} have no derivative in its card", t.text);
            out.quantity({Target::group_slot, t.arg_weight_slot}, *dweight_share);
        }
    }
    if (t.offset_slot >= 0 && req.image[t.offset_slot]) out.quantity({Target::image_slot, t.offset_slot}, dc);
    if (t.data_slot >= 0 && req.image[t.data_slot]) {
        if (!ddata)
            fail("gradients: the {} of {} is not differentiable (its card gives no derivative with respect to it)",
                 t.penalty->data_role() ? t.penalty->data_role() : "data", t.text);
        out.quantity({Target::image_slot, t.data_slot}, *ddata);
    }
}

// ---- operators' data ------------------------------------------------------------------------------

namespace {

bool wanted(const ir::Node& n, const Request& req) {
    return (n.image_slot >= 0 && req.image[n.image_slot]) || (n.scalar_slot >= 0 && req.scalar[n.scalar_slot]);
}

void collect_paths(const ir::Node& n, const Request& req, std::vector<int>& path, std::vector<std::vector<int>>& out) {
    if (wanted(n, req)) out.push_back(path);
    for (std::size_t i = 0; i < n.args.size(); ++i) {
        path.push_back(int(i));
        collect_paths(n.args[i], req, path, out);
        path.pop_back();
    }
}

/// The partial sums over (lane, strip) of contribution c (data axes first, then out's axes).
Func reduce_strips(const Func& c, int data_rank, const std::vector<Expr>& out_extents, const Stages& st) {
    const int r = int(out_extents.size());
    std::vector<Var> dv;
    for (int d = 0; d < data_rank; ++d) dv.push_back(c.args()[d]);
    Var lane("lane"), yo("strip");
    Expr W = out_extents[0], H = r >= 2 ? out_extents[1] : Expr(1);
    std::vector<Var> lhs = dv;
    lhs.push_back(lane);
    lhs.push_back(yo);
    Func part("grad_partial_sums");
    part(lhs) = cast<double>(0);
    // Two updates: the whole blocks of kLanes columns, whose x = block·kLanes + lane stays affine
    // in the lane (contiguous vector loads), and the last partial block, clamped and masked (a
    // clamp in every block made each read a gather).
    const Expr whole = W / kLanes;
    std::vector<RDom> domains;
    for (int part_index = 0; part_index < 2; ++part_index) {
        Region dom{part_index == 0 ? Range(0, whole) : Range(0, 1)};
        if (r >= 2) dom.push_back({0, lower::kStripRows});
        for (int d = 2; d < r; ++d) dom.push_back({0, out_extents[d]});
        RDom rd(dom, part_index == 0 ? "reduce" : "reduce_tail");
        Expr x = (part_index == 0 ? rd[0] : whole) * kLanes + lane;
        Expr y = r >= 2 ? yo * lower::kStripRows + rd[1] : Expr(0);
        Expr inside = r >= 2 ? y < H : yo == 0;
        if (part_index == 1) inside = inside && x < W;
        std::vector<Expr> call;
        for (const Var& v : dv) call.push_back(v);
        call.push_back(part_index == 0 ? x : min(x, W - 1));
        if (r >= 2) call.push_back(min(y, H - 1));
        for (int d = 2; d < r; ++d) call.push_back(rd[d]);
        part(lhs) += select(inside, cast<double>(c(call)), cast<double>(0));
        domains.push_back(rd);
    }
    Func out("grad_reduction");
    out(lhs) = cast<float>(part(lhs));
    if (lower::schedule_kind() == lower::ScheduleKind::cpu) {
        const int vec = std::min(kLanes, lower::schedule_target().natural_vector_size<float>());
        out.bound(lane, 0, kLanes).vectorize(lane, vec).parallel(yo);
        part.compute_at(out, yo).vectorize(lane, vec);
        for (int u = 0; u < 2; ++u) {
            std::vector<VarOrRVar> order{lane};
            for (int d = 0; d < domains[u].dimensions(); ++d) order.emplace_back(domains[u][d]);
            for (const Var& v : dv) order.emplace_back(v);
            part.update(u).reorder(order).vectorize(lane, vec);
        }
        lower::schedule_stages(out, yo, st);
    }
    return out;
}

}  // namespace

void add_data_vjp(StageBuilder& b, lower::Lowerer& L, const Request& req, const ir::Node& root,
                  const std::vector<DataTerm>& terms) {
    std::vector<std::vector<int>> paths;
    std::vector<int> path;
    collect_paths(root, req, path, paths);
    for (const auto& pth : paths) {
        const ir::Node* m = &root;
        for (int i : pth) m = &m->args[i];
        if (m->args.size() != 1)
            fail("gradients: the data of {} sit in a constant part of the operator {} that the plan keeps (not "
                 "supported; write the offset outside the operator)",
                 ir::name(*m), ir::to_string(root));
        Stages st;
        lower::Back back{&L, st};
        std::vector<catalogue::DataVJP<Func>> parts;
        std::vector<Expr> coefficients;
        for (const auto& term : terms) {
            std::optional<Lowered> g = term.upstream(st);
            const ir::Node* cur = &root;
            for (int i : pth) {
                auto down = lower::lowering(*cur->op).adjoint(back, *cur, *g);
                if (std::size_t(i) >= down.size() || !down[i]) {
                    g.reset();
                    break;
                }
                g = down[i];
                cur = &cur->args[i];
            }
            if (!g) continue;
            // the upstream is read once per tap of a kernel: computed once per strip, not per tap
            if (!g->staged) {
                st.add(g->f);
                g->staged = true;
            }
            Lowered operand = L.forward(m->args[0], term.operand(st), Part::linear, st);
            auto d = lower::lowering(*m->op).data_vjp(back, *m, operand, *g);
            if (!d)
                fail("gradients with respect to the {} of {} are not available (its card gives no derivative)",
                     m->op->image_role() ? m->op->image_role() : "factor", ir::name(*m));
            parts.push_back(*d);
            coefficients.push_back(term.coefficient);
        }
        if (parts.empty()) continue;
        const bool reduce = parts[0].reduce;
        const std::vector<Expr> out_extents = L.extents(*m);
        if (!reduce) {
            Output o;
            o.rank = m->rank();
            o.shape = m->shape;
            o.f = Func("grad_data_elementwise");
            o.st = st;
            const auto at = lower::args(o.rank);
            Expr e = 0.0f;
            for (std::size_t k = 0; k < parts.size(); ++k) e += coefficients[k] * parts[k].contribution(at);
            o.quantity({Target::image_slot, m->image_slot}, e);
            b.outputs.push_back(std::move(o));
            continue;
        }
        Func c("grad_data_contribution");
        const std::vector<Var> args = parts[0].contribution.args();
        std::vector<Expr> call(args.begin(), args.end());
        Expr e = 0.0f;
        for (std::size_t k = 0; k < parts.size(); ++k) e += coefficients[k] * parts[k].contribution(call);
        c(args) = e;
        Reduction red;
        red.scalar = parts[0].data_rank == 0;
        red.slot = red.scalar ? m->scalar_slot : m->image_slot;
        if (!red.scalar) red.data_shape = m->image.sizes();
        red.out_shape = m->shape;
        red.partials = reduce_strips(c, parts[0].data_rank, out_extents, st);
        b.reductions.push_back(std::move(red));
    }
}

// ---- the Ω x-update -------------------------------------------------------------------------------

Expr omega_closed_form_u(lower::Lowerer& L, const Lowered& v, const Lowered& gx, Expr tau, Stages& st, Output* out,
                         const Request& req) {
    const int r = v.rank();
    const auto at = lower::args(r);
    const Lowered ones = lower::constant_like(1.0f, L.variable_extents());
    Expr num = v.f(at), den = 1.0f;
    Expr lo = Float(32).min(), hi = Float(32).max();
    Expr lo_idx = -1, hi_idx = -1;
    struct Constraint {
        const ir::Term* t;
        Expr e, g, d;
        lower::ProxSpec f;
    };
    std::vector<Constraint> constraints;
    int j = 0;
    for (const auto& t : L.problem().omega) {
        lower::ProxSpec f = L.prox_spec(t, ones, st);
        Lowered d = L.forward(t.expr, ones, Part::linear, st);
        Expr e = (*f.a)(at) * d.f(at);
        Expr g = f.c ? (*f.c)(at) : Expr(0.0f);
        if (catalogue::card_of(t).facts().interval) {
            Expr bound = -g / select(e == 0.0f, 1.0f, e);
            lo_idx = select(e > 0.0f && bound > lo, j, lo_idx);
            hi_idx = select(e < 0.0f && bound < hi, j, hi_idx);
            lo = select(e > 0.0f, max(lo, bound), lo);
            hi = select(e < 0.0f, min(hi, bound), hi);
            constraints.push_back({&t, e, g, d.f(at), f});
            ++j;
            continue;
        }
        Expr two_alpha_tau = 2.0f * f.alpha * tau;
        if (f.c) num -= two_alpha_tau * e * g;
        den += two_alpha_tau * e * e;
    }
    Expr q = num / den;
    Expr inside = q > lo && q < hi;
    if (out) {
        for (int k = 0; k < int(constraints.size()); ++k) {
            const Constraint& c = constraints[k];
            const ir::Term& t = *c.t;
            if (req.in_tree(t.expr))
                fail("gradients with respect to data inside the constraint {} are not supported", t.text);
            // x = −g/e where the constraint binds
            Expr active = !inside && ((q <= lo && lo_idx == k) || (q >= hi && hi_idx == k));
            Expr e = select(c.e == 0.0f, 1.0f, c.e);
            Expr gc = select(active, -gx.f(at) / e, 0.0f);
            Expr ge = select(active, gx.f(at) * c.g / (e * e), 0.0f);
            auto inner = inner_constant(L, t, ones, st);
            add_term_params(*out, L, req, t, Expr(0.0f), ge * c.d, gc, std::nullopt, std::nullopt,
                            inner ? std::optional<Expr>(inner->f(at)) : std::nullopt);
        }
    }
    return select(inside, gx.f(at) / den, 0.0f);
}

void add_omega_params(StageBuilder& b, lower::Lowerer& L, const Request& req, const std::function<Lowered()>& u,
                      const std::function<Lowered()>& x_next, Expr kappa) {
    for (const auto& t : L.problem().omega) {
        if (!catalogue::card_of(t).facts().quadratic) continue;
        const bool any = (t.weight_slot >= 0 && req.scalar[t.weight_slot]) ||
                         (t.beta_slot >= 0 && req.scalar[t.beta_slot]) ||
                         (t.arg_weight_slot >= 0 && req.image[t.arg_weight_slot]) ||
                         (t.offset_slot >= 0 && req.image[t.offset_slot]);
        if (!any) continue;
        Output o;
        o.rank = t.expr.rank();
        o.shape = t.expr.shape;
        o.f = Func("grad_omega_term");
        const auto at = lower::args(o.rank);
        const Lowered ul = u(), xl = x_next();
        lower::ProxSpec f = L.prox_spec(t, xl, o.st);
        Lowered Au = L.forward(t.expr, ul, Part::linear, o.st), Ax = L.forward(t.expr, xl, Part::linear, o.st);
        Expr a = (*f.a)(at), c = f.c ? (*f.c)(at) : Expr(0.0f);
        Expr rr = a * Ax.f(at) + c, s = a * Au.f(at);
        Expr dalpha = -2.0f * kappa * s * rr;
        Expr da = -2.0f * kappa * f.alpha * (Au.f(at) * rr + s * Ax.f(at));
        Expr dc = -2.0f * kappa * f.alpha * s;
        auto inner = inner_constant(L, t, xl, o.st);
        add_term_params(o, L, req, t, dalpha, da, dc, std::nullopt, std::nullopt,
                        inner ? std::optional<Expr>(inner->f(at)) : std::nullopt);
        if (!o.elements.empty()) b.outputs.push_back(std::move(o));
    }
}

void add_omega_data(StageBuilder& b, lower::Lowerer& L, const Request& req, const std::function<Lowered()>& u,
                    const std::function<Lowered()>& x_next, Expr kappa) {
    for (const auto& t : L.problem().omega) {
        if (!req.in_tree(t.expr)) continue;
        if (!catalogue::card_of(t).facts().quadratic)
            fail("gradients with respect to data inside the constraint {} are not supported", t.text);
        // −2κα [⟨a r, A'(u)⟩ + ⟨a s, A'(x⁺)⟩], r = a A x⁺ + c, s = a A u
        auto upstream = [&L, &t, u, x_next](bool of_r) {
            return [&L, &t, u, x_next, of_r](Stages& st) {
                const Lowered xl = x_next(), ul = u();
                lower::ProxSpec f = L.prox_spec(t, xl, st);
                const auto at = lower::args(t.expr.rank());
                Lowered w{Func(of_r ? "omega_a_r" : "omega_a_s"), L.extents(t.expr)};
                if (of_r) {
                    Lowered Ax = L.forward(t.expr, xl, Part::linear, st);
                    w.f(at) = (*f.a)(at) * ((*f.a)(at) * Ax.f(at) + (f.c ? (*f.c)(at) : Expr(0.0f)));
                } else {
                    Lowered Au = L.forward(t.expr, ul, Part::linear, st);
                    w.f(at) = (*f.a)(at) * (*f.a)(at) * Au.f(at);
                }
                return w;
            };
        };
        Expr coef = -2.0f * kappa * L.params().scalars[t.weight_slot];
        auto operand = [](const std::function<Lowered()>& f) { return [f](Stages&) { return f(); }; };
        add_data_vjp(b, L, req, t.expr, {{coef, operand(u), upstream(true)}, {coef, operand(x_next), upstream(false)}});
    }
}

}  // namespace proxgen::gradients
