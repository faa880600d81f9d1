// Penalty nodes and problems. A penalty is weight · f(expression); a problem is a sum of
// penalties, kept in a hana::tuple so that the planner can sort its terms at compile time.
#pragma once

#include <boost/hana/append.hpp>
#include <boost/hana/concat.hpp>
#include <boost/hana/transform.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include "proxgen/dsl/linear.hpp"

namespace proxgen::dsl {

enum class penalty_kind { sum_squares, norm1, group_norm1, nonneg };

/// weight · f(arg), f one of penalty_kind.
template <penalty_kind Kind, class E>
struct penalty_t {
    static constexpr penalty_kind kind = Kind;
    using argument_type = E;
    E arg;
    float weight = 1.0f;
};

/// Σ terms: every term a penalty_t.
template <class... Terms>
struct problem_t {
    boost::hana::tuple<Terms...> terms;
};

template <class T> struct is_penalty : std::false_type {};
template <penalty_kind K, class E> struct is_penalty<penalty_t<K, E>> : std::true_type {};
template <class T> struct is_problem : std::false_type {};
template <class... T> struct is_problem<problem_t<T...>> : std::true_type {};

template <class T>
concept Penalty = is_penalty<std::remove_cvref_t<T>>::value;
template <class T>
concept Problem = is_problem<std::remove_cvref_t<T>>::value;
template <class T>
concept ProblemLike = Penalty<T> || Problem<T>;

/// Every problem-like thing as a problem_t (a lone penalty becomes a one-term problem).
template <Penalty P>
auto as_problem(P p) { return problem_t<P>{boost::hana::make_tuple(std::move(p))}; }
template <Problem P>
P as_problem(P p) { return p; }

inline float checked_weight(double w) {
    if (!std::isfinite(w) || w < 0)
        fail("scalar * penalty: a penalty's weight must be finite and non-negative, got {}", w);
    return static_cast<float>(w);
}

template <Scalar S, penalty_kind K, class E>
auto operator*(S s, penalty_t<K, E> p) {
    p.weight *= checked_weight(static_cast<double>(s));
    return p;
}
template <penalty_kind K, class E, Scalar S>
auto operator*(penalty_t<K, E> p, S s) { return s * std::move(p); }

template <Scalar S, class... T>
auto operator*(S s, problem_t<T...> p) {
    const float w = checked_weight(static_cast<double>(s));
    auto scaled = boost::hana::transform(std::move(p.terms), [w](auto t) { t.weight *= w; return t; });
    return boost::hana::unpack(std::move(scaled), [](auto... ts) {
        return problem_t<decltype(ts)...>{boost::hana::make_tuple(std::move(ts)...)};
    });
}

template <ProblemLike A, ProblemLike B>
auto operator+(A a, B b) {
    auto terms = boost::hana::concat(as_problem(std::move(a)).terms, as_problem(std::move(b)).terms);
    return boost::hana::unpack(std::move(terms), [](auto... ts) {
        return problem_t<decltype(ts)...>{boost::hana::make_tuple(std::move(ts)...)};
    });
}

// Mixing a penalty with a linear expression is a common slip; say so instead of a wall of
// overload-resolution notes.
template <class T> inline constexpr bool always_false = false;
template <ProblemLike A, Expression B>
auto operator+(A, B) {
    static_assert(always_false<B>,
                  "a problem is a sum of penalties: wrap the expression in a penalty such as "
                  "sum_squares(...) before adding it");
}
template <Expression A, ProblemLike B>
auto operator+(A, B) {
    static_assert(always_false<A>,
                  "a problem is a sum of penalties: wrap the expression in a penalty such as "
                  "sum_squares(...) before adding it");
}

template <penalty_kind K, class E>
auto make_penalty(E e) { return penalty_t<K, E>{std::move(e), 1.0f}; }

}  // namespace proxgen::dsl

namespace proxgen {

/// ‖e‖²
template <class E>
auto sum_squares(E e) {
    static_assert(dsl::Expression<E>, "sum_squares takes a linear or affine expression of a variable");
    return dsl::make_penalty<dsl::penalty_kind::sum_squares>(std::move(e));
}
/// ‖e‖₁
template <class E>
auto norm1(E e) {
    static_assert(dsl::Expression<E>, "norm1 takes a linear or affine expression of a variable");
    return dsl::make_penalty<dsl::penalty_kind::norm1>(std::move(e));
}
/// Σ over all but the last axis of the 2-norm along the last axis: isotropic TV for grad(x).
template <class E>
auto group_norm1(E e) {
    static_assert(dsl::Expression<E>, "group_norm1 takes a linear or affine expression of a variable");
    static_assert(E::rank >= 3,
                  "group_norm1 groups over the last axis, so its argument needs a group axis "
                  "(rank >= 3), e.g. group_norm1(grad(x))");
    return dsl::make_penalty<dsl::penalty_kind::group_norm1>(std::move(e));
}
/// indicator of e >= 0 elementwise
template <class E>
auto nonneg(E e) {
    static_assert(dsl::Expression<E>, "nonneg takes a linear or affine expression of a variable");
    return dsl::make_penalty<dsl::penalty_kind::nonneg>(std::move(e));
}

}  // namespace proxgen
