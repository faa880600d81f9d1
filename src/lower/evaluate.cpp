#include "proxgen/lower/evaluate.hpp"

#include <array>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

/// K x, or K x + c with the offset: one output of the expression's shape.
struct Forward : StatePipeline {
    Forward(const ir::Problem& p, bool with_offset) : StatePipeline(p) {
        const State xin = x.lowered();
        Lowerer L(p, params, xin);
        Stages st;
        const ir::Node& n = p.psi[0].expr;
        const Lowered k = L.forward(n, xin, Part::linear, st);
        const auto a = args(k.rank());
        Expr value = k.f(a);
        if (with_offset) {
            const Lowered c = L.forward(n, xin, Part::offset, st);
            if (!c.is_zero) value = value + c.f(a);
        }
        Func out(with_offset ? "apply_value" : "apply_linear");
        out(a) = value;
        schedule_output(out, k.rank(), st);
        pipeline = Pipeline(out);
    }
};

/// Kᵀ y: one output per variable. x is an input for its extents only (the adjoints of crop, pad,
/// subsample... size their outputs by the variable): its values are never read.
struct Adjoint : StatePipeline {
    ImageParam y;
    explicit Adjoint(const ir::Problem& p) : StatePipeline(p), y(Float(32), p.psi[0].expr.rank(), "y") {
        const State xin = x.lowered();
        Lowerer L(p, params, xin);
        Stages st;
        const auto back = L.adjoint_state(p.psi[0].expr, input(y), st);
        std::vector<Func> outs;
        std::vector<int> ranks;
        for (std::size_t j = 0; j < xin.size(); ++j) {
            Func out(jit::state_name("apply_adjoint", int(j)));
            const auto a = args(xin[j].rank());
            if (back[j]) out(a) = (*back[j])(a);
            else out(a) = 0.0f;
            outs.push_back(out);
            ranks.push_back(xin[j].rank());
        }
        schedule_outputs(outs, ranks, st);
        pipeline = Pipeline(outs);
    }
    std::vector<Argument> arguments() const {
        auto a = StatePipeline::arguments();
        a.emplace_back(y);
        return a;
    }
};

}  // namespace

std::vector<Argument> StatePipeline::arguments() const {
    auto a = params.arguments();
    x.append_to(a);
    return a;
}

bool embeds_process_local_code(const ir::Problem& p) {
    bool local = false;
    ir::for_each_node(p, [&](const ir::Node& n) { local = local || n.code != nullptr; });
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) local = local || t.code != nullptr;
    return local;
}

namespace {
jit::KernelPtr kernel_under(const std::string& key, bool process_local_code, const std::function<jit::Source()>& make) {
    std::optional<jit::NoDiskCache> memory_only;
    if (process_local_code) memory_only.emplace();
    return jit::kernel(key, make);
}
}  // namespace

jit::KernelPtr kernel_for(const ir::Problem& p, const std::string& role, const std::function<jit::Source()>& make) {
    return kernel_under(role + ":" + ir::signature(p), embeds_process_local_code(p), make);
}

jit::KernelPtr cached_kernel(const std::string& key, bool process_local_code, const std::function<jit::Source()>& make) {
    double compile_s = 0;
    return jit::cached_as<jit::Kernel>(key, [&] { return kernel_under(key, process_local_code, make); }, compile_s);
}

jit::KernelPtr term_forward_kernel(const ir::Problem& p, bool with_offset) {
    PROXGEN_INTERNAL_ASSERT(p.omega.empty() && p.psi.size() == 1);
    return cached_kernel<Forward>(p, with_offset ? "apply.value" : "apply.linear", with_offset);
}

jit::KernelPtr term_adjoint_kernel(const ir::Problem& p) {
    PROXGEN_INTERNAL_ASSERT(p.omega.empty() && p.psi.size() == 1);
    return cached_kernel<Adjoint>(p, "apply.adjoint");
}

Image term_forward(const ir::Problem& p, const Image& x, bool with_offset) {
    jit::Call call(term_forward_kernel(p, with_offset));
    const DataArgs data(p);
    data.bind(call);
    call.in_state("x", x, ir::variable_shapes(p));
    Image out(p.psi[0].expr.shape);
    call.out(0, out);
    call.run();
    return out;
}

