// Pock–Chambolle's per-card runner's pieces (per_card_pc.hpp), and which plans the per-card tier runs.
#include <cmath>
#include <deque>
#include <optional>

#include "per_card_pc.hpp"
#include "proxgen/catalogue/card.hpp"
#include "proxgen/catalogue/ops/constant.hpp"
#include "proxgen/catalogue/ops/variable.hpp"
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



std::string per_card_unsupported(const ir::Problem& p) {
    const bool quadratic = p.algorithm == Algorithm::admm || p.algorithm == Algorithm::hqs;
    if (p.x_update == plan::XUpdate::pixel_block || (p.x_update == plan::XUpdate::cg && !quadratic))
        return fmt::format("its x-update ({}) has no per-card form yet (closed-form, elementwise, FFT and DCT ones "
                           "have, and ADMM's and HQS's CG)",
                           plan::name(p.x_update));
    if (quadratic)
        for (const auto& t : p.omega)
            if (!catalogue::card_of(t).facts().quadratic)
                return fmt::format("its x-update absorbs {}, which is not quadratic", t.text);
    std::string why;
    for (const auto& t : p.psi)
        ir::for_each_node(t.expr, [&](const ir::Node& n) {
            if (why.empty() && n.args.empty() && !n.is_variable() && !cat::is<cat::ops::constant>(n))
                why = fmt::format("{} holds a leaf that is neither a variable nor a constant", t.text);
        });
    return why;
}

}  // namespace proxgen::detail
