// Traits of the wider operator catalogue (dsl/layout.hpp, dsl/sampling.hpp, dsl/color.hpp): each
// node's facts from its combinator in plan/facts.hpp. None of these is diagonal in space or in
// frequency for the planner; those that only move pixels keep a diagonal Gram matrix (KᵀK of a crop
// or a gather is a 0/1 or count mask, of a permutation or a zero padding the identity), which lets
// ADMM / HQS keep an elementwise x-update.
#pragma once

#include "proxgen/dsl/color.hpp"
#include "proxgen/dsl/layout.hpp"
#include "proxgen/dsl/sampling.hpp"
#include "proxgen/traits/linear_traits.hpp"

namespace proxgen::traits {

template <class E>
struct linear_traits<dsl::crop_t<E>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::crop_facts(facts_of<E>);
};
template <class E>
struct linear_traits<dsl::pad_t<E>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::pad_facts(facts_of<E>);
};
template <class E>
struct linear_traits<dsl::transpose_t<E>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::transpose_facts(facts_of<E>);
};
template <class E, int R>
struct linear_traits<dsl::reshape_t<E, R>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::reshape_facts(facts_of<E>);
};
template <class E>
struct linear_traits<dsl::uneven_subsample_t<E>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::uneven_subsample_facts(facts_of<E>);
};
template <class E>
struct linear_traits<dsl::warp_t<E>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::warp_facts(facts_of<E>);
};
template <class E>
struct linear_traits<dsl::mul_color_t<E>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::mul_color_facts(facts_of<E>);
};
template <class E>
struct linear_traits<dsl::pxwise_matmul_t<E>> : unary_traits<E> {
    static constexpr plan::LinearFacts facts = plan::pxwise_matmul_facts(facts_of<E>);
};
template <class A, class B>
struct linear_traits<dsl::concat_t<A, B>> : binary_traits<A, B> {
    static constexpr plan::LinearFacts facts = plan::concat_facts(facts_of<A>, facts_of<B>);
};

}  // namespace proxgen::traits
