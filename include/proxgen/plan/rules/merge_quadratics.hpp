// Rule (problem level): quadratics acting on the same operator become one term.
//   α₁‖β₁ K x + c₁‖² + α₂‖β₂ K x + c₂‖²  →  A ‖K x + c‖² + d,
//   A = α₁β₁² + α₂β₂²,  c = (α₁β₁c₁ + α₂β₂c₂)/A,  d = α₁‖c₁‖² + α₂‖c₂‖² − A‖c‖²
// (d keeps the objective's value exact). "The same operator" must be provable from the type:
// K is built from the variable and grad only, which carry no data. Two conv(k, x) share a type
// whatever their kernels, so they are left apart (merging them would need a run-time check and a
// plan that changes with the data). Weighted quadratics are left apart too (their w differ).
#pragma once

#include <boost/hana/fold_left.hpp>
#include <boost/hana/index_if.hpp>
#include <boost/hana/optional.hpp>
#include <boost/hana/tuple.hpp>
#include <utility>

#include "proxgen/dsl/penalty.hpp"
#include "proxgen/plan/rules/image_math.hpp"

namespace proxgen::plan::rules {

struct merge_quadratics {
    /// K carries no data: equal types mean equal operators.
    template <class E>
    struct data_free : std::false_type {};
    template <class Tag, int R>
    struct data_free<dsl::variable_t<Tag, R>> : std::true_type {};
    template <class E, class B>
    struct data_free<dsl::grad_t<E, B>> : data_free<E> {};

    template <class T>
    struct mergeable : std::false_type {};
    template <class E>
    struct mergeable<dsl::penalty_t<dsl::penalty_kind::sum_squares, E, false>> : data_free<E> {};

    /// The merged term of two quadratics of the same type.
    template <class T>
    static T merge(const T& a, const T& b) {
        const double wa = double(a.weight) * a.beta, wb = double(b.weight) * b.beta;  // α β
        const double A = wa * a.beta + wb * b.beta;                                    // Σ α β²
        T m = a;
        m.weight = float(A);
        m.beta = 1.0f;
        m.constant = a.constant + b.constant;
        if (a.offset.empty() && b.offset.empty()) return m;
        if (!(A > 0)) {  // both weights 0: the sum is the constant alone
            m.offset = Image();
            m.constant += a.weight * sq(a.offset) + b.weight * sq(b.offset);
            return m;
        }
        const Image& shape = a.offset.empty() ? b.offset : a.offset;
        Image c(shape.sizes());
        for (std::size_t i = 0; i < c.size(); ++i) {
            const double ca = a.offset.empty() ? 0.0 : a.offset.data()[i];
            const double cb = b.offset.empty() ? 0.0 : b.offset.data()[i];
            c.data()[i] = float((wa * ca + wb * cb) / A);
        }
        m.offset = c;
        m.constant += a.weight * sq(a.offset) + b.weight * sq(b.offset) - A * sq(c);
        return m;
    }

    template <class... Terms>
    static auto apply(dsl::problem_t<Terms...> p) {
        namespace hana = boost::hana;
        auto merged = hana::fold_left(std::move(p.terms), hana::make_tuple(), [](auto acc, auto t) {
            using T = decltype(t);
            if constexpr (mergeable<T>::value) {
                auto at = hana::index_if(acc, [](const auto& e) {
                    return hana::bool_c<std::is_same_v<std::remove_cvref_t<decltype(e)>, T>>;
                });
                if constexpr (!hana::is_nothing(at)) {
                    constexpr std::size_t i = std::remove_cvref_t<decltype(at.value())>::value;
                    acc[hana::size_c<i>] = merge(acc[hana::size_c<i>], t);
                    return acc;
                } else {
                    return hana::append(std::move(acc), std::move(t));
                }
            } else {
                return hana::append(std::move(acc), std::move(t));
            }
        });
        return hana::unpack(std::move(merged), [](auto... ts) {
            return dsl::problem_t<decltype(ts)...>{hana::make_tuple(std::move(ts)...)};
        });
    }

private:
    static double sq(const Image& c) {
        double s = 0;
        for (std::size_t i = 0; i < c.size(); ++i) s += double(c.data()[i]) * c.data()[i];
        return s;
    }
};

}  // namespace proxgen::plan::rules
