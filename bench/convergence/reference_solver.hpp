// An independent float64 reference for the convergence benchmark: the suite's operators written
// directly in C++ (no Halide, no ProxGen pipelines), exact operator norms by Lanczos with full
// reorthogonalization (power iteration's Krylov form, run to convergence), and the two plain
// fixed-step algorithms the issue compares with:
//   PDHG (Chambolle & Pock 2011, θ = 1) with τ = σ = 1/‖K‖;
//   ADMM (Boyd et al. 2011, scaled form) with fixed ρ = ω/‖K_Ψ‖² from exact norms (ProxGen's ρ₀
//   rule, docs/algorithms.md, evaluated with the true norms instead of bounds), its x-update solved
//   by conjugate gradient to a relative residual of 1e-10.
// Layout as ProxGen's: x fastest, then y, then channel / slice, then a stacked axis.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace proxgen::bench::ref {

using Vec = std::vector<double>;

/// A linear operator R^n → R^m.
struct Op {
    virtual ~Op() = default;
    virtual std::size_t in_size() const = 0;
    virtual std::size_t out_size() const = 0;
    virtual void apply(const Vec& x, Vec& y) const = 0;    // y = K x (y resized)
    virtual void adjoint(const Vec& y, Vec& x) const = 0;  // x = Kᵀ y (x resized)
};
using OpPtr = std::shared_ptr<const Op>;

OpPtr identity(std::size_t n);
/// Circular convolution per channel, kernel kw × kh (row-major, x fastest), centre ⌊size/2⌋.
OpPtr conv(std::vector<double> kernel, int kw, int kh, int w, int h, int channels = 1);
/// Forward differences along `axes` (0: x, 1: y, 2: z = the third axis) of a w × h × d image,
/// Neumann (last difference 0), stacked on a new last axis.
OpPtr grad(int w, int h, int d, std::vector<int> axes);
OpPtr mul(std::vector<double> weights, OpPtr k);        // w ⊙ K x
OpPtr scale(double s, OpPtr k);
OpPtr sum(std::vector<OpPtr> parts);                    // Σ K_i x
/// Every sx-th column and sy-th row (from 0) of a w × h × c image (K x).
OpPtr subsample(int w, int h, int c, int sx, int sy, OpPtr k);

enum class Penalty { sum_squares, norm1, group_norm1, nonneg, box, huber, poisson };

/// α f(K x − b): `b` empty means 0; group_norm1 groups over `groups` slices of the last axis;
/// box holds lo, hi; huber holds M; poisson's `b` is the counts (f(v) = Σ v − b log v).
struct Term {
    Penalty penalty;
    double alpha = 1;
    OpPtr K;
    Vec b;
    int groups = 1;
    double lo = 0, hi = 1, M = 1;
};

struct Problem {
    std::size_t n = 0;  // samples of x
    std::vector<Term> terms;
};

/// The objective in float64 (indicators: 0 within 1e-9·scale, else +inf).
double objective(const Problem& p, const Vec& x);
/// ‖[K_1; …; K_k]‖ of the given terms, by Lanczos with full reorthogonalization until the top Ritz
/// value's residual is below 1e-10 of it.
double stacked_norm(const std::vector<const Term*>& terms, std::size_t n);

struct Trace {
    std::vector<double> objective;  // after each iteration (index 0: iteration 1)
    Vec x;
    double norm = 0;                // ‖K‖ the steps used (PDHG), or ρ (ADMM)
};
/// PDHG with τ = σ = 1/‖K‖: x-step terms (a quadratic α‖x − b‖² and interval constraints on x
/// itself) in g, every other term dualized. `every`: objective every that many iterations (the
/// trace repeats the last value in between).
Trace pdhg(const Problem& p, const Vec& x0, int iters, int every = 1,
           const std::function<bool(int, double)>& stop = nullptr);
/// ADMM with fixed ρ (see the top of the file): quadratics in the x-update, everything else split.
Trace admm(const Problem& p, const Vec& x0, int iters, int every = 1,
           const std::function<bool(int, double)>& stop = nullptr);

}  // namespace proxgen::bench::ref
