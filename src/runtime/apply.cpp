// Run-time expressions and penalties as functions on images (proxgen/runtime_apply.hpp). Each
// function lowers what the solvers lower — the cards' forward, adjoint and prox code — into one
// small pipeline per expression structure, compiled through the solvers' kernel cache: sizes are
// run-time extents (the variables' buffers), data are the problem's slots, so any expression of the
// same structure reuses the kernel. An expression becomes a one-term problem (sum_squares of it) so
// that slots and variables are numbered as the solvers number them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "../solve/engine.hpp"
#include "nodes.hpp"
#include "proxgen/catalogue/penalties/sum_squares.hpp"
#include "proxgen/error.hpp"
#include "proxgen/lower/evaluate.hpp"
#include "proxgen/plan/planner.hpp"
#include "proxgen/runtime_apply.hpp"

namespace proxgen::rt {

namespace {

using proxgen::detail::StatePipeline;

/// Gives each variable node its index among the expression's variables (the planner's numbering).
void number_variables(ir::Node& n, const detail::Names& names) {
    if (n.is_variable()) n.variable = names.variable_index(n.name);
    for (auto& a : n.args) number_variables(a, names);
}

/// e as the one Ψ term of a problem in e's variables.
ir::Problem problem_of(const Expr& e, const char* what) {
    const detail::ExprNode& n = detail::node_of(e, what);
    ir::Problem p;
    for (const auto& v : n.names.variables) p.variables.push_back({v.name, v.shape});
    if (p.variables.empty()) fail("{}: {} depends on no variable", what, e.to_string());
    ir::Node expr = n.ir;
    number_variables(expr, n.names);
    ir::Term t = catalogue::term<catalogue::penalties::sum_squares>(std::move(expr));
    t.text = e.to_string();
    p.psi.push_back(std::move(t));
    p.variable_shape = ir::state_shape(p);
    ir::assign_slots(p);
    ir::validate(p);
    return p;
}

/// The flat state of the given values, every variable of p named once with its shape.
Image state_of(const ir::Problem& p, const std::map<std::string, Image>& values, const char* what) {
    std::vector<std::string> names;
    for (const auto& v : p.variables) names.push_back(v.name);
    std::vector<Image> parts;
    for (const auto& v : p.variables) {
        auto it = values.find(v.name);
        if (it == values.end())
            fail("{}: no value for variable '{}' (the expression's variables: {})", what, v.name,
                 fmt::join(names, ", "));
        if (it->second.sizes() != v.shape)
            fail("{}: variable '{}' is {} but its value is {}", what, v.name, shape_string(v.shape),
                 it->second.shape_string());
        parts.push_back(it->second);
    }
    for (const auto& [name, img] : values)
        if (std::find(names.begin(), names.end(), name) == names.end())
            fail("{}: the expression has no variable '{}' (its variables: {})", what, name, fmt::join(names, ", "));
    return ir::join_state(p, parts);
}

/// Operators that only move elements (transpose, reshape: KᵀK = I), down to the variable.
bool moves_elements(const ir::Node& n) {
    if (n.is_variable()) return true;
    const std::string_view kind = ir::name(n);
    return (kind == "transpose" || kind == "reshape") && n.args.size() == 1 && moves_elements(n.args[0]);
}

/// The problem's terms, Ω then Ψ.
std::vector<const ir::Term*> terms_of(const ir::Problem& p) {
    std::vector<const ir::Term*> out;
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) out.push_back(&t);
    return out;
}

/// The prox at x (the point v), with the terms as planned (β, weights, constants). One term: its
/// card's prox, through P and Pᵀ when its argument is the variable moved by P (P orthogonal:
/// ‖P z − P v‖ = ‖z − v‖, so the prox of f∘P is Pᵀ prox_f(P v)). Several terms: indicators of
/// per-pixel intervals on the variable itself, projected onto in turn, which reaches the projection
/// onto their intersection (lower::feasible_state's argument).
struct Prox : StatePipeline {
    Halide::Param<float> rho{"rho"};
    explicit Prox(const ir::Problem& p) : StatePipeline(p) {
        const lower::State xin = x.lowered();
        lower::Lowerer L(p, params, xin);
        lower::Stages st;
        const int r = xin[0].rank();
        lower::Lowered current = xin[0];
        const std::vector<const ir::Term*> terms = terms_of(p);
        if (terms.size() == 1 && !terms[0]->expr.is_variable()) {
            const ir::Term& t = *terms[0];
            const lower::ProxSpec spec = L.prox_spec(t, xin, st);
            lower::Lowered moved = L.forward(t.expr, xin, lower::Part::linear, st);
            lower::Lowered z = moved;
            z.f = lower::prox(spec, moved, rho, st);
            z.is_input = z.staged = false;
            const auto back = L.adjoint_state(t.expr, z, st);
            current.f = *back[0];
        } else {
            for (const ir::Term* t : terms) {
                const lower::ProxSpec spec = L.prox_spec(*t, xin, st);
                current.f = lower::prox(spec, current, rho, st);
                current.is_input = current.staged = false;
            }
        }
        Halide::Func out("apply_prox");
        out(lower::args(r)) = current.f(lower::args(r));
        lower::schedule_output(out, r, st);
        pipeline = Halide::Pipeline(out);
    }
    std::vector<Halide::Argument> arguments() const {
        auto a = StatePipeline::arguments();
        a.emplace_back(rho);
        return a;
    }
};

Image run_forward(const Expr& e, const std::map<std::string, Image>& values, bool with_offset, const char* what) {
    const ir::Problem p = problem_of(e, what);
    return lower::term_forward(p, state_of(p, values, what), with_offset);
}

}  // namespace

