// Forward and adjoint lowering of every linear operator. Each adjoint here is the exact transpose
// of its forward (tests/test_adjoint.cpp checks ⟨Kx, y⟩ = ⟨x, Kᵀy⟩ for every operator).
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

Params::Params(const ir::Problem& p) : images(p.image_slots), scalars(p.scalar_slots) {
    for_each_image_slot(p, [&](int slot, const Image& img) {
        images[slot] = ImageParam(Float(32), img.dimensions(), "data" + std::to_string(slot));
    });
}

void Params::bind(const ir::Problem& p) {
    for_each_image_slot(p, [&](int slot, const Image& img) { images[slot].set(Buffer<float>(Image::Buffer(img.buffer()))); });
    ir::for_each_node(p, [&](const ir::Node& n) {
        if (n.scalar_slot >= 0) scalars[n.scalar_slot].set(n.scalar);
    });
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) {
            scalars[t.weight_slot].set(t.weight);
            scalars[t.beta_slot].set(t.beta);
        }
}

int static_last_extent(const ir::Node& n) {
    switch (n.op) {
    case ir::Op::grad: return 2;
    case ir::Op::conv:
    case ir::Op::mul_elemwise:
    case ir::Op::scale:
    case ir::Op::subsample: return static_last_extent(n.args[0]);
    case ir::Op::sum: return std::max(static_last_extent(n.args[0]), static_last_extent(n.args[1]));
    default: return 0;
    }
}

ProxSpec Lowerer::prox_spec(const ir::Term& t, const Lowered& x, Stages& st) {
    ProxSpec f;
    f.penalty = t.penalty;
    f.group_size = static_last_extent(t.expr);
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

namespace {

/// The operand of a wrap-around read: a computed operand is computed whole first (see Stages).
Func wrapped_operand(const Lowered& in, Stages& st) {
    if (in.is_input) return in.f;
    Func whole("wrapped_operand");
    whole(args(in.rank())) = in.f(args(in.rank()));
    return st.add_root(whole);
}

/// Call a Func of rank r with new x and y and the remaining axes unchanged.
Expr at(const Func& f, int rank, Expr x, Expr y) {
    auto a = args(rank);
    a[0] = std::move(x);
    a[1] = std::move(y);
    return f(a);
}

/// Circular correlation-type sum Σ_ab k(a,b) · in(x + sgn·(a − kw/2), y + sgn·(b − kh/2)):
/// sgn = −1 is ProxImaL's convolution (centre floor(size/2)), sgn = +1 its adjoint.
Func circular_filter(const Lowered& in, const ImageParam& kernel, int sgn, Stages& st) {
    const int r = in.rank();
    const auto& ax = axes();
    Expr W = in.extents[0], H = in.extents[1];
    // The wrap goes through BoundaryConditions::repeat_image, whose `likely` lets Halide split the
    // x loop so the interior reads with plain vector loads and only the borders pay for the
    // modulo; the padded copy is computed once per strip and the taps then read it with affine
    // vector loads. (Measured 512², 9×9 kernel: 5.4 ms → see bench/ for the current number.)
    Region bounds{{0, W}, {0, H}};
    for (int d = 2; d < r; ++d) bounds.push_back(Range());
    Func padded = BoundaryConditions::repeat_image(wrapped_operand(in, st), bounds);
    st.add(padded);
    Expr kw = kernel.dim(0).extent(), kh = kernel.dim(1).extent();
    RDom t(0, kw, 0, kh, "tap");
    Func acc(sgn < 0 ? "conv" : "conv_adjoint");
    acc(args(r)) = 0.0f;
    acc(args(r)) += kernel(t.x, t.y) * at(padded, r, ax[0] + sgn * (t.x - kw / 2), ax[1] + sgn * (t.y - kh / 2));
    st.add(acc);
    return acc;
}

}  // namespace

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
        e.push_back(2);
        return e;
    }
    case ir::Op::subsample: {
        auto e = extents(n.args[0]);
        e[0] = (e[0] + n.step_x - 1) / n.step_x;
        e[1] = (e[1] + n.step_y - 1) / n.step_y;
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
    Lowered a = forward(n.args[0], x, part, st);
    if (a.is_zero) return zeros(extents(n));
    Lowered out{Func(ir::name(n.op)), extents(n)};
    switch (n.op) {
    case ir::Op::conv: out.f = circular_filter(a, params_.images[n.image_slot], -1, st); break;
    case ir::Op::grad: {
        // (∇u)(x,y,…,0) = u(x+1,y) − u(x,y), 0 on the last column; likewise along y. The clamps
        // keep every access in bounds; the select zeroes the last slice (Neumann).
        Expr W = a.extents[0], H = a.extents[1];
        Expr u = a.f(args(r - 1));
        Expr dx, dy;
        if (n.periodic) {
            // the clamps change nothing but tell bounds inference the wrapped index stays inside
            Func w = wrapped_operand(a, st);
            dx = at(w, r - 1, clamp(select(ax[0] < W - 1, ax[0] + 1, 0), 0, W - 1), ax[1]) - u;
            dy = at(w, r - 1, ax[0], clamp(select(ax[1] < H - 1, ax[1] + 1, 0), 0, H - 1)) - u;
        } else {
            dx = select(ax[0] < W - 1, at(a.f, r - 1, min(ax[0] + 1, W - 1), ax[1]) - u, 0.0f);
            dy = select(ax[1] < H - 1, at(a.f, r - 1, ax[0], min(ax[1] + 1, H - 1)) - u, 0.0f);
        }
        out.f(args(r)) = select(ax[r - 1] == 0, dx, dy);
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
    default: break;
    }
    const ir::Node& arg = n.args[0];
    const int ra = int(arg.shape.size());
    Lowered back{Func(std::string(ir::name(n.op)) + "_adjoint"), extents(arg)};
    switch (n.op) {
    case ir::Op::conv: back.f = circular_filter(y, params_.images[n.image_slot], +1, st); break;
    case ir::Op::grad: {
        // ∇ᵀ = −div with the matching boundary terms: the first column keeps only +p(x), the last
        // only −p(x−1); the operand is read at three points, so it is computed once per strip.
        Func p("grad_adjoint_operand");
        if (n.periodic) {
            p = wrapped_operand(y, st);
        } else {
            p(args(ra + 1)) = y.f(args(ra + 1));
            st.add(p);
        }
        Expr W = back.extents[0], H = back.extents[1];
        auto a = args(ra);
        auto with = [&](Expr x, Expr yy, int k) {
            auto c = a;
            c[0] = x;
            c[1] = yy;
            c.push_back(k);
            return p(c);
        };
        Expr gx, gy;
        if (n.periodic) {  // −(p(x) − p(x−1)) with x−1 wrapping
            gx = with(ax[0], ax[1], 0) - with(clamp(select(ax[0] > 0, ax[0] - 1, W - 1), 0, W - 1), ax[1], 0);
            gy = with(ax[0], ax[1], 1) - with(ax[0], clamp(select(ax[1] > 0, ax[1] - 1, H - 1), 0, H - 1), 1);
        } else {
            gx = select(ax[0] < W - 1, with(ax[0], ax[1], 0), 0.0f) -
                 select(ax[0] > 0, with(max(ax[0] - 1, 0), ax[1], 0), 0.0f);
            gy = select(ax[1] < H - 1, with(ax[0], ax[1], 1), 0.0f) -
                 select(ax[1] > 0, with(ax[0], max(ax[1] - 1, 0), 1), 0.0f);
        }
        back.f(a) = -(gx + gy);
        break;
    }
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
