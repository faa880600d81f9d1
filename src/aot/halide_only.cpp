// The Halide-only plan of a problem (see proxgen/aot/generator.hpp): the rule of plan_t's
// `closed_form` (a diagonal operator under a quadratic or a constraint) replayed on the IR, used
// when the compile-time plan chose a spectral x-update.
#include "proxgen/aot/generator.hpp"
#include "proxgen/error.hpp"
#include "slot_formulas.hpp"

namespace proxgen::aot {

namespace {

bool diagonal(const ir::Node& n) {
    switch (n.op) {
    case ir::Op::variable:
    case ir::Op::constant: return true;
    case ir::Op::scale:
    case ir::Op::mul_elemwise: return diagonal(n.args[0]);
    case ir::Op::sum: return diagonal(n.args[0]) && diagonal(n.args[1]);
    default: return false;
    }
}

bool closed_form(const ir::Term& t) {
    const bool quadratic = t.penalty == ir::Penalty::sum_squares;
    return diagonal(t.expr) && (quadratic || t.penalty == ir::Penalty::nonneg);
}

}  // namespace

ir::Problem halide_only(ir::Problem p) {
    if (p.algorithm != Algorithm::pock_chambolle)
        fail("ahead-of-time solvers: only pock_chambolle has a generated loop so far, not {}", name(p.algorithm));
    if (!plan::spectral(p.x_update)) return p;
    std::vector<ir::Term> all = std::move(p.omega);
    for (auto& t : p.psi) all.push_back(std::move(t));
    p.omega.clear();
    p.psi.clear();
    for (auto& t : all) (closed_form(t) ? p.omega : p.psi).push_back(std::move(t));
    p.x_update = plan::XUpdate::closed_form_prox;
    ir::assign_slots(p);
    p.omega_strong_convexity = strong_convexity(p);
    return p;
}

}  // namespace proxgen::aot
