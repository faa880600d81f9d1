// Rule: α f(β w ⊙ (s·e) + c)  →  α f((β s) w ⊙ e + c).
// The split operator loses its scalar; ‖K‖ and the Gram matrix no longer carry it.
#pragma once

#include "proxgen/dsl/penalty.hpp"

namespace proxgen::plan::rules {

struct absorb_scale {
    template <class T>
    struct matches : std::false_type {};
    template <dsl::penalty_kind K, class E, bool W>
    struct matches<dsl::penalty_t<K, dsl::scale_t<E>, W>> : std::bool_constant<true> {};
    template <class T>
    static constexpr bool applies = matches<T>::value;

    template <dsl::penalty_kind K, class E, bool W>
    static auto apply(dsl::penalty_t<K, dsl::scale_t<E>, W> t) {
        return dsl::penalty_t<K, E, W>{std::move(t.arg.arg), t.weight, t.beta * t.arg.factor, t.arg_weight, t.offset,
                                       t.data, t.constant};
    }
};

}  // namespace proxgen::plan::rules
