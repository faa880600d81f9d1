// Forward and adjoint lowering of every linear operator: the dispatch, and grad, mul_elemwise,
// scale, sum, concat and subsample; the other families live in linear_*.cpp. Each adjoint is the
// exact transpose of its forward (tests/test_adjoint*.cpp check ⟨Kx, y⟩ = ⟨x, Kᵀy⟩).
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
/// The value a boundary clamp or select keeps away from the image's edges along `axis`. Along x
/// (the vectorized axis) it is tagged likely(), so that Halide's loop partitioner gives the
/// interior its own loop without the clamp and the select (dense vector loads, no blends). Along
/// the other axes the test is one scalar per row: partitioning there only multiplied the code
/// (every staged Func's row loop in three copies) and the compile time.
Expr interior(int axis, Expr e) { return axis == 0 ? likely(e) : e; }

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

std::vector<int> grad_axes(const ir::Node& n) { return n.ints.empty() ? std::vector<int>{0, 1} : n.ints; }

int static_last_extent(const ir::Node& n) {
    switch (n.op) {
    case ir::Op::grad: return n.ints.empty() ? 2 : int(n.ints.size());
    case ir::Op::conv:
    case ir::Op::mul_elemwise:
    case ir::Op::scale:
    case ir::Op::subsample:
    case ir::Op::crop:
    case ir::Op::pad:
    case ir::Op::uneven_subsample:
    case ir::Op::warp:
    case ir::Op::user: return static_last_extent(n.args[0]);
    case ir::Op::sum: return std::max(static_last_extent(n.args[0]), static_last_extent(n.args[1]));
    default: return 0;
    }
}