Image apply_linear(const Expr& e, const std::map<std::string, Image>& values) {
    return run_forward(e, values, false, "apply_linear");
}

Image evaluate(const Expr& e, const std::map<std::string, Image>& values) {
    return run_forward(e, values, true, "evaluate");
}

std::map<std::string, Image> apply_adjoint(const Expr& e, const Image& y) {
    const ir::Problem p = problem_of(e, "apply_adjoint");
    if (y.sizes() != p.psi[0].expr.shape)
        fail("apply_adjoint: y is {} but {} is {}", y.shape_string(), e.to_string(), shape_string(p.psi[0].expr.shape));
    const Image out = lower::term_adjoint(p, y);
    std::vector<Image> parts = ir::split_state(p, out);
    std::map<std::string, Image> result;
    for (std::size_t j = 0; j < parts.size(); ++j) result.emplace(p.variables[j].name, std::move(parts[j]));
    return result;
}

double norm_bound(const Expr& e) { return plan::norm_bound(detail::node_of(e, "norm_bound").ir); }

double norm_estimate(const Expr& e) { return proxgen::detail::stacked_norm_estimate(problem_of(e, "norm_estimate")); }

OperatorFacts operator_facts(const Expr& e) {
    const catalogue::LinearFacts f = plan::linear_facts(detail::node_of(e, "operator_facts").ir);
    return {f.diagonal, f.gram_diagonal, f.fft_diagonal};
}

Image prox(const Problem& prob, double rho, const Image& v) {
    if (!(std::isfinite(rho) && rho > 0)) fail("prox: rho must be finite and > 0, got {}", rho);
    const Plan planned = plan(prob, Algorithm::pock_chambolle);
    const ir::Problem& p = planned.ir();
    if (p.variables.size() != 1)
        fail("prox: {} depends on {} variables; the prox is of a function of one", prob.to_string(),
             p.variables.size());
    const std::vector<const ir::Term*> terms = terms_of(p);
    if (terms.size() == 1 && !moves_elements(terms[0]->expr))
        fail("prox: after the planner's rules, the argument of {} is not its variable scaled elementwise and offset "
             "(nor moved by transposes and reshapes), so its prox is not the card's",
             terms[0]->text);
    for (const ir::Term* t : terms)
        if (terms.size() > 1 && !lower::projects_onto(*t))
            fail("prox: {} is {} terms after the planner's rules, and {} is not a constraint on the variable itself "
                 "(several terms have a prox here when all are such constraints)",
                 prob.to_string(), terms.size(), t->text);
    if (v.sizes() != p.variable_shape)
        fail("prox: v is {} but the variable is {}", v.shape_string(), shape_string(p.variable_shape));
    jit::Call call(lower::cached_kernel<Prox>(p, "apply.prox"));
    const lower::DataArgs data(p);
    data.bind(call);
    const float r = float(rho);
    call.in_state("x", v, ir::variable_shapes(p)).in("rho", r);
    Image out(p.variable_shape);
    call.out(0, out);
    call.run();
    return out;
}

}  // namespace proxgen::rt
