// Traits of the wider operator catalogue (dsl/layout.hpp, dsl/sampling.hpp, dsl/color.hpp). None
// of these is diagonal in space or in frequency for the planner; those that only move pixels keep
// a diagonal Gram matrix (KᵀK of a crop or a gather is a 0/1 or count mask, of a permutation or a
// zero padding the identity), which lets ADMM / HQS keep an elementwise x-update.
#pragma once

#include "proxgen/dsl/color.hpp"
#include "proxgen/dsl/layout.hpp"
#include "proxgen/dsl/sampling.hpp"
#include "proxgen/traits/linear_traits.hpp"

namespace proxgen::traits {

/// An operator the spectral solvers do not know, with Gram-diagonality given.
template <class E, bool GramDiagonal>
struct moving_traits : unary_traits<E> {
    static constexpr bool is_diagonal = false;
    static constexpr bool is_gram_diagonal = GramDiagonal;
    static constexpr bool is_fft_diagonal = false;
    static constexpr bool is_dct_diagonal = false;
    template <class N>
    static double diagonal_min_abs(const N&) { return 0.0; }
};

// (C A)ᵀ(C A) = Aᵀ (0/1 mask) A: diagonal when A is.
template <class E>
struct linear_traits<dsl::crop_t<E>> : moving_traits<E, linear_traits<E>::is_diagonal> {
    static double norm_bound(const dsl::crop_t<E>& e) { return linear_traits<E>::norm_bound(e.arg); }
};
// PᵀP = I for a zero padding, a permutation or a reshape: the Gram matrix is the operand's.
template <class E>
struct linear_traits<dsl::pad_t<E>> : moving_traits<E, linear_traits<E>::is_gram_diagonal> {
    static double norm_bound(const dsl::pad_t<E>& e) { return linear_traits<E>::norm_bound(e.arg); }
};
template <class E>
struct linear_traits<dsl::transpose_t<E>> : moving_traits<E, linear_traits<E>::is_gram_diagonal> {
    static double norm_bound(const dsl::transpose_t<E>& e) { return linear_traits<E>::norm_bound(e.arg); }
};
template <class E, int R>
struct linear_traits<dsl::reshape_t<E, R>> : moving_traits<E, linear_traits<E>::is_gram_diagonal> {
    static double norm_bound(const dsl::reshape_t<E, R>& e) { return linear_traits<E>::norm_bound(e.arg); }
};
// SᵀS = diag(how many output pixels read each input pixel).
template <class E>
struct linear_traits<dsl::uneven_subsample_t<E>> : moving_traits<E, linear_traits<E>::is_diagonal> {
    static double norm_bound(const dsl::uneven_subsample_t<E>& e) {
        return std::sqrt(double(e.multiplicity)) * linear_traits<E>::norm_bound(e.arg);
    }
};
template <class E>
struct linear_traits<dsl::warp_t<E>> : moving_traits<E, false> {
    static double norm_bound(const dsl::warp_t<E>& e) { return e.norm * linear_traits<E>::norm_bound(e.arg); }
};
// ‖M‖₂ ≤ ‖M‖_F; a per-pixel matrix: the largest one.
template <class E>
struct linear_traits<dsl::mul_color_t<E>> : moving_traits<E, false> {
    static double norm_bound(const dsl::mul_color_t<E>& e) {
        double f = 0;
        for (std::size_t i = 0; i < e.matrix.size(); ++i) f += double(e.matrix.data()[i]) * e.matrix.data()[i];
        return std::sqrt(f) * linear_traits<E>::norm_bound(e.arg);
    }
};
template <class E>
struct linear_traits<dsl::pxwise_matmul_t<E>> : moving_traits<E, false> {
    static double norm_bound(const dsl::pxwise_matmul_t<E>& e) {
        const Image& A = e.matrices;
        const std::size_t pixels = std::size_t(A.extent(0)) * A.extent(1), entries = std::size_t(A.extent(2)) * A.extent(3);
        double most = 0;
        for (std::size_t p = 0; p < pixels; ++p) {
            double f = 0;
            for (std::size_t k = 0; k < entries; ++k) f += double(A.data()[p + k * pixels]) * A.data()[p + k * pixels];
            most = std::max(most, f);
        }
        return std::sqrt(most) * linear_traits<E>::norm_bound(e.arg);
    }
};

// [A; B]ᵀ[A; B] = AᵀA + BᵀB.
template <class A, class B>
struct linear_traits<dsl::concat_t<A, B>> {
    using LA = linear_traits<A>;
    using LB = linear_traits<B>;
    using variable = typename merge_variables<typename LA::variable, typename LB::variable>::type;
    static constexpr bool is_identity = false;
    static constexpr bool is_scalar_identity = false;
    static constexpr bool is_diagonal = false;
    static constexpr bool is_gram_diagonal = LA::is_gram_diagonal && LB::is_gram_diagonal;
    static constexpr bool is_fft_diagonal = false;
    static constexpr bool is_dct_diagonal = false;
    static constexpr bool is_grad_only = LA::is_grad_only && LB::is_grad_only;
    static constexpr bool has_offset = LA::has_offset || LB::has_offset;
    static double norm_bound(const dsl::concat_t<A, B>& e) {
        return std::hypot(LA::norm_bound(e.lhs), LB::norm_bound(e.rhs));
    }
    static double diagonal_min_abs(const dsl::concat_t<A, B>&) { return 0.0; }
};

}  // namespace proxgen::traits
