// The rewrite rules of plan/rules/ applied until none applies, giving each term the generalised
// prox form α f(β w ⊙ K x + c) + d with K as simple as the rules can make it, then the quadratics
// that act on the same operator merged (one term each).
//
// Each rule's decision is a constexpr function (rules::*::applies, plan::mergeable,
// plan::merge_targets) and its data folding ONE run-time function on the IR term
// (rules::*::apply, src/plan/rules.cpp). The run-time planner (plan/planner.hpp, plan::normalize)
// applies both to IR terms, for typed and run-time problems alike. Here the same decisions are
// evaluated on a typed problem's term types, giving the normalized problem *type* that plan_t
// plans at compile time; no data is touched here.
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "proxgen/catalogue/ops/mul_elemwise.hpp"
#include "proxgen/catalogue/ops/scale.hpp"
#include "proxgen/catalogue/ops/sum.hpp"
#include "proxgen/plan/rewrite.hpp"
#include "proxgen/typed/card_node.hpp"
#include "proxgen/typed/penalty.hpp"
#include "proxgen/typed/plan.hpp"

namespace proxgen::plan {

// ---- the typed shadow: term types after the rules --------------------------------------------

namespace typed {

template <class E> inline constexpr Root root_of = Root::other;
template <int R, class E>
inline constexpr Root root_of<dsl::card_t<catalogue::ops::sum::offset_form, R, E>> = Root::offset;
template <int R, class E> inline constexpr Root root_of<dsl::card_t<catalogue::ops::scale, R, E>> = Root::scale;
template <int R, class E>
inline constexpr Root root_of<dsl::card_t<catalogue::ops::mul_elemwise, R, E>> = Root::mul_elemwise;

/// The argument left once a rule has absorbed the root (the root's operand).
template <class E> struct operand { using type = E; };
template <class Card, int R, class E> struct operand<dsl::card_t<Card, R, E>> { using type = E; };

template <class Term>
struct normalized_term;

template <class K, class E, bool W>
struct normalized_term<dsl::penalty_t<K, E, W>> {
    static constexpr Rewrite rule = next_rewrite(root_of<E>, K::facts);
    using type = typename std::conditional_t<
        rule == Rewrite::none, std::type_identity<dsl::penalty_t<K, E, W>>,
        normalized_term<dsl::penalty_t<K, typename operand<E>::type, weighted_after(rule, W)>>>::type;
};

/// merge_quadratics on types: terms of one mergeable type are one operator (plan::merge_targets).
template <class... Terms>
struct merged {
    static constexpr std::size_t n = sizeof...(Terms);
    using tuple = std::tuple<Terms...>;
    static constexpr std::array<bool, n> mergeable{plan::mergeable(term_facts<Terms>())...};

    template <std::size_t... I>
    static constexpr std::array<std::array<bool, n>, n> same_table(std::index_sequence<I...>) {
        return {row<I>(std::index_sequence<I...>{})...};
    }
    template <std::size_t I, std::size_t... J>
    static constexpr std::array<bool, n> row(std::index_sequence<J...>) {
        return {std::is_same_v<std::tuple_element_t<I, tuple>, std::tuple_element_t<J, tuple>>...};
    }
    static constexpr auto same = same_table(std::make_index_sequence<n>{});

    struct grouping {
        std::array<std::size_t, n> target{};
        std::size_t count = 0;
    };
    static constexpr grouping groups = [] {
        grouping g;
        g.count = merge_targets(
            n, [](std::size_t i) { return mergeable[i]; }, [](std::size_t i, std::size_t j) { return same[i][j]; },
            g.target);
        return g;
    }();
    /// The first term of output group k.
    static constexpr std::size_t first_of(std::size_t k) {
        for (std::size_t i = 0; i < n; ++i)
            if (groups.target[i] == k) return i;
        return 0;
    }
    template <std::size_t... K>
    static auto make(std::index_sequence<K...>) -> dsl::problem_t<std::tuple_element_t<first_of(K), tuple>...>;
    using type = decltype(make(std::make_index_sequence<groups.count>{}));
};

template <class P>
struct normalized_problem;
template <class... Terms>
struct normalized_problem<dsl::problem_t<Terms...>> {
    using type = typename merged<typename normalized_term<Terms>::type...>::type;
};

}  // namespace typed

/// The type of a typed term after the rewrite rules.
template <class Term>
using normalized_term_t = typename typed::normalized_term<Term>::type;

/// The type of a typed problem (problem_t) after the rewrite rules and merge_quadratics: what
/// plan_t plans.
template <class P>
using normalized_t = typename typed::normalized_problem<P>::type;

}  // namespace proxgen::plan