Image term_adjoint(const ir::Problem& p, const Image& y) {
    PROXGEN_INTERNAL_ASSERT(y.sizes() == p.psi[0].expr.shape);
    jit::Call call(term_adjoint_kernel(p));
    const DataArgs data(p);
    data.bind(call);
    const auto shapes = ir::variable_shapes(p);
    const Image extents(p.variable_shape);  // read for its sizes only
    Image out(p.variable_shape);
    call.in_state("x", extents, shapes).in("y", y);
    call.out_state(0, out, shapes);
    call.run();
    return out;
}

Image apply_linear(const ir::Node& expr, const Image& x) {
    const ir::Problem p = single_term(expr);
    if (x.sizes() != p.variable_shape)
        fail("apply_linear: x is {} but the variable is {}", x.shape_string(), shape_string(p.variable_shape));
    return term_forward(p, x, false);
}

Image apply_adjoint(const ir::Node& expr, const Image& y) {
    const ir::Problem p = single_term(expr);
    if (y.sizes() != expr.shape)
        fail("apply_adjoint: y is {} but the expression is {}", y.shape_string(), shape_string(expr.shape));
    return term_adjoint(p, y);
}

namespace {

/// prox of one penalty at v, over the optional data a, c, counts and group weights that `present`
/// names (one kernel per penalty, structural parameters, rank and data present).
struct ProxPipeline {
    ImageParam v;
    std::vector<ImageParam> data;  // those of a, c, counts, group_weight that are present, in that order
    Param<float> alpha{"alpha"}, rho{"rho"};
    Pipeline pipeline;
    static constexpr const char* names[4] = {"a", "c", "counts", "group_weight"};

    ProxPipeline(const ir::Term& term, int rank, const std::array<bool, 4>& present) : v(Float(32), rank, "v") {
        ProxSpec spec;
        spec.term = &term;
        spec.rank = rank;
        spec.alpha = alpha;
        std::optional<Func>* slots[4] = {&spec.a, &spec.c, &spec.data, &spec.group_weight};
        for (int i = 0; i < 4; ++i)
            if (present[std::size_t(i)]) {
                data.emplace_back(Float(32), i == 3 ? rank - 1 : rank, names[i]);
                *slots[i] = input(data.back()).f;
            }
        Stages st;
        Func z = prox(spec, input(v), rho, st);
        Func out("apply_prox");
        out(args(rank)) = z(args(rank));
        schedule_output(out, rank, st);
        pipeline = Pipeline(out);
    }
    std::vector<Argument> arguments() const {
        std::vector<Argument> a{v};
        for (const auto& d : data) a.emplace_back(d);
        a.emplace_back(alpha);
        a.emplace_back(rho);
        return a;
    }
};

}  // namespace

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
    ir::Term term;  // what the prox reads of a term: its penalty, structural parameters and code
    term.penalty = &f;
    term.ints = data.ints;
    term.code = data.code;
    if (catalogue::is<catalogue::penalties::diff_fn>(term) && !term.code) fail("apply_prox: diff_fn needs its smooth function");
    const Image* images[4] = {&data.a, &data.c, &data.counts, &data.group_weight};
    std::array<bool, 4> present{};
    for (std::size_t i = 0; i < 4; ++i) present[i] = !images[i]->empty();
    const std::string key = fmt::format("apply.prox:{}<{}>#{}/{}:{}{}{}{}", ir::name(term), fmt::join(term.ints, ","),
                                        term.code ? term.code->id : 0, r, present[0], present[1], present[2], present[3]);
    jit::Call call(cached_kernel(key, term.code != nullptr, [&] {  // a diff_fn's code lives in this process
        ProxPipeline pipes(term, r, present);
        return jit::Source{pipes.pipeline, pipes.arguments()};
    }));
    call.in("v", v).in("alpha", alpha).in("rho", rho);
    for (std::size_t i = 0; i < 4; ++i)
        if (present[i]) call.in(ProxPipeline::names[i], *images[i]);
    Image out(v.sizes());
    call.out(0, out);
    call.run();
    return out;
}

}  // namespace proxgen::lower
