// What each typed linear/affine node is, mathematically: linear_traits<Node>::facts (identity?
// diagonal? diagonal in the DFT / DCT? ..., documented in plan/facts.hpp), computed at compile time
// by the node's combinator in plan/facts.hpp — the same function the run-time planner applies to
// IR nodes — plus the variable the expression depends on (a type: no_variable / several_variables
// when it has none or more than one).
// Numbers (‖K‖ bounds, min |d|) depend on data: the planner computes them on the IR
// (plan::norm_bound, plan::diagonal_min_abs).
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include "proxgen/dsl/linear.hpp"
#include "proxgen/plan/facts.hpp"

namespace proxgen::traits {

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

/// min and max of |w| over an image (the diagonal's range of an elementwise weight).
inline std::pair<double, double> abs_range(const Image& w) {
    double lo = INFINITY, hi = 0;
    const float* d = w.data();
    for (std::size_t i = 0; i < w.size(); ++i) {
        lo = std::min(lo, double(std::abs(d[i])));
        hi = std::max(hi, double(std::abs(d[i])));
    }
    return {lo, hi};
}

/// An operator of one operand keeps the operand's variable.
template <class E>
struct unary_traits {
    using variable = typename linear_traits<E>::variable;
};
template <class E>
inline constexpr plan::LinearFacts facts_of = linear_traits<E>::facts;

template <class Tag, int R>
struct linear_traits<dsl::variable_t<Tag, R>> {
    using variable = dsl::variable_t<Tag, R>;
    static constexpr plan::LinearFacts facts = plan::variable_facts();
};

template <class B>
constexpr ir::ConvBoundary conv_boundary() {
    return std::is_same_v<B, dsl::zero_boundary_t> ? ir::ConvBoundary::zero
           : std::is_same_v<B, dsl::replicate_t>   ? ir::ConvBoundary::replicate
                                                   : ir::ConvBoundary::circular;
}

template <class E, class B>
struct linear_traits<dsl::conv_t<E, B>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::conv_facts(facts_of<E>, conv_boundary<B>());
};

template <class E, class B, class A>
struct linear_traits<dsl::grad_t<E, B, A>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts =
        plan::grad_facts(facts_of<E>, dsl::grad_t<E, B, A>::periodic, std::is_same_v<A, dsl::xy_axes>);
};

template <class E>
struct linear_traits<dsl::mul_elemwise_t<E>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::mul_elemwise_facts(facts_of<E>);
};

template <class E>
struct linear_traits<dsl::scale_t<E>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::scale_facts(facts_of<E>);
};

/// Two operands: the variable of both (several_variables when they differ).
template <class A, class B>
struct binary_traits {
    using variable =
        typename merge_variables<typename linear_traits<A>::variable, typename linear_traits<B>::variable>::type;
};

template <class A, class B>
struct linear_traits<dsl::sum_t<A, B>> : binary_traits<A, B> {
    static constexpr plan::LinearFacts facts = plan::sum_facts(facts_of<A>, facts_of<B>);
};

template <class E>
struct linear_traits<dsl::subsample_t<E>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::subsample_facts(facts_of<E>);
};

template <class E>
struct linear_traits<dsl::offset_t<E>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::offset_facts(facts_of<E>);
};

}  // namespace proxgen::traits

// The wider catalogue: its nodes and traits (kept apart to keep this file short).
#include "proxgen/traits/catalogue_traits.hpp"
