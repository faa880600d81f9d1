// What each typed node is, mathematically: linear_traits<Node>::facts, computed at compile time by
// the combinator of the node's card (proxgen/catalogue/ops/*.hpp, `combine`) — the same function
// the run-time planner applies to IR nodes — plus the variable the expression depends on (a type:
// no_variable / several_variables when it has none or more than one). Numbers (‖K‖ bounds,
// min |d|) depend on data: the cards compute them on the IR.
#pragma once

#include <type_traits>
#include <utility>

#include "proxgen/catalogue/facts.hpp"
#include "proxgen/catalogue/ops/variable.hpp"
#include "proxgen/typed/color.hpp"
#include "proxgen/typed/layout.hpp"
#include "proxgen/typed/linear.hpp"
#include "proxgen/typed/sampling.hpp"

namespace proxgen::traits {

using catalogue::LinearFacts;

struct no_variable {};
struct several_variables {};

/// The variable of two subexpressions combined.
template <class A, class B>
struct merge_variables { using type = several_variables; };
template <class A>
struct merge_variables<A, A> { using type = A; };
template <class A>
struct merge_variables<A, no_variable> { using type = A; };
template <class B>
struct merge_variables<no_variable, B> { using type = B; };
template <>
struct merge_variables<no_variable, no_variable> { using type = no_variable; };

template <class E>
struct linear_traits;

/// An operator of one operand keeps the operand's variable.
template <class E>
struct unary_traits {
    using variable = typename linear_traits<E>::variable;
};
template <class E>
inline constexpr LinearFacts facts_of = linear_traits<E>::facts;

/// Two operands: the variable of both (several_variables when they differ).
template <class A, class B>
struct binary_traits {
    using variable =
        typename merge_variables<typename linear_traits<A>::variable, typename linear_traits<B>::variable>::type;
};

template <class Tag, int R>
struct linear_traits<dsl::variable_t<Tag, R>> {
    using variable = dsl::variable_t<Tag, R>;
    static constexpr LinearFacts facts = catalogue::ops::variable::combine();
};

template <class B>
constexpr catalogue::ops::conv::Boundary conv_boundary() {
    using Boundary = catalogue::ops::conv::Boundary;
    return std::is_same_v<B, dsl::zero_boundary_t> ? Boundary::zero
           : std::is_same_v<B, dsl::replicate_t>   ? Boundary::replicate
                                                   : Boundary::circular;
}

template <class E, class B>
struct linear_traits<dsl::conv_t<E, B>> : unary_traits<E> {
    static constexpr LinearFacts facts = catalogue::ops::conv::combine(facts_of<E>, conv_boundary<B>());
};
template <class E, class B, class A>
struct linear_traits<dsl::grad_t<E, B, A>> : unary_traits<E> {
    static constexpr LinearFacts facts =
        catalogue::ops::grad::combine(facts_of<E>, dsl::grad_t<E, B, A>::periodic, std::is_same_v<A, dsl::xy_axes>);
};
template <class A, class B>
struct linear_traits<dsl::sum_t<A, B>> : binary_traits<A, B> {
    static constexpr LinearFacts facts = catalogue::ops::sum::combine(facts_of<A>, facts_of<B>);
};
template <class A, class B>
struct linear_traits<dsl::concat_t<A, B>> : binary_traits<A, B> {
    static constexpr LinearFacts facts = catalogue::ops::concat::combine(facts_of<A>, facts_of<B>);
};

}  // namespace proxgen::traits
