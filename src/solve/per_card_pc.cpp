// Pock–Chambolle's per-card runner's pieces (per_card_pc.hpp).
#include <cmath>
#include <deque>
#include <optional>

#include "per_card_pc.hpp"
#include "proxgen/catalogue/card.hpp"
#include "proxgen/catalogue/penalties/sum_squares.hpp"
#include "proxgen/error.hpp"
#include "proxgen/plan/planner.hpp"

namespace proxgen::detail {

namespace cat = catalogue;

ir::Problem omega_alone(const ir::Problem& p) {
    ir::Problem q;
    q.algorithm = Algorithm::pock_chambolle;  // (its primal step: the same for linearized ADMM's x-update)
    q.variables = p.variables;
    q.variable_shape = p.variable_shape;
    for (const ir::Term& t : p.omega)  // (Condat–Vũ's gradient-step terms: PerCardQuadratic's)
        if (!plan::gradient_step(p, t)) q.omega.push_back(t);
    q.omega_strong_convexity = p.omega_strong_convexity;
    q.x_update = p.x_update;
    q.blocks = p.blocks;
    const auto shapes = ir::variable_shapes(p);
    for (std::size_t j = 0; j < shapes.size(); ++j)
        q.psi.push_back(cat::term<cat::penalties::sum_squares>(
            stand_in(int(j), shapes[j], p.variables.empty() ? "x" : p.variables[j].name)));
    ir::assign_slots(q);
    return q;
}

jit::KernelPtr pc_kernel(const ir::Problem& q, const std::string& role, Halide::Pipeline PCPipelines::*which) {
    return lower::cached_kernel(role + ":" + ir::signature(q), lower::embeds_process_local_code(q), [&] {
        PCPipelines pipes(q);
        return jit::Source{pipes.*which, pipes.arguments()};
    });
}

}  // namespace proxgen::detail
