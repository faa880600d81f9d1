// The five algorithms and the x-update kinds. The plan depends on the algorithm: what the x-update
// can absorb differs (a closed-form prox for Pock–Chambolle and linearized ADMM, a linear solve for
// ADMM and HQS, a closed-form prox plus a gradient step on the other quadratics for Condat–Vũ).
//
// Every name of an algorithm lives in `algorithm_table` below, and every front end (the command
// line, Python, the benchmarks) reads and writes names through it, so they all accept the same ones.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace proxgen {

enum class Algorithm {
    admm,            ///< ADMM (Boyd et al. 2011): quadratics solved in the x-update (diagonal, FFT, DCT or CG)
    ladmm,           ///< linearized ADMM (Parikh & Boyd, Proximal Algorithms §4.4.2)
    pock_chambolle,  ///< primal–dual hybrid gradient (Chambolle & Pock 2011), accelerated when Ω is strongly convex
    hqs,             ///< half-quadratic splitting with an increasing penalty ρ
    /// Condat–Vũ (Condat 2013, Vũ 2013): Pock–Chambolle's iteration with a gradient step on the
    /// quadratics whose prox has no per-pixel closed form (‖k ⊛ x − b‖² needs neither a split nor
    /// a linear solve)
    condat_vu,
    /// chosen when solving, by a short measured probe of PC (plain and preconditioned), L-ADMM and
    /// ADMM (src/solve/automatic.cpp); Result::choice says which and why. Not in algorithm_table,
    /// which lists the algorithms that run.
    automatic
};

/// The names of one algorithm. Every one of them is accepted wherever an algorithm is named.
struct AlgorithmNames {
    Algorithm algorithm;
    /// What `describe`, error messages and `name(Algorithm)` print, and part of the JIT cache's
    /// keys: the enumerator's own spelling ("pock_chambolle").
    std::string_view name;
    /// What the command line and Python print, ProxImaL's `solver=` name ("pc").
    std::string_view short_name;
    /// Further accepted spellings (ProxImaL's long names, "linearized_admm"); empty entries unused.
    std::array<std::string_view, 2> aliases;
};

/// Every algorithm, in the order the front ends list them.
inline constexpr std::array<AlgorithmNames, 5> algorithm_table{{
    {Algorithm::admm, "admm", "admm", {}},
    {Algorithm::ladmm, "ladmm", "ladmm", {"linearized_admm"}},
    {Algorithm::pock_chambolle, "pock_chambolle", "pc", {}},
    {Algorithm::hqs, "hqs", "hqs", {"half_quadratic_splitting"}},
    {Algorithm::condat_vu, "condat_vu", "cv", {"condat"}},
}};

/// "admm", "ladmm", "pock_chambolle", "hqs", "condat_vu".
const char* name(Algorithm a);
/// "admm", "ladmm", "pc", "hqs", "cv": the name the command line and Python print.
const char* short_name(Algorithm a);
/// The algorithm any of its names (name, short name or alias) names; nullopt for anything else.
std::optional<Algorithm> parse_algorithm(std::string_view s);
/// Every accepted name, each algorithm's short name first and its other names in parentheses:
/// "'admm', 'ladmm' (linearized_admm), 'pc' (pock_chambolle), 'hqs' (half_quadratic_splitting),
/// 'cv' (condat_vu, condat)".
std::string accepted_algorithm_names();
/// parse_algorithm, or a proxgen::Error "unknown algorithm 'x': the algorithms are …" listing
/// accepted_algorithm_names().
Algorithm algorithm_named(std::string_view s);

}  // namespace proxgen

namespace proxgen::plan {

/// How the x-update is computed.
enum class XUpdate {
    closed_form_prox,  ///< PC / L-ADMM / Condat–Vũ: per-pixel prox of the diagonal Ω terms (Condat–Vũ:
                       ///< after a gradient step on Ω's other quadratics)
    elementwise,       ///< ADMM / HQS: the Gram matrix is diagonal: one division per pixel
    fft,               ///< ADMM / HQS: every operator is diagonal in the DFT (circular conv, periodic
                       ///< grad); PC / L-ADMM: the prox of the Ω quadratics is one FFT solve
    dct,               ///< the same in the DCT-II basis (Neumann grad)
    cg,                ///< ADMM / HQS: matrix-free conjugate gradient, warm-started
    pixel_block        ///< ADMM / HQS, 2 or 3 variables of one shape coupled pixel by pixel (every
                       ///< operator diagonal): a small system per pixel, solved in closed form
};

/// The most variables a per-pixel block solve takes (its closed form is written out to 3×3).
inline constexpr int max_pixel_block = 3;

const char* name(XUpdate x);

/// The x-update goes through a transform (FFT / DCT).
constexpr bool spectral(XUpdate x) { return x == XUpdate::fft || x == XUpdate::dct; }

/// The x-update is a prox (of Ω, after a linearized step), not a linear solve.
constexpr bool linearized(Algorithm a) {
    return a == Algorithm::pock_chambolle || a == Algorithm::ladmm || a == Algorithm::condat_vu;
}

/// The algorithm steps along the gradient of the quadratics whose prox has no per-pixel closed
/// form (Condat–Vũ) instead of splitting them (PC, L-ADMM) or solving them (ADMM, HQS).
constexpr bool gradient_steps(Algorithm a) { return a == Algorithm::condat_vu; }

}  // namespace proxgen::plan
