#include "proxgen/lower/evaluate.hpp"

#include "../solve/engine.hpp"
#include "lowering.hpp"
#include "proxgen/error.hpp"

namespace proxgen::lower {

using namespace Halide;

namespace {

/// A one-term problem around expr, so that slots are numbered the way solvers number them.
ir::Problem single_term(const ir::Node& expr) {
    ir::Problem p;
    ir::Term t;
    t.expr = expr;
    p.psi.push_back(t);
    ir::for_each_node(p, [&](const ir::Node& n) {
        if (n.op == ir::Op::variable) p.variable_shape = n.shape;
    });
    ir::assign_slots(p);
    ir::validate(p);
    return p;
}

Image realize_one(Func out, int rank, const Stages& st, const std::vector<int>& shape) {
    schedule_output(out, rank, st);
    Pipeline pipe(out);
    Image result(shape);
    detail::run(pipe, {&result});
    return result;
}

}  // namespace

Image apply_linear(const ir::Node& expr, const Image& x) {
    ir::Problem p = single_term(expr);
    if (x.sizes() != p.variable_shape)
        fail("apply_linear: x is {} but the variable is {}", x.shape_string(), shape_string(p.variable_shape));
    Params params(p);
    params.bind(p);
    ImageParam xp(Float(32), x.dimensions(), "x");
    detail::set(xp, x);
    Lowered xin = input(xp);
    Lowerer L(p, params, xin.extents);
    Stages st;
    Lowered k = L.forward(p.psi[0].expr, xin, Part::linear, st);
    Func out("apply_linear");
    out(args(k.rank())) = k.f(args(k.rank()));
    return realize_one(out, k.rank(), st, expr.shape);
}

Image apply_adjoint(const ir::Node& expr, const Image& y) {
    ir::Problem p = single_term(expr);
    if (y.sizes() != expr.shape)
        fail("apply_adjoint: y is {} but the expression is {}", y.shape_string(), shape_string(expr.shape));
    Params params(p);
    params.bind(p);
    // The variable's extents come from an (unused) input of the variable's shape.
    ImageParam xp(Float(32), int(p.variable_shape.size()), "x");
    Image x_shape(p.variable_shape);
    detail::set(xp, x_shape);
    ImageParam yp(Float(32), y.dimensions(), "y");
    detail::set(yp, y);
    Lowered xin = input(xp);
    Lowerer L(p, params, xin.extents);
    Stages st;
    auto g = L.adjoint(p.psi[0].expr, input(yp), st);
    const int rv = int(p.variable_shape.size());
    Func out("apply_adjoint");
    out(args(rv)) = g ? (*g)(args(rv)) + 0.0f * xin.f(args(rv)) : 0.0f * xin.f(args(rv));
    return realize_one(out, rv, st, p.variable_shape);
}

Image apply_prox(ir::Penalty f, float alpha, float rho, const Image& v, const Image& c) {
    if (!c.empty() && c.sizes() != v.sizes())
        fail("apply_prox: the offset is {} but v is {}", c.shape_string(), v.shape_string());
    ImageParam vp(Float(32), v.dimensions(), "v"), cp(Float(32), v.dimensions(), "c");
    detail::set(vp, v);
    if (!c.empty()) detail::set(cp, c);
    Param<float> a("alpha", alpha), r("rho", rho);
    Stages st;
    Lowered vin = input(vp);
    ProxSpec spec;
    spec.penalty = f;
    spec.alpha = a;
    if (!c.empty()) spec.c = input(cp).f;
    Func z = prox(spec, vin, r, st);
    Func out("apply_prox");
    out(args(vin.rank())) = z(args(vin.rank()));
    return realize_one(out, vin.rank(), st, v.sizes());
}

}  // namespace proxgen::lower
