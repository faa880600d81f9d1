// What each linear/affine node is, mathematically. The planner reads only these traits:
//   variable          the variable_t the expression depends on (no_variable / several_variables)
//   is_identity       the expression is exactly the variable
//   is_scalar_identity  s · x (+ constants): a multiple of the identity
//   is_diagonal       K x = d ⊙ x for some image d (diagonal in space)
//   is_gram_diagonal  KᵀK is diagonal (diagonal K, or a subsampling of one)
//   is_fft_diagonal   diagonal in the DFT basis (circular conv, periodic grad, and sums/scales)
//   is_dct_diagonal   diagonal in the DCT-II basis (Neumann grad of a multiple of x, and sums/scales)
//   is_grad_only      every path to the variable goes through grad (null space ⊇ constants)
//   has_offset        the expression is affine with a non-zero constant part
//   norm_bound(e)     an upper bound on ‖K‖₂ of the linear part (run time: it may read a kernel)
//   diagonal_min_abs(e)  for diagonal K, a lower bound on min |d| (0 when unknown)
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include "proxgen/dsl/linear.hpp"

namespace proxgen::traits {

struct no_variable {};
struct several_variables {};

/// The variable of two subexpressions combined.
template <class A, class B>
struct merge_variables { using type = several_variables; };
template <class A>
struct merge_variables<A, A> { using type = A; };
template <class A>
struct merge_variables<A, no_variable> { using type = A; };
template <class B>
struct merge_variables<no_variable, B> { using type = B; };
template <>
struct merge_variables<no_variable, no_variable> { using type = no_variable; };

template <class E>
struct linear_traits;

/// min and max of |w| over an image (the diagonal's range of an elementwise weight).
inline std::pair<double, double> abs_range(const Image& w) {
    double lo = INFINITY, hi = 0;
    const float* d = w.data();
    for (std::size_t i = 0; i < w.size(); ++i) {
        lo = std::min(lo, double(std::abs(d[i])));
        hi = std::max(hi, double(std::abs(d[i])));
    }
    return {lo, hi};
}

/// Defaults for an operator applied to one operand: it keeps the operand's variable and offset
/// and is none of the special kinds unless it says so.
template <class E>
struct unary_traits {
    using variable = typename linear_traits<E>::variable;
    static constexpr bool is_identity = false;
    static constexpr bool is_scalar_identity = false;
    static constexpr bool has_offset = linear_traits<E>::has_offset;
    static constexpr bool is_grad_only = linear_traits<E>::is_grad_only;
};

template <class Tag, int R>
struct linear_traits<dsl::variable_t<Tag, R>> {
    using variable = dsl::variable_t<Tag, R>;
    static constexpr bool is_identity = true;
    static constexpr bool is_scalar_identity = true;
    static constexpr bool is_diagonal = true;
    static constexpr bool is_gram_diagonal = true;
    static constexpr bool is_fft_diagonal = true;
    static constexpr bool is_dct_diagonal = true;
    static constexpr bool is_grad_only = false;
    static constexpr bool has_offset = false;
    static double norm_bound(const dsl::variable_t<Tag, R>&) { return 1.0; }
    static double diagonal_min_abs(const dsl::variable_t<Tag, R>&) { return 1.0; }
};

template <class E, class B>
struct linear_traits<dsl::conv_t<E, B>> : unary_traits<E> {
    static constexpr bool circular = std::is_same_v<B, dsl::circular_t>;
    static constexpr bool is_diagonal = false;
    static constexpr bool is_gram_diagonal = false;
    // only the circular convolution is diagonal in the DFT; zero and replicate boundaries break it
    static constexpr bool is_fft_diagonal = circular && linear_traits<E>::is_fft_diagonal;
    static constexpr bool is_dct_diagonal = false;  // no convolution here commutes with the DCT in general
    // ‖k ⊛ x‖ ≤ ‖k‖₁ ‖x‖ (Young's inequality; also max |OTF| ≤ ‖k‖₁); zero padding only drops terms.
    // Replicate reads an edge pixel up to (⌊kw/2⌋+1)(⌊kh/2⌋+1) times for one shift of the kernel.
    static double norm_bound(const dsl::conv_t<E, B>& e) {
        double l1 = 0;
        const float* k = e.kernel.data();
        for (std::size_t i = 0; i < e.kernel.size(); ++i) l1 += std::abs(k[i]);
        if constexpr (std::is_same_v<B, dsl::replicate_t>)
            l1 *= std::sqrt(double(e.kernel.width() / 2 + 1) * double(e.kernel.height() / 2 + 1));
        return l1 * linear_traits<E>::norm_bound(e.arg);
    }
    static double diagonal_min_abs(const dsl::conv_t<E, B>&) { return 0.0; }
};

template <class E, class B, class A>
struct linear_traits<dsl::grad_t<E, B, A>> : unary_traits<E> {
    // the spectral solvers know grad along x and y only
    static constexpr bool xy = std::is_same_v<A, dsl::xy_axes>;
    static constexpr bool is_diagonal = false;
    static constexpr bool is_gram_diagonal = false;
    static constexpr bool is_fft_diagonal = xy && dsl::grad_t<E, B, A>::periodic && linear_traits<E>::is_fft_diagonal;
    static constexpr bool is_dct_diagonal = xy && !dsl::grad_t<E, B, A>::periodic && linear_traits<E>::is_scalar_identity;
    static constexpr bool is_grad_only = true;
    // Each difference operator has norm ≤ 2: ‖∇‖ ≤ √(4 · number of axes).
    static double norm_bound(const dsl::grad_t<E, B, A>& e) {
        return std::sqrt(4.0 * A::count) * linear_traits<E>::norm_bound(e.arg);
    }
    static double diagonal_min_abs(const dsl::grad_t<E, B, A>&) { return 0.0; }
};

template <class E>
struct linear_traits<dsl::mul_elemwise_t<E>> : unary_traits<E> {
    static constexpr bool is_diagonal = linear_traits<E>::is_diagonal;
    static constexpr bool is_gram_diagonal = linear_traits<E>::is_diagonal;
    static constexpr bool is_fft_diagonal = false;
    static constexpr bool is_dct_diagonal = false;
    static double norm_bound(const dsl::mul_elemwise_t<E>& e) {
        return abs_range(e.weight).second * linear_traits<E>::norm_bound(e.arg);
    }
    static double diagonal_min_abs(const dsl::mul_elemwise_t<E>& e) {
        return abs_range(e.weight).first * linear_traits<E>::diagonal_min_abs(e.arg);
    }
};

template <class E>
struct linear_traits<dsl::scale_t<E>> : unary_traits<E> {
    static constexpr bool is_scalar_identity = linear_traits<E>::is_scalar_identity;
    static constexpr bool is_diagonal = linear_traits<E>::is_diagonal;
    static constexpr bool is_gram_diagonal = linear_traits<E>::is_gram_diagonal;
    static constexpr bool is_fft_diagonal = linear_traits<E>::is_fft_diagonal;
    static constexpr bool is_dct_diagonal = linear_traits<E>::is_dct_diagonal;
    static double norm_bound(const dsl::scale_t<E>& e) { return std::abs(e.factor) * linear_traits<E>::norm_bound(e.arg); }
    static double diagonal_min_abs(const dsl::scale_t<E>& e) {
        return std::abs(e.factor) * linear_traits<E>::diagonal_min_abs(e.arg);
    }
};

template <class A, class B>
struct linear_traits<dsl::sum_t<A, B>> {
    using LA = linear_traits<A>;
    using LB = linear_traits<B>;
    using variable = typename merge_variables<typename LA::variable, typename LB::variable>::type;
    static constexpr bool is_identity = false;
    static constexpr bool is_scalar_identity = LA::is_scalar_identity && LB::is_scalar_identity;
    static constexpr bool is_diagonal = LA::is_diagonal && LB::is_diagonal;
    static constexpr bool is_gram_diagonal = is_diagonal;
    static constexpr bool is_fft_diagonal = LA::is_fft_diagonal && LB::is_fft_diagonal;
    static constexpr bool is_dct_diagonal = LA::is_dct_diagonal && LB::is_dct_diagonal;
    static constexpr bool is_grad_only = LA::is_grad_only && LB::is_grad_only;
    static constexpr bool has_offset = LA::has_offset || LB::has_offset;
    static double norm_bound(const dsl::sum_t<A, B>& e) { return LA::norm_bound(e.lhs) + LB::norm_bound(e.rhs); }
    // d₁ + d₂ may cancel anywhere: no useful lower bound without looking at every pixel.
    static double diagonal_min_abs(const dsl::sum_t<A, B>&) { return 0.0; }
};

template <class E>
struct linear_traits<dsl::subsample_t<E>> : unary_traits<E> {
    static constexpr bool is_diagonal = false;
    static constexpr bool is_gram_diagonal = linear_traits<E>::is_diagonal;  // SᵀS is a 0/1 mask
    static constexpr bool is_fft_diagonal = false;
    static constexpr bool is_dct_diagonal = false;
    static double norm_bound(const dsl::subsample_t<E>& e) { return linear_traits<E>::norm_bound(e.arg); }
    static double diagonal_min_abs(const dsl::subsample_t<E>&) { return 0.0; }
};

template <class E>
struct linear_traits<dsl::offset_t<E>> {
    using L = linear_traits<E>;
    using variable = typename L::variable;
    static constexpr bool is_identity = false;
    static constexpr bool is_scalar_identity = L::is_scalar_identity;
    static constexpr bool is_diagonal = L::is_diagonal;
    static constexpr bool is_gram_diagonal = L::is_gram_diagonal;
    static constexpr bool is_fft_diagonal = L::is_fft_diagonal;
    static constexpr bool is_dct_diagonal = L::is_dct_diagonal;
    static constexpr bool is_grad_only = L::is_grad_only;
    static constexpr bool has_offset = true;
    static double norm_bound(const dsl::offset_t<E>& e) { return L::norm_bound(e.arg); }
    static double diagonal_min_abs(const dsl::offset_t<E>& e) { return L::diagonal_min_abs(e.arg); }
};

}  // namespace proxgen::traits

// The wider catalogue: its nodes and traits (kept apart to keep this file short).
#include "proxgen/traits/catalogue_traits.hpp"
