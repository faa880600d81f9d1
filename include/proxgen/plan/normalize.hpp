// Applies the rewrite rules of plan/rules/ to every term until none applies, giving each term
// the generalised prox form α f(β w ⊙ K x + c) + d with K as simple as the rules can make it,
// then merges the quadratics that act on the same operator (one term each).
#pragma once

#include <boost/hana/transform.hpp>
#include <boost/hana/unpack.hpp>

#include "proxgen/plan/rules/absorb_offset.hpp"
#include "proxgen/plan/rules/absorb_scale.hpp"
#include "proxgen/plan/rules/absorb_weights.hpp"
#include "proxgen/plan/rules/merge_quadratics.hpp"

namespace proxgen::plan {

template <class Term>
auto normalize_term(Term t) {
    if constexpr (rules::absorb_offset::applies<Term>) return normalize_term(rules::absorb_offset::apply(std::move(t)));
    else if constexpr (rules::absorb_scale::applies<Term>) return normalize_term(rules::absorb_scale::apply(std::move(t)));
    else if constexpr (rules::absorb_weights::applies<Term>) return normalize_term(rules::absorb_weights::apply(std::move(t)));
    else return t;
}

template <class... Terms>
auto normalize(dsl::problem_t<Terms...> p) {
    auto terms = boost::hana::transform(std::move(p.terms), [](auto t) { return normalize_term(std::move(t)); });
    return rules::merge_quadratics::apply(boost::hana::unpack(std::move(terms), [](auto... ts) {
        return dsl::problem_t<decltype(ts)...>{boost::hana::make_tuple(std::move(ts)...)};
    }));
}

template <class P>
using normalized_t = decltype(normalize(std::declval<P>()));

}  // namespace proxgen::plan
