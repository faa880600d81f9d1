// pg::solve, pg::objective, pg::describe: the typed front end's entry points. They check the
// problem at compile time (plan_t: its static_asserts, evaluated on the types by the planner's
// constexpr decisions), write its terms as IR (typed::to_draft), let the one run-time planner (plan::plan, shared with
// proxgen/runtime.hpp) make the planned ir::Problem, hand it to the library, and map the result
// back to the problem's variable.
#pragma once

#include <optional>

#include <functional>

#include <string>
#include <typeindex>
#include <utility>

#include "proxgen/messages.hpp"
#include "proxgen/plan/planner.hpp"
#include "proxgen/typed/normalize.hpp"
#include "proxgen/typed/plan.hpp"
#include "proxgen/typed/to_ir.hpp"
#include "proxgen/solve/jit_stats.hpp"
#include "proxgen/solve/options.hpp"
#include "proxgen/solve/result.hpp"

namespace proxgen {

namespace detail {
/// Runs the planned problem with its own algorithm (p.algorithm; opt.algorithm is not read).
Result solve_ir(const ir::Problem& p, const Options& opt, const Result* warm);
/// The objective at x by the kernel of the problem's whole structure.
double objective_ir(const ir::Problem& p, const Image& x);
/// The objective at x asked for once (pg::objective, rt::objective, `proxgen objective`): each term
/// by the kernels of its cards where it applies node by node, else as objective_ir.
double objective_once(const ir::Problem& p, const Image& x);
std::string describe_ir(const ir::Problem& p);
/// Algorithm::automatic (src/solve/automatic.cpp): plan_for gives each candidate's plan (nullopt:
/// its x-update would be singular; a proxgen::Error: why it cannot be planned); probes them,
/// continues the chosen one, numbering its iterations after the probe's; Result::choice says which
/// and why.
Result solve_automatic(const std::function<std::optional<ir::Problem>(Algorithm)>& plan_for, const Options& opt,
                       const Result* warm);
/// The probe alone: why, and the chosen plan's description.
std::string describe_automatic(const std::function<std::optional<ir::Problem>(Algorithm)>& plan_for);

/// The problem as a problem_t (a lone penalty is a one-term problem). The rewrite rules run in
/// plan_for (plan::plan); the name stays for the generator's entry point.
template <class P>
auto normalized(const P& prob) {
    static_assert(dsl::ProblemLike<P>, PROXGEN_MSG_SOLVE_TAKES_PROBLEM);
    return dsl::as_problem(prob);
}
template <class P>
using normalized_problem_t = plan::normalized_t<decltype(normalized(std::declval<P>()))>;
template <class P, Algorithm A = Algorithm::pock_chambolle>
using plan_of = plan::plan_t<normalized_problem_t<P>, A>;
template <class P>
using variable_of = typename plan_of<P>::variable;

/// The planned IR for algorithm A: plan_t checks the problem at compile time, plan::plan plans it
/// (an unviable plan is a run-time error here, a compile-time one through pg::solve<A>). Both
/// evaluate the same decisions; the run-time plan must agree with the compile-time one.
template <Algorithm A, class... Terms>
ir::Problem plan_for(const dsl::problem_t<Terms...>& problem) {
    using Plan = plan::plan_t<plan::normalized_t<dsl::problem_t<Terms...>>, A>;
    ir::Problem p = plan::plan(typed::to_draft(problem), A);
    // (several variables: the blocks are planned at run time; plan_t checks what types can)
    PROXGEN_INTERNAL_ASSERT(Plan::several_variables || (Plan::viable && p.x_update == Plan::x_update &&
                                                        p.omega.size() == Plan::omega_count &&
                                                        p.psi.size() == Plan::psi_count));
    return p;
}
/// Algorithm a's plan of n when it is viable at compile time (nullopt where its x-update would be
/// singular), for every algorithm of algorithm_table: the typed front end dispatches a run-time
/// Algorithm to plan_for<A> through the table, never through a switch of its own.
template <Algorithm A, class N>
std::optional<ir::Problem> viable_plan(const N& n) {
    if constexpr (plan::plan_t<plan::normalized_t<N>, A>::viable) return plan_for<A>(n);
    return std::nullopt;
}
template <class N, std::size_t... I>
std::optional<ir::Problem> viable_plan(const N& n, Algorithm a, std::index_sequence<I...>) {
    std::optional<ir::Problem> p;
    ((a == algorithm_table[I].algorithm ? (p = viable_plan<algorithm_table[I].algorithm>(n), true) : false) || ...);
    return p;
}
template <class N>
std::optional<ir::Problem> viable_plan(const N& n, Algorithm a) {
    if (a == Algorithm::automatic) fail("automatic: the algorithm is chosen when solving (Result::choice); plan one by name");
    return viable_plan(n, a, std::make_index_sequence<algorithm_table.size()>{});
}

template <class N>
ir::Problem plan_for(const N& n, Algorithm a) {
    // unviable at compile time: not plan_for<A> (which asserts viability), but the planner, whose
    // run-time error says why
    if (std::optional<ir::Problem> p = viable_plan(n, a)) return std::move(*p);
    return plan::plan(typed::to_draft(n), a);
}

/// Each candidate's plan for Algorithm::automatic; nullopt where its x-update is singular or the
/// algorithm is not one automatic probes (HQS).
template <class N>
std::function<std::optional<ir::Problem>(Algorithm)> candidate_plans(const N& n) {
    return [n](Algorithm a) -> std::optional<ir::Problem> {
        if (a == Algorithm::hqs || a == Algorithm::automatic) return std::nullopt;
        return viable_plan(n, a);
    };
}

/// Each variable's value in r.values, by its tag (several variables: copied out of the stacked x).
template <class N>
void store_values(const N& n, Result& r) {
    std::vector<std::type_index> tags;
    const plan::Draft d = typed::to_draft(n, &tags);
    const std::vector<Image> values = ir::split_state(d.variables, r.x);
    for (std::size_t i = 0; i < tags.size(); ++i) r.values.insert_or_assign(tags[i], values[i]);
}

template <class P>
Result solve_with(const P& prob, const Options& opt, const Result* warm) {
    Result r = opt.algorithm == Algorithm::automatic
                   ? solve_automatic(candidate_plans(normalized(prob)), opt, warm)
                   : solve_ir(plan_for(normalized(prob), opt.algorithm), opt, warm);
    store_values(normalized(prob), r);
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
    static_assert(detail::plan_of<P, A>::viable, PROXGEN_MSG_SINGULAR_X_UPDATE);
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
    return detail::objective_once(detail::plan_for<Algorithm::pock_chambolle>(detail::normalized(prob)), x);
}
template <class P>
double objective(const P& prob, const Result& res) {
    return objective(prob, res.x);
}

/// A readable text of the plan: terms, Ω/Ψ, x-update, ‖K‖ bound and step sizes.
template <class P>
std::string describe(const P& prob, Algorithm a = Algorithm::pock_chambolle) {
    if (a == Algorithm::automatic) return detail::describe_automatic(detail::candidate_plans(detail::normalized(prob)));
    return detail::describe_ir(detail::plan_for(detail::normalized(prob), a));
}

}  // namespace proxgen
