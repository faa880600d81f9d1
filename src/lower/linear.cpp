// The lowering's walk over an expression: each node's card lowers it (src/lower/card_lowering.hpp,
// the cards' forward and adjoint templates), this file recurses through the operands, builds the
// terms' prox parameters and binds the problem's data. Each adjoint is the exact transpose of its
// forward (tests/test_adjoint*.cpp check ⟨Kx, y⟩ = ⟨x, Kᵀy⟩).
#include "card_lowering.hpp"
#include "lowering.hpp"

#include "proxgen/error.hpp"

namespace proxgen::lower {

using namespace Halide;

const std::vector<Var>& axes() {
    static const std::vector<Var> v{Var("x"), Var("y"), Var("c"), Var("k")};
    return v;
}

std::vector<Var> vars(int rank) {
    PROXGEN_INTERNAL_ASSERT(rank >= 1 && rank <= 4);
    return {axes().begin(), axes().begin() + rank};
}

std::vector<Expr> args(int rank) {
    std::vector<Expr> a;
    for (const auto& v : vars(rank)) a.push_back(v);
    return a;
}

namespace {
/// Visits every (slot, image) pair of the problem: node data and the terms' absorbed images.
template <class F>
void for_each_image_slot(const ir::Problem& p, F&& f) {
    ir::for_each_node(p, [&](const ir::Node& n) {
        if (n.image_slot >= 0) f(n.image_slot, n.image);
    });
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) {
            if (t.arg_weight_slot >= 0) f(t.arg_weight_slot, t.arg_weight);
            if (t.offset_slot >= 0) f(t.offset_slot, t.offset);
            if (t.data_slot >= 0) f(t.data_slot, t.data);
        }
}
}  // namespace

Params::Params(const ir::Problem& p) : images(p.image_slots) {
    for_each_image_slot(p, [&](int slot, const Image& img) {
        images[slot] = ImageParam(Float(32), img.dimensions(), "data" + std::to_string(slot));
    });
    for (int i = 0; i < p.scalar_slots; ++i) scalars.emplace_back("scalar" + std::to_string(i));
}

std::vector<Argument> Params::arguments() const {
    std::vector<Argument> a;
    for (const auto& i : images) a.emplace_back(i);
    for (const auto& s : scalars) a.emplace_back(s);
    return a;
}

DataArgs::DataArgs(const ir::Problem& p) : images(p.image_slots), scalars(p.scalar_slots, 0.0f) {
    for_each_image_slot(p, [&](int slot, const Image& img) { images[slot] = img; });
    ir::for_each_node(p, [&](const ir::Node& n) {
        if (n.scalar_slot >= 0) scalars[n.scalar_slot] = n.scalar;
    });
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) {
            scalars[t.weight_slot] = t.weight;
            scalars[t.beta_slot] = t.beta;
        }
}

void DataArgs::bind(jit::Call& c) const {
    for (std::size_t i = 0; i < images.size(); ++i)
        c.maybe_in("data" + std::to_string(i), images[i].buffer().raw_buffer());
    for (std::size_t i = 0; i < scalars.size(); ++i) c.maybe_in("scalar" + std::to_string(i), scalars[i]);
}

StateParams::StateParams(const ir::Problem& p, const std::string& name) {
    const auto shapes = ir::variable_shapes(p);
    for (std::size_t j = 0; j < shapes.size(); ++j)
        vars.emplace_back(Float(32), int(shapes[j].size()), jit::state_name(name, int(j)));
}

State StateParams::lowered() const {
    State s;
    for (const auto& v : vars) s.push_back(input(v));
    return s;
}

void StateParams::append_to(std::vector<Argument>& a) const {
    for (const auto& v : vars) a.emplace_back(v);
}

Lowerer::Lowerer(const ir::Problem& p, Params& params, const State& like) : problem_(p), params_(params) {
    for (const auto& l : like) var_extents_.push_back(l.extents);
}

const std::vector<Expr>& Lowerer::variable_extents() const {
    PROXGEN_INTERNAL_ASSERT(var_extents_.size() == 1);
    return var_extents_.front();
}

