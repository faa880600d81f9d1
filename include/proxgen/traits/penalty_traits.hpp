// What each penalty is: its name, whether an elementwise weight can be absorbed into its argument
// (separable penalties),  whether it is an indicator (a constraint), whether it is a
// quadratic that the x-update can absorb in closed form, and its strong convexity modulus.
// The closed-form proxes themselves are lowered in src/lower/prox.cpp.
#pragma once

#include "proxgen/dsl/penalty.hpp"

namespace proxgen::traits {

template <dsl::penalty_kind K>
struct penalty_traits;

template <>
struct penalty_traits<dsl::penalty_kind::sum_squares> {
    static constexpr const char* name = "sum_squares";
    static constexpr bool is_indicator = false;
    static constexpr bool is_quadratic = true;
    static constexpr double strong_convexity = 2.0;  // ∇²‖v‖² = 2I
};

/// f(w ⊙ v) has a per-element prox for any w: every penalty but the grouped one.
template <dsl::penalty_kind K>
inline constexpr bool is_separable = K != dsl::penalty_kind::group_norm1 && K != dsl::penalty_kind::patch_nlm;
template <>
struct penalty_traits<dsl::penalty_kind::norm1> {
    static constexpr const char* name = "norm1";
    static constexpr bool is_indicator = false;
    static constexpr bool is_quadratic = false;
    static constexpr double strong_convexity = 0.0;
};
template <>
struct penalty_traits<dsl::penalty_kind::group_norm1> {
    static constexpr const char* name = "group_norm1";
    static constexpr bool is_indicator = false;
    static constexpr bool is_quadratic = false;
    static constexpr double strong_convexity = 0.0;
};
template <>
struct penalty_traits<dsl::penalty_kind::nonneg> {
    static constexpr const char* name = "nonneg";
    static constexpr bool is_indicator = true;
    static constexpr bool is_quadratic = false;
    static constexpr double strong_convexity = 0.0;
};

template <>
struct penalty_traits<dsl::penalty_kind::poisson> {
    static constexpr const char* name = "poisson_norm";
    static constexpr bool is_indicator = false;  // has a domain (e >= 0) but is finite inside it
    static constexpr bool is_quadratic = false;
    static constexpr double strong_convexity = 0.0;
};
template <>
struct penalty_traits<dsl::penalty_kind::sum_entries> {
    static constexpr const char* name = "sum_entries";
    static constexpr bool is_indicator = false;
    static constexpr bool is_quadratic = false;
    static constexpr double strong_convexity = 0.0;
};

template <>
struct penalty_traits<dsl::penalty_kind::masked_nonneg> {
    static constexpr const char* name = "masked_nonneg";
    static constexpr bool is_indicator = true;
    static constexpr bool is_quadratic = false;
    static constexpr double strong_convexity = 0.0;
};
template <>
struct penalty_traits<dsl::penalty_kind::box> {
    static constexpr const char* name = "box";
    static constexpr bool is_indicator = true;
    static constexpr bool is_quadratic = false;
    static constexpr double strong_convexity = 0.0;
};
template <>
struct penalty_traits<dsl::penalty_kind::huber> {
    static constexpr const char* name = "huber";
    static constexpr bool is_indicator = false;
    static constexpr bool is_quadratic = false;  // only near 0: the x-update cannot absorb it
    static constexpr double strong_convexity = 0.0;
};

template <>
struct penalty_traits<dsl::penalty_kind::diff_fn> {
    static constexpr const char* name = "diff_fn";
    static constexpr bool is_indicator = false;
    static constexpr bool is_quadratic = false;
    static constexpr double strong_convexity = 0.0;
};
template <>
struct penalty_traits<dsl::penalty_kind::patch_nlm> {
    static constexpr const char* name = "patch_nlm";
    static constexpr bool is_indicator = false;
    static constexpr bool is_quadratic = false;
    static constexpr double strong_convexity = 0.0;
};

}  // namespace proxgen::traits
