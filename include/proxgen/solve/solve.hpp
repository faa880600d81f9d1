// pg::solve, pg::objective, pg::describe: the typed entry points. They check and plan the problem
// at compile time (plan_t), hand its run-time image (ir::Problem) to the library, and map the
// result back to the problem's variable.
#pragma once

#include <string>
#include <typeindex>

#include "proxgen/lower/to_ir.hpp"
#include "proxgen/solve/options.hpp"
#include "proxgen/solve/result.hpp"

namespace proxgen {

namespace detail {
Result solve_ir(const ir::Problem& p, const Options& opt, const Result* warm);
double objective_ir(const ir::Problem& p, const Image& x);
std::string describe_ir(const ir::Problem& p, Algorithm a);

template <class P>
auto planned(const P& prob) {
    static_assert(dsl::ProblemLike<P>,
                  "pg::solve takes a problem: a penalty such as sum_squares(x - b) or a sum of penalties");
    return dsl::as_problem(prob);
}
template <class P>
using variable_of = typename plan::plan_t<decltype(dsl::as_problem(std::declval<P>()))>::variable;
}  // namespace detail

/// JIT statistics for the whole process: pipelines compiled and cache hits.
struct JitStats {
    int pipelines_compiled = 0;
    int cache_hits = 0;
    double compile_seconds = 0;
};
JitStats jit_stats();

/// Solves the problem; plans at compile time, JIT-compiles (cached per problem structure and
/// algorithm), and runs on the host.
template <class P>
Result solve(const P& prob, const Options& opt = {}) {
    auto problem = detail::planned(prob);
    Result r = detail::solve_ir(lower::to_ir(problem), opt, nullptr);
    r.values.emplace(std::type_index(typeid(typename detail::variable_of<P>::tag)), r.x);
    return r;
}

/// Warm start from an earlier result of the same problem structure and algorithm: continues
/// from its x and its dual state (only x when the structure or algorithm differ).
template <class P>
Result solve(const P& prob, const Options& opt, const Result& warm) {
    auto problem = detail::planned(prob);
    Result r = detail::solve_ir(lower::to_ir(problem), opt, &warm);
    r.values.emplace(std::type_index(typeid(typename detail::variable_of<P>::tag)), r.x);
    return r;
}

/// The problem's objective at x, in float64 (indicators: 0 when satisfied up to a relative 1e-4,
/// +inf otherwise).
template <class P>
double objective(const P& prob, const Image& x) {
    return detail::objective_ir(lower::to_ir(detail::planned(prob)), x);
}
template <class P>
double objective(const P& prob, const Result& res) {
    return objective(prob, res.x);
}

/// A readable text of the plan: terms, Ω/Ψ, x-update, ‖K‖ bound and step sizes.
template <class P>
std::string describe(const P& prob, Algorithm a = Algorithm::pock_chambolle) {
    return detail::describe_ir(lower::to_ir(detail::planned(prob)), a);
}

}  // namespace proxgen
