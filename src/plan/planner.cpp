// The run-time planner (plan/planner.hpp): normalize, decide, sort into Ω and Ψ.
#include "proxgen/plan/planner.hpp"

#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "proxgen/catalogue/card.hpp"
#include "../check/inputs.hpp"
#include "proxgen/error.hpp"
#include "proxgen/messages.hpp"
#include "proxgen/plan/decide.hpp"
#include "proxgen/plan/rewrite.hpp"

namespace proxgen::plan {

ir::Term normalize_term(ir::Term t) {
    for (;;) {
        switch (next_rewrite(root_of(t.expr), catalogue::card_of(t).facts())) {
        case Rewrite::none: return t;
        case Rewrite::absorb_offset: rules::absorb_offset::apply(t); break;
        case Rewrite::absorb_scale: rules::absorb_scale::apply(t); break;
        case Rewrite::absorb_weights: rules::absorb_weights::apply(t); break;
        }
    }
}

std::vector<ir::Term> normalize(std::vector<ir::Term> terms) {
    std::vector<TermFacts> facts;
    for (auto& t : terms) {
        t = normalize_term(std::move(t));
        facts.push_back(term_facts(t));
    }
    std::vector<std::size_t> group(terms.size());
    const std::size_t count = merge_targets(
        terms.size(), [&](std::size_t i) { return mergeable(facts[i]); },
        [&](std::size_t i, std::size_t j) { return rules::merge_quadratics::same_operator(terms[i].expr, terms[j].expr); },
        group);
    std::vector<ir::Term> out;
    out.reserve(count);
    for (std::size_t i = 0; i < terms.size(); ++i) {
        if (group[i] == out.size()) out.push_back(std::move(terms[i]));
        else rules::merge_quadratics::merge(out[group[i]], terms[i]);
    }
    return out;
}

namespace {

/// Every draft variable must be used by a term.
void check_variables(const Draft& d) {
    std::vector<bool> used(d.variables.size(), false);
    for (const auto& t : d.terms)
        ir::for_each_node(t.expr, [&](const ir::Node& n) {
            if (!n.is_variable()) return;
            PROXGEN_INTERNAL_ASSERT(n.variable >= 0 && std::size_t(n.variable) < d.variables.size());
            used[n.variable] = true;
        });
    bool any = false;
    for (bool u : used) any = any || u;
    if (!any) fail(PROXGEN_MSG_NO_VARIABLE);
    for (std::size_t i = 0; i < used.size(); ++i)
        if (!used[i]) fail("variable '{}' appears in no term of the problem", d.variables[i].name);
    for (std::size_t i = 0; i < d.variables.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (d.variables[i].name == d.variables[j].name)
                fail("two variables of the problem are both named '{}': give each variable its own name",
                     d.variables[i].name);
}

/// Whether the stacked Gram matrix of ADMM / HQS is a small block per pixel: a few variables of one
/// shape, and every term's operator diagonal (w ⊙ x + y couples x and y at each pixel and nowhere
/// else; a Ψ term's KᵀK and an Ω term's AᵀW²A then stay per pixel).
bool coupled_per_pixel(const std::vector<TermFacts>& facts, const ir::Problem& p) {
    if (p.variables.size() < 2 || p.variables.size() > std::size_t(max_pixel_block)) return false;
    for (const auto& v : p.variables)
        if (v.shape != p.variables.front().shape) return false;
    for (const auto& f : facts)
        if (!f.op.diagonal) return false;
    return true;
}

/// Several variables: where each term goes and each variable's block of the x-update. A block is
/// planned from the terms that read only its variable, as a problem in that variable alone would
/// be (so `sum_squares(conv(k, x) - b)` keeps its FFT solve beside an elementwise block). A term
/// that couples variables is split by PC and L-ADMM (Condat–Vũ keeps a coupling quadratic for its
/// gradient step); under ADMM and HQS, whose linear solve holds
/// every term's Gram, it couples the blocks, and then one joint decision is taken with
/// separate_variables' facts (a conjugate-gradient solve of the stack).
void plan_blocks(const std::vector<ir::Term>& terms, const std::vector<TermFacts>& facts, Algorithm a, ir::Problem& p,
                 std::vector<bool>& in_omega) {
    const std::size_t n = p.variables.size();
    std::vector<std::vector<int>> reads;
    bool coupled = false;
    for (const auto& t : terms) {
        reads.push_back(ir::variables_of(t.expr));
        coupled = coupled || reads.back().size() > 1;
    }
    if (!linearized(a) && coupled) {
        std::vector<TermFacts> separate;
        for (std::size_t i = 0; i < terms.size(); ++i) separate.push_back(separate_variables(facts[i], reads[i].size() > 1));
        const Decision d = decide(separate, a);
        if (!d.viable) fail("{}: {}", name(a), PROXGEN_MSG_SINGULAR_X_UPDATE);
        p.x_update = d.x_update == XUpdate::cg && coupled_per_pixel(facts, p) ? XUpdate::pixel_block : d.x_update;
        p.blocks.assign(n, p.x_update);
        for (std::size_t i = 0; i < terms.size(); ++i) in_omega[i] = absorbed(separate[i], a, d);
        return;
    }
    std::vector<Decision> block;
    for (std::size_t j = 0; j < n; ++j) {
        std::vector<TermFacts> own;
        for (std::size_t i = 0; i < terms.size(); ++i)
            if (reads[i] == std::vector<int>{int(j)}) own.push_back(facts[i]);
        block.push_back(decide(own, a));
        if (!block.back().viable) fail("{}: variable '{}': {}", name(a), p.variables[j].name, PROXGEN_MSG_SINGULAR_X_UPDATE);
    }
    // CG runs on the whole stack: a block that needs it takes the others along
    bool any_cg = false;
    for (const auto& d : block) any_cg = any_cg || d.x_update == XUpdate::cg;
    p.x_update = any_cg ? XUpdate::cg : block.front().x_update;
    for (const auto& d : block) {
        p.blocks.push_back(any_cg ? XUpdate::cg : d.x_update);
        if (!any_cg && spectral(d.x_update) && !spectral(p.x_update)) p.x_update = d.x_update;
    }
    // a coupling quadratic stays in Ω where the algorithm steps along its gradient (Condat–Vũ);
    // other coupling terms are split
    for (std::size_t i = 0; i < terms.size(); ++i)
        in_omega[i] = reads[i].size() == 1 ? absorbed(facts[i], a, block[std::size_t(reads[i].front())])
                                           : gradient_step(separate_variables(facts[i], true), a);
}

}  // namespace

ir::Problem plan(const Draft& draft, Algorithm a) {
    if (draft.terms.empty()) fail(PROXGEN_MSG_NO_TERMS);
    check_variables(draft);
    check::draft_data(draft);  // before the rules fold (and negate) any data
    std::vector<ir::Term> terms = normalize(draft.terms);
    std::vector<TermFacts> facts;
    for (const auto& t : terms) facts.push_back(term_facts(t));

    ir::Problem p;
    p.algorithm = a;
    p.variables = draft.variables;
    p.variable_shape = ir::state_shape(p);
    std::vector<bool> in_omega(terms.size());
    if (draft.variables.size() > 1) {
        plan_blocks(terms, facts, a, p, in_omega);
    } else {
        const Decision decision = decide(facts, a);
        if (!decision.viable) fail("{}: {}", name(a), PROXGEN_MSG_SINGULAR_X_UPDATE);
        p.x_update = decision.x_update;
        for (std::size_t i = 0; i < terms.size(); ++i) in_omega[i] = absorbed(facts[i], a, decision);
    }
    for (std::size_t i = 0; i < terms.size(); ++i) {
        ir::Term& t = terms[i];
        t.norm_bound = norm_bound(t.expr);
        t.text = ir::to_string(t);
        (in_omega[i] ? p.omega : p.psi).push_back(std::move(t));
    }
    p.omega_strong_convexity = strong_convexity(p);
    ir::assign_slots(p);
    return p;
}

}  // namespace proxgen::plan
