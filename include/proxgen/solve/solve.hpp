// pg::solve, pg::objective, pg::describe: the typed entry points. They check and plan the problem
// at compile time (plan_t), hand its run-time image (ir::Problem) to the library, and map the
// result back to the problem's variable.
#pragma once

#include <string>
#include <typeindex>

#include "proxgen/lower/to_ir.hpp"
#include "proxgen/solve/jit_stats.hpp"
#include "proxgen/solve/options.hpp"
#include "proxgen/solve/result.hpp"

namespace proxgen {

namespace detail {
Result solve_ir(const ir::Problem& p, const Options& opt, const Result* warm);
double objective_ir(const ir::Problem& p, const Image& x);
std::string describe_ir(const ir::Problem& p);

template <class P>
auto normalized(const P& prob) {
    static_assert(dsl::ProblemLike<P>,
                  "pg::solve takes a problem: a penalty such as sum_squares(x - b) or a sum of penalties");
    return plan::normalize(dsl::as_problem(prob));
}
template <class P>
using normalized_problem_t = decltype(normalized(std::declval<P>()));
template <class P, Algorithm A = Algorithm::pock_chambolle>
using plan_of = plan::plan_t<normalized_problem_t<P>, A>;
template <class P>
using variable_of = typename plan_of<P>::variable;

/// The IR of the plan for algorithm A; an unviable plan is a run-time error here (and a
/// compile-time one through pg::solve<A>).
template <Algorithm A, class N>
ir::Problem plan_for(const N& normalized_problem) {
    if constexpr (!plan::plan_t<N, A>::viable) {
        fail("{}: {}", name(A), plan::singular_x_update_message);
        return {};
    } else {
        return lower::to_ir<A>(normalized_problem);
    }
}
template <class N>
ir::Problem plan_for(const N& n, Algorithm a) {
    switch (a) {
    case Algorithm::admm: return plan_for<Algorithm::admm>(n);
    case Algorithm::ladmm: return plan_for<Algorithm::ladmm>(n);
    case Algorithm::hqs: return plan_for<Algorithm::hqs>(n);
    case Algorithm::pock_chambolle: break;
    }
    return plan_for<Algorithm::pock_chambolle>(n);
}

template <class P>
Result solve_with(const P& prob, const Options& opt, const Result* warm) {
    Result r = solve_ir(plan_for(normalized(prob), opt.algorithm), opt, warm);
    r.values.emplace(std::type_index(typeid(typename variable_of<P>::tag)), r.x);
    return r;
}
}  // namespace detail


/// Solves the problem; plans at compile time, JIT-compiles (cached per problem structure and
/// algorithm), and runs on the host.
template <class P>
Result solve(const P& prob, const Options& opt = {}) {
    return detail::solve_with(prob, opt, nullptr);
}

/// The same with the algorithm fixed at compile time: an unplannable problem for A is a
/// compile-time error. (opt.algorithm is ignored.)
template <Algorithm A, class P>
Result solve(const P& prob, Options opt = {}) {
    static_assert(detail::plan_of<P, A>::viable, "ADMM and HQS solve the x-update as a linear system, which is "
                  "singular when every term applies grad (constant images are in its null space): add a term "
                  "such as sum_squares(x - b) or use pock_chambolle / ladmm");
    opt.algorithm = A;
    return detail::solve_with(prob, opt, nullptr);
}

/// Warm start from an earlier result of the same problem structure and algorithm: continues
/// from its x and its dual state (only x when the structure or algorithm differ).
template <class P>
Result solve(const P& prob, const Options& opt, const Result& warm) {
    return detail::solve_with(prob, opt, &warm);
}

/// The problem's objective at x, in float64 (indicators: 0 when satisfied up to a relative 1e-4,
/// +inf otherwise).
template <class P>
double objective(const P& prob, const Image& x) {
    return detail::objective_ir(detail::plan_for<Algorithm::pock_chambolle>(detail::normalized(prob)), x);
}
template <class P>
double objective(const P& prob, const Result& res) {
    return objective(prob, res.x);
}

/// A readable text of the plan: terms, Ω/Ψ, x-update, ‖K‖ bound and step sizes.
template <class P>
std::string describe(const P& prob, Algorithm a = Algorithm::pock_chambolle) {
    return detail::describe_ir(detail::plan_for(detail::normalized(prob), a));
}

}  // namespace proxgen
