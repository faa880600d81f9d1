// The typed front end's penalty nodes and problems (each penalty names its card,
// proxgen/catalogue/penalties/). A penalty is the generalised prox form
//     α · f(β · w ⊙ e + c)
// (α = weight, β a scalar, w an elementwise weight image, c an offset image; β, w and c start as
// 1, none, none and are filled by the planner's rewrite rules, plan/rules/, or by the weighted_*
// constructors). A problem is a sum of penalties, kept in a hana::tuple so that the planner can
// rewrite and sort its terms at compile time.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <boost/hana/append.hpp>
#include <boost/hana/concat.hpp>
#include <boost/hana/transform.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include "proxgen/catalogue/penalties/box.hpp"
#include "proxgen/catalogue/penalties/diff_fn.hpp"
#include "proxgen/catalogue/penalties/group_norm1.hpp"
#include "proxgen/catalogue/penalties/huber.hpp"
#include "proxgen/catalogue/penalties/masked_nonneg.hpp"
#include "proxgen/catalogue/penalties/nonneg.hpp"
#include "proxgen/catalogue/penalties/norm1.hpp"
#include "proxgen/catalogue/penalties/patch_nlm.hpp"
#include "proxgen/catalogue/penalties/poisson_norm.hpp"
#include "proxgen/catalogue/penalties/sum_entries.hpp"
#include "proxgen/catalogue/penalties/sum_squares.hpp"
#include "proxgen/messages.hpp"
#include "proxgen/typed/linear.hpp"

namespace proxgen::rt {
class Expr;
}

namespace proxgen::dsl {

/// Not a run-time expression (proxgen/runtime.hpp): those have their own, non-template penalty
/// functions, which must win overload resolution over the typed templates below.
template <class E>
concept typed_argument = !std::is_same_v<std::remove_cvref_t<E>, rt::Expr>;

/// The penalty cards, by their structs (catalogue::penalties::huber, ...): one list for both
/// front ends.
namespace penalty_kind = catalogue::penalties;

/// weight · f(beta · arg_weight ⊙ arg + offset), f the penalty of card Card. For penalties that
/// weigh groups (group_norm1) the arg_weight is a weight per group instead (shape of arg without
/// its last axis): Σ_p w_p ‖v_p‖. Weighted says whether arg_weight is set: the planner must know it
/// at compile time, since a weighted quadratic is no longer diagonal in frequency.
template <class Card, class E, bool Weighted = false>
struct penalty_t {
    using card = Card;
    static constexpr bool weighted = Weighted;
    using argument_type = E;
    E arg;
    float weight = 1.0f;  // α
    float beta = 1.0f;    // β
    Image arg_weight;     // w (empty: 1)
    Image offset;         // c (empty: 0)
    Image data;           // poisson: the observed counts
    double constant = 0;  // d: added to the value (rewrites that drop a constant keep it here)
    std::vector<int> ints;  // structural parameters of the penalty (its card's: schatten's p, ...)
    /// The named parameters (pg::parameter, proxgen/typed/named.hpp) weight is a product of, with
    /// their values: what a generated solver's Data takes by those names.
    std::vector<std::pair<std::string, double>> parameters;
};

/// Σ terms: every term a penalty_t.
template <class... Terms>
struct problem_t {
    boost::hana::tuple<Terms...> terms;
};

template <class T> struct is_penalty : std::false_type {};
template <class K, class E, bool W> struct is_penalty<penalty_t<K, E, W>> : std::true_type {};
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

inline float checked_weight(double w) { return catalogue::check::weight(w); }
// The factor and the product are both checked: 1e30f * (1e30f * f) has two factors float32 holds
// and a product it does not, which would otherwise surface as "inf" at solve time.
template <class Card>
float scaled_weight(float weight, double s) {
    checked_weight(s);
    return catalogue::check::weight_product(static_cast<double>(weight) * s, Card::name);
}

template <Scalar S, class K, class E, bool W>
auto operator*(S s, penalty_t<K, E, W> p) {
    p.weight = scaled_weight<K>(p.weight, static_cast<double>(s));
    return p;
}
template <class K, class E, bool W, Scalar S>
auto operator*(penalty_t<K, E, W> p, S s) { return s * std::move(p); }

/// The problem of a hana tuple of terms.
template <class Terms>
auto problem_of(Terms terms) {
    return boost::hana::unpack(std::move(terms), [](auto... ts) {
        return problem_t<decltype(ts)...>{boost::hana::make_tuple(std::move(ts)...)};
    });
}

/// Every term scaled alike (s a number here, a named parameter in proxgen/typed/named.hpp).
template <class S, class... T>
auto scale_terms(const S& s, problem_t<T...> p) {
    return problem_of(boost::hana::transform(std::move(p.terms), [&s](auto t) { return s * std::move(t); }));
}

template <Scalar S, class... T>
auto operator*(S s, problem_t<T...> p) { return scale_terms(s, std::move(p)); }

template <ProblemLike A, ProblemLike B>
auto operator+(A a, B b) {
    return problem_of(boost::hana::concat(as_problem(std::move(a)).terms, as_problem(std::move(b)).terms));
}

// Mixing a penalty with a linear expression is a common slip; say so instead of a wall of
// overload-resolution notes.
template <class T> inline constexpr bool always_false = false;
template <ProblemLike A, Expression B>
auto operator+(A, B) {
    static_assert(always_false<B>, PROXGEN_MSG_SUM_OF_PENALTIES);
}
template <Expression A, ProblemLike B>
auto operator+(A, B) {
    static_assert(always_false<A>, PROXGEN_MSG_SUM_OF_PENALTIES);
}

template <class K, class E>
auto make_penalty(E e) { return penalty_t<K, E>{std::move(e)}; }

}  // namespace proxgen::dsl

