// Rule: α f(β w ⊙ (m ⊙ e) + c)  →  α f(β (w ⊙ m) ⊙ e + c)   for separable f
// (norm1(mul_elemwise(w, x)) becomes weighted_norm1(w, x): a weighted prox, no split operator).
// group_norm1 is not separable per element, so its weights stay in the operator.
#pragma once

#include "proxgen/dsl/penalty.hpp"
#include "proxgen/plan/rules/image_math.hpp"
#include "proxgen/traits/penalty_traits.hpp"

namespace proxgen::plan::rules {

struct absorb_weights {
    template <class T>
    struct matches : std::false_type {};
    template <dsl::penalty_kind K, class E, bool W>
    struct matches<dsl::penalty_t<K, dsl::mul_elemwise_t<E>, W>> : std::bool_constant<traits::is_separable<K>> {};
    template <class T>
    static constexpr bool applies = matches<T>::value;

    template <dsl::penalty_kind K, class E, bool W>
    static auto apply(dsl::penalty_t<K, dsl::mul_elemwise_t<E>, W> t) {
        Image w = product(t.arg_weight, t.arg.weight);
        return dsl::penalty_t<K, E, true>{std::move(t.arg.arg), t.weight, t.beta, w, t.offset, t.data, t.constant};
    }
};

}  // namespace proxgen::plan::rules
