// Rule: α f(β w ⊙ (e ± b) + c)  →  α f(β w ⊙ e + c'),  c' = c ± β w ⊙ b.
// The split operator loses its constant; the prox sees a translated argument instead.
// (For group_norm1, w weighs whole groups and stays out of the argument: c' = c ± β b.)
#pragma once

#include "proxgen/dsl/penalty.hpp"
#include "proxgen/plan/rules/image_math.hpp"

namespace proxgen::plan::rules {

struct absorb_offset {
    template <class T>
    struct matches : std::false_type {};
    template <dsl::penalty_kind K, class E, bool W>
    struct matches<dsl::penalty_t<K, dsl::offset_t<E>, W>> : std::bool_constant<true> {};
    template <class T>
    static constexpr bool applies = matches<T>::value;

    template <dsl::penalty_kind K, class E, bool W>
    static auto apply(dsl::penalty_t<K, dsl::offset_t<E>, W> t) {
        const bool grouped = K == dsl::penalty_kind::group_norm1;
        Image c = axpy(t.offset, t.beta * t.arg.sign, grouped ? Image() : t.arg_weight, t.arg.offset);
        return dsl::penalty_t<K, E, W>{std::move(t.arg.arg), t.weight, t.beta, t.arg_weight, c, t.data, t.constant};
    }
};

}  // namespace proxgen::plan::rules
