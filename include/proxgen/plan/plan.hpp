// The compile-time plan: which terms the x-update absorbs in closed form (Ω) and which are split
// off and proxed (Ψ), decided from traits alone. plan_t<Problem> is a type; its static members
// are the plan. Unplannable problems stop here with a static_assert sentence.
#pragma once

#include <array>
#include <cstddef>

#include <boost/hana/size.hpp>
#include <boost/hana/tuple.hpp>

#include "proxgen/dsl/penalty.hpp"
#include "proxgen/traits/linear_traits.hpp"
#include "proxgen/traits/penalty_traits.hpp"

namespace proxgen::plan {

/// Ω rule: a quadratic of a diagonal operator (‖d ⊙ x + c‖²) or a constraint x ≥ 0 on the bare
/// variable has a closed-form joint prox (per pixel: a scalar quadratic, then a clamp).
template <class Term>
struct term_rule {
    using arg = typename Term::argument_type;
    using lt = traits::linear_traits<arg>;
    using pt = traits::penalty_traits<Term::kind>;
    static constexpr bool in_omega = (pt::is_quadratic && lt::is_diagonal) ||
                                     (Term::kind == dsl::penalty_kind::nonneg && lt::is_identity);
    using variable = typename lt::variable;
};

template <class Problem>
struct plan_t;

template <class... Terms>
struct plan_t<dsl::problem_t<Terms...>> {
    static constexpr std::size_t size = sizeof...(Terms);
    static_assert(size > 0, "a problem needs at least one penalty term");

    /// in_omega[i]: term i is solved in the x-update; otherwise it is split and proxed.
    static constexpr std::array<bool, size> in_omega{term_rule<Terms>::in_omega...};
    static constexpr std::size_t omega_count = (std::size_t(0) + ... + std::size_t(term_rule<Terms>::in_omega));
    static constexpr std::size_t psi_count = size - omega_count;

    template <class Acc, class... Rest>
    struct common_variable { using type = Acc; };
    template <class Acc, class T, class... Rest>
    struct common_variable<Acc, T, Rest...>
        : common_variable<typename traits::merge_variables<Acc, typename term_rule<T>::variable>::type, Rest...> {};

    using variable = typename common_variable<traits::no_variable, Terms...>::type;
    static_assert(!std::is_same_v<variable, traits::several_variables>,
                  "ProxGen solves problems in one variable for now, and this problem's terms use "
                  "two different variables");
    static_assert(!std::is_same_v<variable, traits::no_variable>,
                  "this problem has no variable: every term is a constant");
};

}  // namespace proxgen::plan