ProxSpec Lowerer::prox_spec(const ir::Term& t, const Lowered& x, Stages& st) {
    ProxSpec f;
    f.penalty = t.penalty;
    f.group_size = static_last_extent(t.expr);
    f.smooth = t.smooth;
    f.alpha = weight(t);
    const int r = int(t.expr.shape.size());
    const auto a_args = args(r);
    const bool grouped = t.penalty == ir::Penalty::group_norm1;
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

Func Lowerer::term_argument(const ir::Term& t, const Lowered& x, Stages& st) {
    ProxSpec f = prox_spec(t, x, st);
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

std::vector<Expr> Lowerer::extents(const ir::Node& n) {
    switch (n.op) {
    case ir::Op::variable: return var_extents_;
    case ir::Op::constant: {
        const auto& p = params_.images[n.image_slot];
        std::vector<Expr> e;
        for (int d = 0; d < p.dimensions(); ++d) e.push_back(p.dim(d).extent());
        return e;
    }
    case ir::Op::grad: {
        auto e = extents(n.args[0]);
        e.push_back(n.ints.empty() ? 2 : int(n.ints.size()));
        return e;
    }
    case ir::Op::subsample: {
        auto e = extents(n.args[0]);
        e[0] = (e[0] + n.step_x - 1) / n.step_x;
        e[1] = (e[1] + n.step_y - 1) / n.step_y;
        return e;
    }
    case ir::Op::crop: {
        auto e = extents(n.args[0]);
        e[0] = n.ints[2];
        e[1] = n.ints[3];
        return e;
    }
    case ir::Op::pad: {
        auto e = extents(n.args[0]);
        e[0] += n.ints[0] + n.ints[2];
        e[1] += n.ints[1] + n.ints[3];
        return e;
    }
    case ir::Op::transpose: {
        auto in = extents(n.args[0]), e = in;
        for (std::size_t d = 0; d < e.size(); ++d) e[d] = in[n.ints[d]];
        return e;
    }
    case ir::Op::reshape: return std::vector<Expr>(n.ints.begin(), n.ints.end());
    case ir::Op::concat: {
        auto e = extents(n.args[0]);
        e[n.ints[0]] += extents(n.args[1])[n.ints[0]];
        return e;
    }
    case ir::Op::uneven_subsample: {
        auto e = extents(n.args[0]);
        e[0] = params_.images[n.image_slot].dim(0).extent();
        e[1] = params_.images[n.image_slot].dim(1).extent();
        return e;
    }
    case ir::Op::warp: {
        auto e = extents(n.args[0]);
        if (n.ints.size() == 4) e[0] = n.ints[2], e[1] = n.ints[3];
        return e;
    }
    case ir::Op::pxwise_matmul: {
        auto e = extents(n.args[0]);
        e[2] = params_.images[n.image_slot].dim(2).extent();
        return e;
    }
    default: return extents(n.args[0]);
    }
}

Lowered Lowerer::forward(const ir::Node& n, const Lowered& x, Part part, Stages& st) {
    const auto& ax = axes();
    const int r = int(n.shape.size());
    if (n.op == ir::Op::variable) return part == Part::linear ? x : zeros(x.extents);
    if (n.op == ir::Op::constant) {
        if (part == Part::linear) return zeros(extents(n));
        return input(params_.images[n.image_slot]);
    }
    if (n.op == ir::Op::sum) {
        Lowered a = forward(n.args[0], x, part, st), b = forward(n.args[1], x, part, st);
        if (a.is_zero) return b;
        if (b.is_zero) return a;
        Lowered s{Func("sum"), a.extents};
        s.f(args(r)) = a.f(args(r)) + b.f(args(r));
        return s;
    }
    if (n.op == ir::Op::concat) {
        Lowered a = forward(n.args[0], x, part, st), b = forward(n.args[1], x, part, st);
        if (a.is_zero && b.is_zero) return zeros(extents(n));
        // a before b along the axis; the clamps keep both reads in bounds (select evaluates both)
        const int axis = n.ints[0];
        Expr na = a.extents[axis], nb = b.extents[axis];
        auto ia = args(r), ib = args(r);
        ia[axis] = clamp(ax[axis], 0, na - 1);
        ib[axis] = clamp(ax[axis] - na, 0, nb - 1);
        Lowered c{Func("concat"), extents(n)};
        c.f(args(r)) = select(ax[axis] < na, a.f(ia), b.f(ib));
        return c;
    }
    Lowered a = forward(n.args[0], x, part, st);
    if (a.is_zero) return zeros(extents(n));
    Lowered out{Func(ir::name(n.op)), extents(n)};
    switch (n.op) {
    case ir::Op::conv: out.f = conv_forward(n, a, params_.images[n.image_slot], st); break;
    case ir::Op::crop:
    case ir::Op::pad:
    case ir::Op::transpose:
    case ir::Op::reshape: out.f = layout_forward(n, a, out.extents); break;
    case ir::Op::uneven_subsample:
    case ir::Op::warp: out.f = sampling_forward(n, a, params_.images[n.image_slot]); break;
    case ir::Op::mul_color:
    case ir::Op::pxwise_matmul: out.f = color_forward(n, a, params_.images[n.image_slot]); break;
    case ir::Op::user: out.f = user_forward(n, a); break;
    case ir::Op::grad: {
        // (∇u)(…, k) = u(i + e_a) − u(i) along axis a = axes[k], 0 on the last slice (Neumann) or
        // wrapping (periodic). The clamps keep every access in bounds (and, when wrapping, tell
        // bounds inference the wrapped index stays inside); the select zeroes the last slice.
        Expr u = a.f(args(r - 1));
        const std::vector<int> along = grad_axes(n);
        // a wrap-around read of a computed operand computes it whole first (see Stages)
        const Func wrapped = n.periodic ? wrapped_operand(a, st) : a.f;
        std::vector<Expr> d;
        for (int axis : along) {
            Expr N = a.extents[axis];
            auto shifted = args(r - 1);
            if (n.periodic) {
                shifted[axis] = clamp(select(ax[axis] < N - 1, ax[axis] + 1, 0), 0, N - 1);
                d.push_back(wrapped(shifted) - u);
            } else {
                shifted[axis] = min(interior(axis, ax[axis] + 1), N - 1);
                d.push_back(select(ax[axis] < N - 1, interior(axis, a.f(shifted) - u), 0.0f));
            }
        }
        Expr value = d.back();
        for (int k = int(d.size()) - 2; k >= 0; --k) value = select(ax[r - 1] == k, d[k], value);
        out.f(args(r)) = value;
        break;
    }
    case ir::Op::mul_elemwise: out.f(args(r)) = params_.images[n.image_slot](args(r)) * a.f(args(r)); break;
    case ir::Op::scale: out.f(args(r)) = params_.scalars[n.scalar_slot] * a.f(args(r)); break;
    case ir::Op::subsample: out.f(args(r)) = at(a.f, r, ax[0] * n.step_x, ax[1] * n.step_y); break;
    default: PROXGEN_INTERNAL_ASSERT(false);
    }
    return out;
}

std::optional<Func> Lowerer::adjoint(const ir::Node& n, const Lowered& y, Stages& st) {
    const auto& ax = axes();
    switch (n.op) {
    case ir::Op::variable: return y.f;
    case ir::Op::constant: return std::nullopt;
    case ir::Op::sum: {
        auto a = adjoint(n.args[0], y, st), b = adjoint(n.args[1], y, st);
        if (!a) return b;
        if (!b) return a;
        Func s("adjoint_sum");
        const int rv = int(problem_.variable_shape.size());
        s(args(rv)) = (*a)(args(rv)) + (*b)(args(rv));
        return s;
    }
    case ir::Op::concat: {
        // [A; B]ᵀ y = Aᵀ y_a + Bᵀ y_b: y split along the axis, each part read in place
        const int axis = n.ints[0], r = int(n.shape.size());
        auto ea = extents(n.args[0]), eb = extents(n.args[1]);
        Lowered ya{Func("concat_adjoint_a"), ea}, yb{Func("concat_adjoint_b"), eb};
        auto ib = args(r);
        ib[axis] = ax[axis] + ea[axis];
        ya.f(args(r)) = y.f(args(r));
        yb.f(args(r)) = y.f(ib);
        auto a = adjoint(n.args[0], ya, st), b = adjoint(n.args[1], yb, st);
        if (!a) return b;
        if (!b) return a;
        Func s("adjoint_concat");
        const int rv = int(problem_.variable_shape.size());
        s(args(rv)) = (*a)(args(rv)) + (*b)(args(rv));
        return s;
    }
    default: break;
    }
    const ir::Node& arg = n.args[0];
    const int ra = int(arg.shape.size());
    Lowered back{Func(std::string(ir::name(n.op)) + "_adjoint"), extents(arg)};
    switch (n.op) {
    case ir::Op::grad: {
        // ∇ᵀ = −div with the matching boundary terms: the first slice keeps only +p(i), the last
        // only −p(i − e_a); the operand is read at several points, so it is computed once per strip
        // (unless it is stored already: an input buffer or a Func the caller stages).
        Func p("grad_adjoint_operand");
        if (n.periodic) {  // read through a wrap-around: computed whole (see Stages)
            p = wrapped_operand(y, st);
        } else if (y.is_input || y.staged) {
            p = y.f;
        } else {
            p(args(ra + 1)) = y.f(args(ra + 1));
            st.add(p);
        }
        const auto a = args(ra);
        const std::vector<int> along = grad_axes(n);
        Expr sum = 0.0f;
        for (int k = 0; k < int(along.size()); ++k) {
            const int axis = along[k];
            Expr N = back.extents[axis];
            auto here = a, before = a;
            here.push_back(k);
            before.push_back(k);
            Expr g;
            if (n.periodic) {  // −(p(i) − p(i − e_a)) with i − 1 wrapping
                before[axis] = clamp(select(ax[axis] > 0, ax[axis] - 1, N - 1), 0, N - 1);
                g = p(here) - p(before);
            } else {
                before[axis] = max(interior(axis, ax[axis] - 1), 0);
                g = select(ax[axis] < N - 1, interior(axis, p(here)), 0.0f) -
                    select(ax[axis] > 0, interior(axis, p(before)), 0.0f);
            }
            sum = k == 0 ? g : sum + g;
        }
        back.f(a) = -sum;
        break;
    }
    case ir::Op::conv: back.f = conv_adjoint(n, y, params_.images[n.image_slot], st); break;
    case ir::Op::crop:
    case ir::Op::pad:
    case ir::Op::transpose:
    case ir::Op::reshape: back.f = layout_adjoint(n, y, back.extents); break;
    case ir::Op::uneven_subsample:
    case ir::Op::warp: back.f = sampling_adjoint(n, y, params_.images[n.image_slot], back.extents, st); break;
    case ir::Op::mul_color:
    case ir::Op::pxwise_matmul: back.f = color_adjoint(n, y, params_.images[n.image_slot]); break;
    case ir::Op::user: back.f = user_adjoint(n, y, back.extents, st); break;
    case ir::Op::mul_elemwise: back.f(args(ra)) = params_.images[n.image_slot](args(ra)) * y.f(args(ra)); break;
    case ir::Op::scale: back.f(args(ra)) = params_.scalars[n.scalar_slot] * y.f(args(ra)); break;
    case ir::Op::subsample: {
        // zero-filling upsample: the transpose of keeping every step-th sample.
        Expr keep = (ax[0] % n.step_x == 0) && (ax[1] % n.step_y == 0);
        back.f(args(ra)) = select(keep, at(y.f, ra, ax[0] / n.step_x, ax[1] / n.step_y), 0.0f);
        break;
    }
    default: PROXGEN_INTERNAL_ASSERT(false);
    }
    return adjoint(arg, back, st);
}

}  // namespace proxgen::lower
