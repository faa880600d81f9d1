// The typed spelling of cards that have no node type of their own: a card header offers
// pg::haar(x, 3) by calling typed::apply_card<its card>(e, args...) (declared in
// proxgen/catalogue/card.hpp), and a penalty card typed::apply_penalty<its card>(e, args...).
// The node keeps the IR its card built (checked when the typed expression is made, with the
// card's sentences; its first argument stands for the operand, any others are the card's own, as
// an offset's image) and its operand; its compile-time facts are the card's combinator of the
// operand's (`combine`), or nothing known when the card's facts need more than that.
#pragma once

#include <type_traits>
#include <utility>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/catalogue/penalty_support.hpp"
#include "proxgen/catalogue/ops/variable.hpp"
#include "proxgen/typed/penalty.hpp"
#include "proxgen/typed/traits.hpp"

namespace proxgen::dsl {

/// A node of card Card of rank R on operand E.
template <class Card, int R, class E>
struct card_t {
    using card = Card;
    static constexpr int rank = R;
    ir::Node node;  // the card's node, its operand a placeholder until to_ir
    E arg;
    std::vector<int> shape;
};
template <class Card, int R, class E> struct is_expression<card_t<Card, R, E>> : std::true_type {};

}  // namespace proxgen::dsl

namespace proxgen::traits {
template <class Card, int R, class E>
struct linear_traits<dsl::card_t<Card, R, E>> : unary_traits<E> {
    static constexpr LinearFacts facts = [] {
        if constexpr (requires { Card::combine(LinearFacts{}); }) return Card::combine(facts_of<E>);
        else return catalogue::moving_facts(facts_of<E>, false);
    }();
};
}  // namespace proxgen::traits

namespace proxgen::typed {

namespace detail {
/// The operand as its card sees it when building: a placeholder node of its shape.
inline ir::Node placeholder(const std::vector<int>& shape) {
    ir::Node n = catalogue::node<catalogue::ops::variable>(shape);
    n.variable = 0;
    return n;
}
}  // namespace detail

template <class Card, int Rank, class E, class... A>
auto apply_card(E e, A&&... args) {
    static_assert(dsl::Expression<E>, "a catalogue operator takes a linear or affine expression of a variable");
    ir::Node n = Card::make(detail::placeholder(dsl::shape_of(e)), std::forward<A>(args)...);
    constexpr int rank = [] {
        if constexpr (Rank > 0) return Rank;
        else if constexpr (requires { Card::typed_rank(E::rank); }) return Card::typed_rank(E::rank);
        else return E::rank;
    }();
    if (n.rank() != rank)
        fail("{}: the result has {} axes, not the {} its typed spelling declares", Card::name, n.rank(), rank);
    std::vector<int> shape = n.shape;
    return dsl::card_t<Card, rank, E>{std::move(n), std::move(e), std::move(shape)};
}

/// The term a penalty card builds on e's shape: its `make` where it has one (data, parameters),
/// else the plain term.
template <class Card, class E, class... A>
ir::Term penalty_term(const E& e, A&&... args) {
    ir::Node arg = detail::placeholder(dsl::shape_of(e));
    if constexpr (requires { Card::make(std::move(arg), std::forward<A>(args)...); })
        return Card::make(std::move(arg), std::forward<A>(args)...);
    else return catalogue::term<Card>(std::move(arg));
}

template <class Card, class E, class... A>
auto apply_penalty(E e, A&&... args) {
    static_assert(dsl::Expression<E>, "a catalogue penalty takes a linear or affine expression of a variable");
    const ir::Term t = penalty_term<Card>(e, std::forward<A>(args)...);
    return dsl::penalty_t<Card, E>{std::move(e), t.weight, t.beta, t.arg_weight, t.offset, t.data, t.constant, t.ints};
}

/// weighted_<name>(w, e): the card's term on e weighted by w, whose shape (e's, or e's without its
/// group axis) the run-time entry checks the same way.
template <class Card, class E, class... A>
auto apply_weighted_penalty(std::string_view op, const Image& w, const std::vector<int>& weight_shape, E e,
                            A&&... args) {
    static_assert(dsl::Expression<E>, "a catalogue penalty takes a linear or affine expression of a variable");
    const ir::Term t = catalogue::penalties::weighted(penalty_term<Card>(e, std::forward<A>(args)...),
                                                      catalogue::ImageArg{w, {}}, weight_shape, op);
    return dsl::penalty_t<Card, E, true>{std::move(e), t.weight, t.beta, t.arg_weight, t.offset, t.data, t.constant,
                                         t.ints};
}

}  // namespace proxgen::typed