ProxSpec Lowerer::prox_spec(const ir::Term& t, const State& x, Stages& st) {
    ProxSpec f;
    f.term = &t;
    f.group_size = static_last_extent(t.expr);
    f.alpha = weight(t);
    const int r = int(t.expr.shape.size());
    f.rank = r;
    const auto a_args = args(r);
    const bool grouped = t.penalty->weights_groups();
    // a = β · w (w only for separable penalties; grouped ones weigh whole groups)
    Func a("arg_scale");
    Expr beta = params_.scalars[t.beta_slot];
    a(a_args) = (t.arg_weight_slot >= 0 && !grouped) ? beta * params_.images[t.arg_weight_slot](a_args) : beta;
    f.a = a;
    if (grouped && t.arg_weight_slot >= 0) {
        Func g("group_weight");
        g(args(r - 1)) = params_.images[t.arg_weight_slot](args(r - 1));
        f.group_weight = g;
    }
    if (t.data_slot >= 0) {
        Func d("counts");
        d(a_args) = params_.images[t.data_slot](a_args);
        f.data = d;
    }
    Lowered inner = forward(t.expr, x, Part::offset, st);
    if (!inner.is_zero || t.offset_slot >= 0) {
        Func c("term_constant");
        Expr e = 0.0f;
        if (!inner.is_zero) e += a(a_args) * inner.f(a_args);
        if (t.offset_slot >= 0) e += params_.images[t.offset_slot](a_args);
        c(a_args) = e;
        f.c = c;
    }
    return f;
}

Func Lowerer::term_argument(const ir::Term& t, const State& x, Stages& st) {
    return term_argument(t, prox_spec(t, x, st), x, st);
}

Func Lowerer::term_argument(const ir::Term& t, const ProxSpec& f, const State& x, Stages& st) {
    Lowered k = forward(t.expr, x, Part::linear, st);
    const auto a = args(k.rank());
    Func v("term_argument");
    v(a) = (*f.a)(a) * k.f(a) + (f.c ? (*f.c)(a) : Expr(0.0f));
    return v;
}

Lowered input(const ImageParam& p) {
    Lowered l;
    l.f = Func(p.name() + "_in");
    l.f(args(p.dimensions())) = p(args(p.dimensions()));
    for (int d = 0; d < p.dimensions(); ++d) l.extents.push_back(p.dim(d).extent());
    l.is_input = true;
    return l;
}

Lowered constant_like(float value, const std::vector<Expr>& extents) {
    Lowered l;
    l.f = Func("const");
    l.f(args(int(extents.size()))) = value;
    l.extents = extents;
    l.is_zero = value == 0.0f;
    return l;
}

Lowered zeros(const std::vector<Expr>& extents) { return constant_like(0.0f, extents); }

/// The operand of a wrap-around read: a computed operand is computed whole first (see Stages).
Func wrapped_operand(const Lowered& in, Stages& st) {
    if (in.is_input) return in.f;
    Func whole("wrapped_operand");
    whole(args(in.rank())) = in.f(args(in.rank()));
    return st.add_root(whole);
}

Expr at(const Func& f, int rank, Expr x, Expr y) {
    auto a = args(rank);
    a[0] = std::move(x);
    a[1] = std::move(y);
    return f(a);
}

std::vector<Expr> Back::image_extents(const ir::Node& n) const {
    const ImageParam& p = image(n);
    std::vector<Expr> e;
    for (int d = 0; d < p.dimensions(); ++d) e.push_back(p.dim(d).extent());
    return e;
}

Expr Back::magnitude(const Func& f, const std::vector<Expr>& extents) const {
    // read through a root copy: the stages behind f are then computed whole, where a reduction
    // over all of f may read them (the output's strips alone would be an illegal place)
    const int rank = int(extents.size());
    Func whole("magnitude_of");
    whole(args(rank)) = f(args(rank));
    if (rank >= 2) root(whole);
    else whole.compute_root();
    Halide::Region region;
    for (const Expr& e : extents) region.push_back(Halide::Range(0, e));
    Halide::RDom r(region, "magnitude");
    std::vector<Expr> at;
    for (int d = 0; d < r.dimensions(); ++d) at.push_back(r[d]);
    Func m("magnitude");
    m() = f64(1.0);
    m() = Halide::max(m(), Halide::abs(to_double(whole(at))));
    m.compute_root();  // one scalar: not a strip-scheduled root
    return m();
}

