// The Halide-only plan of a problem (see proxgen/aot/generator.hpp): the rule of plan_t's
// `closed_form` (a diagonal operator under a quadratic or a constraint) replayed on the IR, used
// when the compile-time plan chose a spectral x-update.
#include "proxgen/aot/generator.hpp"

#include <algorithm>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/error.hpp"
#include "proxgen/plan/planner.hpp"

namespace proxgen::aot {

namespace {

/// The closed-form rule of the planner (plan/decide.hpp, TermRule::closed_form) on the IR: a
/// diagonal operator under a quadratic or an interval constraint, of one variable (Ω terms of a
/// problem in several variables each read one: its block's prox).
bool closed_form(const ir::Term& t) {
    const catalogue::PenaltyFacts f = catalogue::card_of(t).facts();
    return plan::linear_facts(t.expr).diagonal && (f.quadratic || f.interval) && ir::variables_of(t.expr).size() == 1;
}

/// Whether the x-update (several variables: any variable's block) needs a transform.
bool spectral_update(const ir::Problem& p) {
    for (std::size_t j = 0; j < std::max<std::size_t>(1, p.variables.size()); ++j)
        if (plan::spectral(ir::block_update(p, int(j)))) return true;
    return false;
}

}  // namespace

ir::Problem halide_only(ir::Problem p) {
    // (every algorithm of the table has a generated loop) ADMM and HQS solve their spectral x-update
    // through the generated FFT passes
    if (!spectral_update(p) || !plan::linearized(p.algorithm)) return p;
    std::vector<ir::Term> all = std::move(p.omega);
    for (auto& t : p.psi) all.push_back(std::move(t));
    p.omega.clear();
    p.psi.clear();
    for (auto& t : all) (closed_form(t) ? p.omega : p.psi).push_back(std::move(t));
    p.x_update = plan::XUpdate::closed_form_prox;
    if (!p.blocks.empty()) p.blocks.assign(p.blocks.size(), plan::XUpdate::closed_form_prox);
    ir::assign_slots(p);
    p.omega_strong_convexity = plan::strong_convexity(p);
    return p;
}

}  // namespace proxgen::aot
