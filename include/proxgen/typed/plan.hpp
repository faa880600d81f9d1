// The typed front end's compile-time plan of a (normalized, see normalize.hpp) typed problem for
// one algorithm:
// which terms the x-update absorbs (Ω) and which are split off and proxed (Ψ), and how the x-update
// is done. plan_t<Problem, Algorithm> is a type, its static members the plan, evaluated by the
// constexpr decisions of plan/decide.hpp on the facts of the problem's term types — the very
// functions the run-time planner (plan/planner.hpp) evaluates on IR terms. Unplannable problems
// stop here with a static_assert sentence (proxgen/messages.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "proxgen/messages.hpp"
#include "proxgen/algorithm.hpp"
#include "proxgen/plan/decide.hpp"
#include "proxgen/typed/penalty.hpp"
#include "proxgen/typed/traits.hpp"

namespace proxgen::plan {

/// The facts of a typed term.
template <class Term>
constexpr TermFacts term_facts() {
    return {Term::card::facts, traits::linear_traits<typename Term::argument_type>::facts, Term::weighted};
}

template <class Problem, Algorithm A>
struct plan_t;

template <class... Terms, Algorithm A>
struct plan_t<dsl::problem_t<Terms...>, A> {
    static constexpr Algorithm algorithm = A;
    static constexpr std::size_t size = sizeof...(Terms);
    static_assert(size > 0, PROXGEN_MSG_NO_TERMS);

    template <class Acc, class... Rest>
    struct common_variable { using type = Acc; };
    template <class Acc, class T, class... Rest>
    struct common_variable<Acc, T, Rest...>
        : common_variable<typename traits::merge_variables<
                              Acc, typename traits::linear_traits<typename T::argument_type>::variable>::type,
                          Rest...> {};

    /// traits::several_variables when the terms use two variables or more (the variables are
    /// stacked; each term keeps its own).
    using variable = typename common_variable<traits::no_variable, Terms...>::type;
    static_assert(!std::is_same_v<variable, traits::no_variable>, PROXGEN_MSG_NO_VARIABLE);
    static constexpr bool several_variables = std::is_same_v<variable, traits::several_variables>;

    template <class T>
    static constexpr TermFacts facts_of() {
        constexpr bool couples =
            std::is_same_v<typename traits::linear_traits<typename T::argument_type>::variable, traits::several_variables>;
        return several_variables ? separate_variables(term_facts<T>(), couples) : term_facts<T>();
    }
    static constexpr std::array<TermFacts, size> facts{facts_of<Terms>()...};
    static constexpr Decision decision = decide(facts, A);

    static constexpr bool spectral_prox = decision.spectral_prox;
    static constexpr bool spectral_dct = decision.spectral_dct;
    /// in_omega[i]: term i is absorbed by the x-update; otherwise it is split and proxed.
    static constexpr std::array<bool, size> in_omega{absorbed(facts_of<Terms>(), A, decision)...};
    static constexpr std::size_t omega_count = (std::size_t(0) + ... + std::size_t(absorbed(facts_of<Terms>(), A, decision)));
    static constexpr std::size_t psi_count = size - omega_count;

    static constexpr bool all_grad = decision.all_grad;
    static constexpr bool viable = decision.viable;
    static constexpr XUpdate x_update = decision.x_update;
};

/// The reason a plan is not viable, for the run-time error of pg::solve and the static_assert of
/// pg::solve<Algorithm>.
inline constexpr const char* singular_x_update_message = PROXGEN_MSG_SINGULAR_X_UPDATE;

}  // namespace proxgen::plan
