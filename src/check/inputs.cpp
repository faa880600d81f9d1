// The checks of options and data (src/check/inputs.hpp, proxgen/solve/options.hpp).
#include "inputs.hpp"

#include <atomic>

#include <fmt/format.h>

#include "../jit/kernel.hpp"
#include "proxgen/catalogue/ops/constant.hpp"
#include "proxgen/check/rules.hpp"
#include "proxgen/error.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/solve/options.hpp"

namespace proxgen {

void check_options(const Options& o) {
    auto one = [](const char* name, double value) {
        if (std::string m = rules::option(name, value); !m.empty()) throw Error("Options: " + m);
    };
    one("max_iters", o.max_iters);
    one("check_every", o.check_every);
    one("iterations_per_call", o.iterations_per_call);
    one("eps_abs", o.eps_abs);
    one("eps_rel", o.eps_rel);
    one("tau", o.tau);
    one("sigma", o.sigma);
    one("lambda", o.lambda);
    one("mu", o.mu);
    one("rho", o.rho);
    one("hqs_growth", o.hqs_growth);
    one("hqs_every", o.hqs_every);
    one("hqs_max_ratio", o.hqs_max_ratio);
    one("cg_tol", o.cg_tol);
    one("cg_max_iters", o.cg_max_iters);
    if (!o.x0.empty()) check::finite(o.x0, "Options: x0");
    for (const auto& [name, image] : o.x0_by_name) check::finite(image, fmt::format("Options: x0_by_name['{}']", name));
    if (!o.x0.empty() && !o.x0_by_name.empty())
        throw Error("Options: x0 and x0_by_name are both set: give the start one way (x0 for the whole state, "
                    "x0_by_name by variable)");
}

namespace check {

void finite(const Image& img, const std::string& what) {
    if (img.empty()) return;
    // every value finite, the common case, is read in pieces on the kernels' threads (a 17-term
    // 512² problem reads 34 MB of data twice before its first iteration); the sentence, which
    // names the first non-finite value, is made only where there is one
    std::atomic<bool> found{false};
    const float* d = img.data();
    jit::in_pieces(long(img.size()), long(img.size()), [&](long first, long last) {
        const std::size_t n = std::size_t(last - first);
        if (rules::first_non_finite(d + first, n) < n) found = true;
    });
    if (!found) return;
    if (std::string m = rules::finite_data(what, img.data(), img.sizes()); !m.empty()) throw Error(m);
}

void draft_data(const plan::Draft& draft) {
    for (const auto& t : draft.terms) {
        ir::for_each_node(t.expr, [](const ir::Node& n) {
            if (n.image.empty()) return;
            finite(n.image, !n.name.empty() ? fmt::format("input '{}'", n.name)
                            : catalogue::is<catalogue::ops::constant>(n)
                                ? std::string("the image of an offset (e + b or e - b)")
                                : fmt::format("{}: its {} image", ir::name(n), n.op->image_role()));
        });
        const std::string penalty(ir::name(t));
        finite(t.arg_weight, fmt::format("{}: its weight image", penalty));
        finite(t.offset, fmt::format("{}: its constant image", penalty));
        finite(t.data, fmt::format("{}: its data image", penalty));
    }
}

}  // namespace check
}  // namespace proxgen
