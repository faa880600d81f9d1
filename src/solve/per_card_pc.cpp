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

namespace proxgen::detail {

namespace cat = catalogue;

ir::Problem omega_alone(const ir::Problem& p) {
    ir::Problem q;
    q.algorithm = p.algorithm;
    q.variables = p.variables;
    q.variable_shape = p.variable_shape;
    q.omega = p.omega;
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
    if (p.algorithm != Algorithm::pock_chambolle)
        return fmt::format("{} has no per-card runner yet (Pock-Chambolle has)", name(p.algorithm));
    if (p.x_update == plan::XUpdate::cg || p.x_update == plan::XUpdate::pixel_block)
        return fmt::format("its x-update ({}) has no per-card form yet (closed-form, elementwise, FFT and DCT ones have)",
                           plan::name(p.x_update));
    std::string why;
    for (const auto& t : p.psi)
        ir::for_each_node(t.expr, [&](const ir::Node& n) {
            if (why.empty() && n.args.empty() && !n.is_variable() && !cat::is<cat::ops::constant>(n))
                why = fmt::format("{} holds a leaf that is neither a variable nor a constant", t.text);
        });
    return why;
}

}  // namespace proxgen::detail
