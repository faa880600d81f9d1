// The compile-time plan of a (normalized, see normalize.hpp) problem for one algorithm: which terms
// the x-update absorbs (Ω) and which are split off and proxed (Ψ), and how the x-update is done.
// Decided from traits alone; plan_t<Problem, Algorithm> is a type, its static members the plan.
// Unplannable problems stop here with a static_assert sentence.
#pragma once

#include <array>
#include <cstddef>

#include "proxgen/dsl/penalty.hpp"
#include "proxgen/plan/algorithm.hpp"
#include "proxgen/traits/linear_traits.hpp"
#include "proxgen/traits/penalty_traits.hpp"

namespace proxgen::plan {

/// How the x-update is computed.
enum class XUpdate {
    closed_form_prox,  ///< PC / L-ADMM: per-pixel prox of the diagonal Ω terms
    elementwise,       ///< ADMM / HQS: the Gram matrix is diagonal: one division per pixel
    fft,               ///< ADMM / HQS: every operator is diagonal in the DFT (circular conv, periodic
                       ///< grad); PC / L-ADMM: the prox of the Ω quadratics is one FFT solve
    dct,               ///< the same in the DCT-II basis (Neumann grad)
    cg                 ///< ADMM / HQS: matrix-free conjugate gradient, warm-started
};

const char* name(XUpdate x);

/// The x-update goes through a transform (FFT / DCT).
constexpr bool spectral(XUpdate x) { return x == XUpdate::fft || x == XUpdate::dct; }

constexpr bool linearized(Algorithm a) { return a == Algorithm::pock_chambolle || a == Algorithm::ladmm; }

/// Where one term goes, and what its operator adds to the x-update's Gram matrix.
template <class Term, Algorithm A>
struct term_rule {
    using arg = typename Term::argument_type;
    using lt = traits::linear_traits<arg>;
    using pt = traits::penalty_traits<Term::kind>;
    /// PC and L-ADMM absorb what has a per-pixel closed-form joint prox: a quadratic of a diagonal
    /// operator, or a constraint e ≥ 0 on one (an interval per pixel). ADMM and HQS absorb every
    /// quadratic into a linear solve.
    static constexpr bool closed_form = lt::is_diagonal && (pt::is_quadratic || Term::kind == dsl::penalty_kind::nonneg);
    /// A quadratic whose prox needs a transform (FFT / DCT) rather than a per-pixel formula.
    static constexpr bool spectral_quadratic =
        pt::is_quadratic && !Term::weighted && !lt::is_diagonal && (lt::is_fft_diagonal || lt::is_dct_diagonal);
    // Gram contributions (ADMM / HQS): an Ω quadratic adds Aᵀ W² A (weights break frequency
    // diagonality), a Ψ term adds KᵀK (its weights live in the prox).
    static constexpr bool weights_matter = pt::is_quadratic && Term::weighted;
    static constexpr bool gram_diagonal = lt::is_gram_diagonal && (!weights_matter || lt::is_diagonal);
    static constexpr bool fft_diagonal = lt::is_fft_diagonal && !weights_matter;
    static constexpr bool dct_diagonal = lt::is_dct_diagonal && !weights_matter;
    static constexpr bool grad_only = lt::is_grad_only;
    using variable = typename lt::variable;
};

template <class Problem, Algorithm A>
struct plan_t;

template <class... Terms, Algorithm A>
struct plan_t<dsl::problem_t<Terms...>, A> {
    static constexpr Algorithm algorithm = A;
    static constexpr std::size_t size = sizeof...(Terms);
    static_assert(size > 0, "a problem needs at least one penalty term");

    template <class T>
    using rule = term_rule<T, A>;

    /// PC / L-ADMM: when a quadratic such as ‖k ⊛ x − b‖² is diagonal in a transform, its exact prox
    /// (one transform pair per iteration) beats splitting it; Ω then holds every unweighted quadratic
    /// diagonal in that basis, and constraints move to Ψ (their joint prox is no longer closed form).
    static constexpr bool spectral_prox = linearized(A) && (... || rule<Terms>::spectral_quadratic);
    template <class T>
    static constexpr bool quadratic_in_basis(bool dct) {
        using R = rule<T>;
        return R::pt::is_quadratic && !T::weighted && (dct ? R::dct_diagonal : R::fft_diagonal);
    }
    /// The basis: DCT when every non-diagonal spectral quadratic is DCT-diagonal, else FFT.
    static constexpr bool spectral_dct = (... && (!rule<Terms>::spectral_quadratic || rule<Terms>::dct_diagonal));

    template <class T>
    static constexpr bool absorbed() {
        if constexpr (!linearized(A)) return rule<T>::pt::is_quadratic;
        else if constexpr (spectral_prox) return quadratic_in_basis<T>(spectral_dct);
        else return rule<T>::closed_form;
    }

    /// in_omega[i]: term i is absorbed by the x-update; otherwise it is split and proxed.
    static constexpr std::array<bool, size> in_omega{absorbed<Terms>()...};
    static constexpr std::size_t omega_count = (std::size_t(0) + ... + std::size_t(absorbed<Terms>()));
    static constexpr std::size_t psi_count = size - omega_count;

    template <class Acc, class... Rest>
    struct common_variable { using type = Acc; };
    template <class Acc, class T, class... Rest>
    struct common_variable<Acc, T, Rest...>
        : common_variable<typename traits::merge_variables<Acc, typename rule<T>::variable>::type, Rest...> {};

    using variable = typename common_variable<traits::no_variable, Terms...>::type;
    static_assert(!std::is_same_v<variable, traits::several_variables>,
                  "ProxGen solves problems in one variable for now, and this problem's terms use "
                  "two different variables");
    static_assert(!std::is_same_v<variable, traits::no_variable>,
                  "this problem has no variable: every term is a constant");

    /// For ADMM / HQS: the x-update solves (Σ Gram blocks) x = rhs; it is singular for sure when
    /// every operator goes through grad (constant images are in the null space).
    static constexpr bool all_grad = (... && rule<Terms>::grad_only);
    static constexpr bool viable = linearized(A) || !all_grad;

    static constexpr XUpdate x_update = spectral_prox                         ? (spectral_dct ? XUpdate::dct : XUpdate::fft)
                                        : linearized(A)                         ? XUpdate::closed_form_prox
                                        : (... && rule<Terms>::gram_diagonal) ? XUpdate::elementwise
                                        : (... && rule<Terms>::dct_diagonal)  ? XUpdate::dct
                                        : (... && rule<Terms>::fft_diagonal)  ? XUpdate::fft
                                                                              : XUpdate::cg;
};

/// The reason a plan is not viable, for the run-time error of pg::solve and the static_assert of
/// pg::solve<Algorithm>.
inline constexpr const char* singular_x_update_message =
    "ADMM and HQS solve the x-update as a linear system, which is singular when every term applies "
    "grad (constant images are in its null space): add a term such as sum_squares(x - b) or use "
    "pock_chambolle / ladmm";

}  // namespace proxgen::plan
