// Facts and numbers of IR expressions for the run-time planner, each node's from its card: the
// facts through the cards' combinators (the ones the typed front end evaluates at compile time),
// the norm bounds and min |d| from the nodes' data — as numbers for the JIT and as code for
// generated solvers, from the same formulas.
#include <cmath>

#include <algorithm>
#include <limits>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/catalogue/ops/mul_elemwise.hpp"
#include "proxgen/catalogue/ops/scale.hpp"
#include "proxgen/catalogue/ops/sum.hpp"
#include "proxgen/plan/planner.hpp"

namespace proxgen::plan {

using catalogue::card_of;
using catalogue::Code;

Root root_of(const ir::Node& n) {
    if (catalogue::ops::sum::is_offset(n)) return Root::offset;
    if (catalogue::is<catalogue::ops::scale>(n)) return Root::scale;
    if (catalogue::is<catalogue::ops::mul_elemwise>(n)) return Root::mul_elemwise;
    return Root::other;
}

namespace {
/// f(n, the operands' values) over the expression, bottom up.
template <class V, class F>
V fold(const ir::Node& n, F f) {
    std::vector<V> operands;
    for (const auto& a : n.args) operands.push_back(fold<V>(a, f));
    return f(n, std::span<const V>(operands));
}
}  // namespace

LinearFacts linear_facts(const ir::Node& n) {
    return fold<LinearFacts>(n, [](const ir::Node& m, std::span<const LinearFacts> a) { return card_of(m).facts(m, a); });
}

TermFacts term_facts(const ir::Term& t) { return {card_of(t).facts(), linear_facts(t.expr), !t.arg_weight.empty()}; }

bool gradient_step(const ir::Problem& p, const ir::Term& t) {
    if (!gradient_steps(p.algorithm)) return false;
    TermFacts f = term_facts(t);
    if (p.variables.size() > 1) f = separate_variables(f, ir::variables_of(t.expr).size() > 1);
    return gradient_step(f, p.algorithm);
}

std::vector<const ir::Term*> gradient_terms(const ir::Problem& p) {
    std::vector<const ir::Term*> out;
    for (const auto& t : p.omega)
        if (gradient_step(p, t)) out.push_back(&t);
    return out;
}

bool has_gradient_steps(const ir::Problem& p) { return !gradient_terms(p).empty(); }

double norm_bound(const ir::Node& n) {
    return fold<double>(n, [](const ir::Node& m, std::span<const double> a) { return card_of(m).norm_bound(m, a); });
}

bool norm_bound_exact(const ir::Node& n) {
    using catalogue::NormTightness;
    const NormTightness t = fold<NormTightness>(n, [](const ir::Node& m, std::span<const NormTightness> a) {
        std::vector<LinearFacts> facts;
        for (const auto& arg : m.args) facts.push_back(linear_facts(arg));
        return NormTightness{card_of(m).norm_exact(m, a), card_of(m).facts(m, facts).scalar_identity};
    });
    return t.exact;
}

Code norm_bound_code(const ir::Node& n) {
    return fold<Code>(n, [](const ir::Node& m, std::span<const Code> a) { return card_of(m).norm_bound_code(m, a); });
}

double diagonal_min_abs(const ir::Node& n) {
    return fold<double>(n, [](const ir::Node& m, std::span<const double> a) { return card_of(m).diagonal_min_abs(m, a); });
}

Code diagonal_min_abs_code(const ir::Node& n) {
    return fold<Code>(n, [](const ir::Node& m, std::span<const Code> a) { return card_of(m).diagonal_min_abs_code(m, a); });
}

namespace {
/// The curvature of α‖β w ⊙ d ⊙ x + c‖² is 2α β² w² d²; terms add up. Only quadratics of diagonal
/// operators count (others have no per-pixel bound).
template <class D>
auto omega_strong_convexity(const ir::Problem& p, const D& d, auto dmin_of) {
    using V = typename D::value;
    using std::abs;
    V mu(0.0);
    for (const auto& t : p.omega) {
        if (!card_of(t).facts().quadratic || !linear_facts(t.expr).diagonal) continue;
        V dmin = dmin_of(t.expr) * abs(d.beta(t)) * d.arg_weight_abs_min(t);
        mu = mu + V(2.0) * d.weight(t) * dmin * dmin;
    }
    return mu;
}

/// Several variables: the stack is as strongly convex as its least strongly convex variable (each
/// Ω term reads one variable). The same rule computed now and written as generated code.
template <class D>
auto stacked_strong_convexity(const ir::Problem& p, const D& d, auto dmin_of) {
    using std::min;
    if (p.variables.size() <= 1) return omega_strong_convexity(p, d, dmin_of);
    auto of_variable = [&](std::size_t j) {
        ir::Problem one;
        for (const auto& t : p.omega)
            if (ir::variables_of(t.expr) == std::vector<int>{int(j)}) one.omega.push_back(t);
        return omega_strong_convexity(one, d, dmin_of);
    };
    auto mu = of_variable(0);
    for (std::size_t j = 1; j < p.variables.size(); ++j) mu = min(mu, of_variable(j));
    return mu;
}
}  // namespace

double strong_convexity(const ir::Problem& p) {
    return stacked_strong_convexity(p, catalogue::Numbers{}, [](const ir::Node& n) { return diagonal_min_abs(n); });
}

Code strong_convexity_code(const ir::Problem& p) {
    return stacked_strong_convexity(p, catalogue::Emitter{}, [](const ir::Node& n) { return diagonal_min_abs_code(n); });
}

}  // namespace proxgen::plan
