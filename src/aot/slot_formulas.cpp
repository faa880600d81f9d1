#include "slot_formulas.hpp"

#include <fmt/format.h>

#include "../solve/engine.hpp"
#include "proxgen/catalogue/card.hpp"
#include "proxgen/plan/planner.hpp"

namespace proxgen::aot {

using catalogue::card_of;
using catalogue::Code;

namespace {

std::vector<Code> extents(const ir::Node& n) {
    std::vector<std::vector<Code>> operands;
    for (const auto& a : n.args) operands.push_back(extents(a));
    return card_of(n).extents_code(n, operands);
}

std::string vector_code(const std::vector<Code>& e) {
    std::string s = "std::vector<int>{";
    for (std::size_t i = 0; i < e.size(); ++i) s += fmt::format("{}int({})", i ? ", " : "", e[i].text);
    return s + "}";
}

}  // namespace

std::string strong_convexity_code(const ir::Problem& p) { return "return " + plan::strong_convexity_code(p).text + ";"; }

std::string curvature_scale_code(const ir::Problem& p) {
    // the JIT's rule (detail::curvature_scale): summed within each coupled group, the largest group's
    std::string s = "double omega = 0;\n";
    for (const auto& block : detail::coupled_blocks(p, true)) {
        std::string group;
        for (const ir::Term* t : block) {
            const Code c = card_of(*t).curvature_code(*t);
            if (c.text == "0") continue;  // a non-smooth penalty adds nothing
            // the term's ||K|| as init tightened it
            const bool omega = t >= p.omega.data() && t < p.omega.data() + p.omega.size();
            const Code bound{omega ? fmt::format("omega_norms[{}]", t - p.omega.data())
                                   : fmt::format("psi_norms[{}]", t - p.psi.data())};
            const catalogue::Emitter d;
            group += fmt::format("            group += {};\n", (d.weight(*t) * d.beta(*t) * d.beta(*t) * bound * bound * c).text);
        }
        if (!group.empty())
            s += "        {\n            double group = 0;\n" + group + "            omega = group > omega ? group : omega;\n        }\n";
    }
    return s + "        return omega;";
}

std::string smooth_lipschitz_code(const ir::Problem& p) {
    // the JIT's rule (detail::smooth_lipschitz): Σ α β² ‖A‖² c over the gradient-step terms
    std::string s = "double lipschitz = 0;\n";
    const catalogue::Emitter d;
    for (const ir::Term* t : plan::gradient_terms(p)) {
        const Code bound{fmt::format("omega_norms[{}]", t - p.omega.data())};
        s += fmt::format("        lipschitz += {};\n",
                         (d.weight(*t) * d.beta(*t) * d.beta(*t) * bound * bound * card_of(*t).curvature_code(*t)).text);
    }
    return s + "        return lipschitz;";
}

std::string norm_bound_code(const ir::Node& n) { return plan::norm_bound_code(n).text; }

std::string shape_code(const ir::Node& n) { return vector_code(extents(n)); }

std::string image_shape_code(const ir::Node& n) {
    const std::vector<Code> e = card_of(n).image_extents_code(n, extents(n));
    return e.empty() ? std::string() : vector_code(e);
}

std::string shape_without_last_axis_code(const ir::Node& n) {
    std::vector<Code> e = extents(n);
    e.pop_back();
    return vector_code(e);
}

}  // namespace proxgen::aot