namespace proxgen {

/// ‖e‖²
template <class E>
    requires dsl::typed_argument<E>
auto sum_squares(E e) {
    static_assert(dsl::Expression<E>, PROXGEN_MSG_TAKES_EXPRESSION("sum_squares"));
    return typed::apply_penalty<dsl::penalty_kind::sum_squares>(std::move(e));
}
/// ‖e‖₁
template <class E>
    requires dsl::typed_argument<E>
auto norm1(E e) {
    static_assert(dsl::Expression<E>, PROXGEN_MSG_TAKES_EXPRESSION("norm1"));
    return typed::apply_penalty<dsl::penalty_kind::norm1>(std::move(e));
}
/// Σ over all but the last axis of the 2-norm along the last axis: isotropic TV for grad(x).
template <class E>
    requires dsl::typed_argument<E>
auto group_norm1(E e) {
    static_assert(dsl::Expression<E>, PROXGEN_MSG_TAKES_EXPRESSION("group_norm1"));
    static_assert(E::rank >= 3, PROXGEN_MSG_GROUP_NORM1_NEEDS_GROUP_AXIS);
    return typed::apply_penalty<dsl::penalty_kind::group_norm1>(std::move(e));
}
/// indicator of e >= 0 elementwise
template <class E>
    requires dsl::typed_argument<E>
auto nonneg(E e) {
    static_assert(dsl::Expression<E>, PROXGEN_MSG_TAKES_EXPRESSION("nonneg"));
    return typed::apply_penalty<dsl::penalty_kind::nonneg>(std::move(e));
}

/// Negative Poisson log-likelihood of counts given the rate e: Σ e − counts·log e, with the
/// domain e >= 0 (e = 0 is allowed where counts = 0).
template <class E>
    requires dsl::typed_argument<E>
auto poisson_norm(E e, const Image& counts) {
    static_assert(dsl::Expression<E>, PROXGEN_MSG_TAKES_EXPRESSION("poisson_norm"));
    return typed::apply_penalty<dsl::penalty_kind::poisson_norm>(std::move(e), catalogue::ImageArg{counts, {}});
}

/// indicator of e >= 0 where mask != 0 (elsewhere e is free); mask has e's shape.
template <class E>
    requires dsl::typed_argument<E>
auto masked_nonneg(E e, const Image& mask) {
    static_assert(dsl::Expression<E>, PROXGEN_MSG_TAKES_EXPRESSION("masked_nonneg"));
    return typed::apply_penalty<dsl::penalty_kind::masked_nonneg>(std::move(e), catalogue::ImageArg{mask, {}});
}

/// indicator of lo <= e <= hi elementwise (lo < hi, both finite; for one side use nonneg). Kept
/// as the indicator of [0, 1] at (e − lo)/(hi − lo), so the planner's rules see a scale and an
/// offset they already know how to absorb.
template <class E>
    requires dsl::typed_argument<E>
auto box(E e, float lo, float hi) {
    static_assert(dsl::Expression<E>, PROXGEN_MSG_TAKES_EXPRESSION("box"));
    return typed::apply_penalty<dsl::penalty_kind::box>(std::move(e), lo, hi);
}

/// Σ huber_M(e): e² where |e| <= M, 2M|e| − M² beyond (quadratic near 0, linear tails; CVXPY's
/// definition). Kept as M² · h₁(e / M), h₁ the Huber function of threshold 1.
template <class E>
    requires dsl::typed_argument<E>
auto huber(E e, float M) {
    static_assert(dsl::Expression<E>, PROXGEN_MSG_TAKES_EXPRESSION("huber"));
    return typed::apply_penalty<dsl::penalty_kind::huber>(std::move(e), M);
}

/// A plug-and-play prior: no closed-form function, its prox is a non-local means denoiser of the
/// argument (7 × 7 search window, 3 × 3 patches, channels compared jointly) at noise level
/// σ = √(α/ρ) for weight α and prox parameter ρ; weight 0 makes it the identity. ProxImaL's
/// patch_NLM. The objective counts it as 0 (it has no value to report).
template <class E>
    requires dsl::typed_argument<E>
auto patch_nlm(E e) {
    static_assert(dsl::Expression<E>, PROXGEN_MSG_TAKES_EXPRESSION("patch_nlm"));
    static_assert(E::rank == 2 || E::rank == 3, PROXGEN_MSG_PATCH_NLM_RANK);
    return typed::apply_penalty<dsl::penalty_kind::patch_nlm>(std::move(e));
}

/// Σ e (a linear term ⟨1, e⟩)
template <class E>
    requires dsl::typed_argument<E>
auto sum_entries(E e) {
    static_assert(dsl::Expression<E>, PROXGEN_MSG_TAKES_EXPRESSION("sum_entries"));
    return typed::apply_penalty<dsl::penalty_kind::sum_entries>(std::move(e));
}

/// ‖e‖², the term ADMM and HQS solve in the x-update (an alias of sum_squares: the planner puts
/// every quadratic there when the algorithm allows it).
template <class E>
    requires dsl::typed_argument<E>
auto least_squares(E e) {
    static_assert(dsl::Expression<E>, PROXGEN_MSG_TAKES_EXPRESSION("least_squares"));
    return sum_squares(std::move(e));
}

/// ‖w ⊙ e‖²
template <class E>
    requires dsl::typed_argument<E>
auto weighted_sum_squares(const Image& w, E e) {
    auto shape = dsl::shape_of(e);
    static_assert(dsl::Expression<E>, PROXGEN_MSG_WEIGHTED_TAKES_EXPRESSION);
    return typed::apply_weighted_penalty<dsl::penalty_kind::sum_squares>("weighted_sum_squares", w, shape, std::move(e));
}
/// ‖w ⊙ e‖₁
template <class E>
    requires dsl::typed_argument<E>
auto weighted_norm1(const Image& w, E e) {
    auto shape = dsl::shape_of(e);
    static_assert(dsl::Expression<E>, PROXGEN_MSG_WEIGHTED_TAKES_EXPRESSION);
    return typed::apply_weighted_penalty<dsl::penalty_kind::norm1>("weighted_norm1", w, shape, std::move(e));
}
/// indicator of w ⊙ e >= 0
template <class E>
    requires dsl::typed_argument<E>
auto weighted_nonneg(const Image& w, E e) {
    auto shape = dsl::shape_of(e);
    static_assert(dsl::Expression<E>, PROXGEN_MSG_WEIGHTED_TAKES_EXPRESSION);
    return typed::apply_weighted_penalty<dsl::penalty_kind::nonneg>("weighted_nonneg", w, shape, std::move(e));
}
/// Σ_p w_p ‖e_p‖₂ over groups p (w has e's shape without the last axis)
template <class E>
    requires dsl::typed_argument<E>
auto weighted_group_norm1(const Image& w, E e) {
    static_assert(E::rank >= 3, PROXGEN_MSG_WEIGHTED_GROUP_NORM1_NEEDS_GROUP_AXIS);
    auto shape = catalogue::penalties::group_norm1::weight_shape(dsl::shape_of(e));
    static_assert(dsl::Expression<E>, PROXGEN_MSG_WEIGHTED_TAKES_EXPRESSION);
    return typed::apply_weighted_penalty<dsl::penalty_kind::group_norm1>("weighted_group_norm1", w, shape, std::move(e));
}
/// poisson_norm(w ⊙ e, counts)
template <class E>
    requires dsl::typed_argument<E>
auto weighted_poisson_norm(const Image& w, E e, const Image& counts) {
    auto shape = dsl::shape_of(e);
    static_assert(dsl::Expression<E>, PROXGEN_MSG_WEIGHTED_TAKES_EXPRESSION);
    return typed::apply_weighted_penalty<dsl::penalty_kind::poisson_norm>("weighted_poisson_norm", w, shape, std::move(e),
                                                                         catalogue::ImageArg{counts, {}});
}

}  // namespace proxgen
