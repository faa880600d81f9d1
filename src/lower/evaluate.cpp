#include "proxgen/lower/evaluate.hpp"

#include "../jit/compile.hpp"
#include "lowering.hpp"
#include "proxgen/catalogue/penalties/diff_fn.hpp"
#include "proxgen/catalogue/penalties/sum_squares.hpp"
#include "proxgen/error.hpp"

namespace proxgen::lower {

using namespace Halide;

namespace {

/// A one-term problem around expr, so that slots are numbered the way solvers number them.
ir::Problem single_term(const ir::Node& expr) {
    ir::Problem p;
    ir::Term t = catalogue::term<catalogue::penalties::sum_squares>(expr);
    p.psi.push_back(t);
    ir::for_each_node(p, [&](const ir::Node& n) {
        if (n.is_variable()) p.variable_shape = n.shape;
    });
    ir::assign_slots(p);
    ir::validate(p);
    return p;
}

/// Binds the data of p to this call's own (never shared) parameters.
void bind_locally(Params& params, const ir::Problem& p) {
    const DataArgs data(p);
    for (std::size_t i = 0; i < data.images.size(); ++i)
        params.images[i].set(Buffer<float>(Image::Buffer(data.images[i].buffer())));
    for (std::size_t i = 0; i < data.scalars.size(); ++i) params.scalars[i].set(data.scalars[i]);
}

void set(ImageParam& p, const Image& img) { p.set(Buffer<float>(Image::Buffer(img.buffer()))); }

/// Compiles and runs a one-off pipeline (under the compiler lock: these are tools, not solvers).
Image realize_one(Func out, int rank, const Stages& st, const std::vector<int>& shape) {
    schedule_output(out, rank, st);
    Pipeline pipe(out);
    Image result(shape);
    std::vector<Halide::Buffer<>> bufs{Halide::Buffer<float>(Image::Buffer(result.buffer()))};
    pipe.realize(Halide::Realization(bufs), jit::host_target());
    return result;
}

}  // namespace

Image apply_linear(const ir::Node& expr, const Image& x) {
    ir::Problem p = single_term(expr);
    if (x.sizes() != p.variable_shape)
        fail("apply_linear: x is {} but the variable is {}", x.shape_string(), shape_string(p.variable_shape));
    auto lock = jit::compiler_lock();
    Params params(p);
    bind_locally(params, p);
    ImageParam xp(Float(32), x.dimensions(), "x");
    set(xp, x);
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
    auto lock = jit::compiler_lock();
    Params params(p);
    bind_locally(params, p);
    ImageParam yp(Float(32), y.dimensions(), "y");
    set(yp, y);
    // no x here: the variable's extents are plain numbers (this pipeline is compiled per call)
    Lowerer L(p, params, std::vector<Expr>(p.variable_shape.begin(), p.variable_shape.end()));
    Stages st;
    auto g = L.adjoint(p.psi[0].expr, input(yp), st);
    const int rv = int(p.variable_shape.size());
    Func out("apply_adjoint");
    out(args(rv)) = g ? (*g)(args(rv)) : Expr(0.0f);
    return realize_one(out, rv, st, p.variable_shape);
}

Image apply_prox(const ir::PenaltyKind& f, float alpha, float rho, const Image& v, const ProxData& data) {
    const int r = v.dimensions();
    std::vector<int> group_shape = v.sizes();
    group_shape.pop_back();
    auto check = [&](const Image& img, const char* what, const std::vector<int>& shape) {
        if (!img.empty() && img.sizes() != shape)
            fail("apply_prox: {} is {} but should be {}", what, img.shape_string(), shape_string(shape));
    };
    check(data.a, "a", v.sizes());
    check(data.c, "c", v.sizes());
    check(data.counts, "counts", v.sizes());
    check(data.group_weight, "the group weight", group_shape);
    auto lock = jit::compiler_lock();
    std::vector<ImageParam> keep;  // parameters must outlive the realization
    auto func_of = [&](const Image& img, const char* name) -> std::optional<Func> {
        if (img.empty()) return std::nullopt;
        keep.emplace_back(Float(32), img.dimensions(), name);
        set(keep.back(), img);
        return input(keep.back()).f;
    };
    ImageParam vp(Float(32), r, "v");
    set(vp, v);
    Param<float> a("alpha", alpha), rp("rho", rho);
    ir::Term term;  // what the prox reads of a term: its penalty, structural parameters and code
    term.penalty = &f;
    term.ints = data.ints;
    term.code = data.code;
    if (catalogue::is<catalogue::penalties::diff_fn>(term) && !term.code) fail("apply_prox: diff_fn needs its smooth function");
    ProxSpec spec;
    spec.term = &term;
    spec.rank = r;
    spec.alpha = a;
    spec.a = func_of(data.a, "a");
    spec.c = func_of(data.c, "c");
    spec.data = func_of(data.counts, "counts");
    spec.group_weight = func_of(data.group_weight, "group_weight");
    Stages st;
    Lowered vin = input(vp);
    Func z = prox(spec, vin, rp, st);
    Func out("apply_prox");
    out(args(r)) = z(args(r));
    return realize_one(out, r, st, v.sizes());
}

}  // namespace proxgen::lower
