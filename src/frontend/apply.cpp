// frontend::apply_linear: a linear run-time expression evaluated at a value of its variable, for
// making synthetic data (`proxgen apply`). It reads the expression's IR, which the run-time API
// keeps behind rt::Expr::node() (src/runtime/nodes.hpp), and evaluates it with the lowering's own
// single-operator evaluator (proxgen/lower/evaluate.hpp).
#include <fmt/format.h>

#include "../runtime/nodes.hpp"
#include "proxgen/catalogue/ops/constant.hpp"
#include "proxgen/frontend/problem_file.hpp"
#include "proxgen/lower/evaluate.hpp"

namespace proxgen::frontend {

namespace {
bool has_constant(const ir::Node& n) {
    if (catalogue::is<catalogue::ops::constant>(n)) return true;
    for (const auto& a : n.args)
        if (has_constant(a)) return true;
    return false;
}
}  // namespace

Image apply_linear(const rt::Expr& e, const Image& x) {
    if (e.empty()) fail("apply: the expression is empty");
    const std::vector<std::string> vars = e.variables();
    if (vars.size() != 1)
        fail("apply: the expression must depend on one variable, {} depends on {}", e.to_string(), vars.size());
    const ir::Node& n = e.node()->ir;
    if (has_constant(n))
        fail("apply: {} adds an image (an offset); apply evaluates linear expressions only (K x)", e.to_string());
    return lower::apply_linear(n, x);
}

}  // namespace proxgen::frontend