Expr Back::read_or_zero(const Func& f, std::vector<Expr> index, const std::vector<Expr>& extents) {
    Expr inside = Internal::const_true();
    for (std::size_t d = 0; d < index.size(); ++d) {
        inside = inside && index[d] >= 0 && index[d] < extents[d];
        index[d] = clamp(index[d], 0, extents[d] - 1);
    }
    return select(inside, f(index), 0.0f);
}

int static_last_extent(const ir::Node& n) {
    std::vector<int> operands;
    for (const auto& a : n.args) operands.push_back(static_last_extent(a));
    return catalogue::card_of(n).static_last_extent(n, operands);
}

std::vector<Expr> Lowerer::extents(const ir::Node& n) {
    std::vector<std::vector<Expr>> operands;
    for (const auto& a : n.args) operands.push_back(extents(a));
    Stages unused;
    Back b{this, unused};
    return lowering(*n.op).extents(b, n, operands);
}

Lowered Lowerer::forward(const ir::Node& n, const State& xs, Part part, Stages& st) {
    std::vector<Lowered> operands;
    for (const auto& a : n.args) operands.push_back(forward(a, xs, part, st));
    Back b{this, st};
    // the variable card reads x; every other card ignores it
    const Lowered& x = xs.at(n.is_variable() ? std::size_t(n.variable) : 0);
    return lowering(*n.op).forward(b, n, operands, x, part == Part::linear);
}

Lowered Lowerer::forward(const ir::Node& n, const Lowered& x, Part part, Stages& st) {
    PROXGEN_INTERNAL_ASSERT(var_extents_.size() == 1);
    return forward(n, State{x}, part, st);
}

std::vector<std::optional<Func>> Lowerer::adjoint_state(const ir::Node& n, const Lowered& y, Stages& st) {
    std::vector<std::optional<Func>> total(var_extents_.size());
    if (n.is_variable()) {
        total.at(std::size_t(n.variable)) = y.f;
        return total;
    }
    Back b{this, st};
    const std::vector<std::optional<Lowered>> down = lowering(*n.op).adjoint(b, n, y);
    PROXGEN_INTERNAL_ASSERT(down.size() <= n.args.size());
    for (std::size_t i = 0; i < down.size(); ++i) {
        if (!down[i]) continue;
        const auto parts = adjoint_state(n.args[i], *down[i], st);
        for (std::size_t j = 0; j < parts.size(); ++j) {
            if (!parts[j]) continue;
            if (!total[j]) {
                total[j] = parts[j];
                continue;
            }
            Func s("adjoint_sum");
            const auto av = args(int(var_extents_[j].size()));
            s(av) = (*total[j])(av) + (*parts[j])(av);
            total[j] = s;
        }
    }
    return total;
}

std::optional<Func> Lowerer::adjoint(const ir::Node& n, const Lowered& y, Stages& st) {
    PROXGEN_INTERNAL_ASSERT(var_extents_.size() == 1);
    return adjoint_state(n, y, st).front();
}

void add_adjoint(std::vector<Expr>& sums, const std::vector<std::optional<Func>>& back, const Lowerer& L,
                 const Expr& scale) {
    for (std::size_t j = 0; j < back.size(); ++j) {
        if (!back[j]) continue;
        const Expr e = (*back[j])(args(int(L.variable_extents(int(j)).size())));
        sums[j] += scale.defined() ? scale * e : e;
    }
}

std::vector<Expr> adjoint_sums(Lowerer& L, const std::vector<ir::Term>& terms, const std::vector<Lowered>& y,
                               Stages& st) {
    std::vector<Expr> sums(std::size_t(L.variable_count()), Expr(0.0f));
    for (std::size_t i = 0; i < terms.size(); ++i) add_adjoint(sums, L.adjoint_state(terms[i].expr, y[i], st), L);
    return sums;
}

}  // namespace proxgen::lower
