// ‖K‖ for the step-size rules. τσ‖K‖² ≤ 1 (PC) and μ ≤ λ/‖K‖² (L-ADMM) need an upper bound on
// the norm of the stacked Ψ operator, and ρ₀ = ω/‖K‖² uses the same numbers: a bound that is 2×
// too large halves the steps (and skews ρ₀ by 4×). The cards' bounds are exact on the variable
// itself for most operators (a circular convolution with a single-signed kernel, grad, weights,
// selections, colour and per-pixel matrices, scales: each card says so, plan::norm_bound_exact);
// they are loose for sums (triangle inequality: four weighted convolutions whose weights sum to one
// get 4 where the norm is ≤ 1), for masks and subsampling after a non-diagonal operator, for
// compositions, and for the stack of several Ψ operators (√Σ‖K_i‖² ≥ ‖[K_1; …; K_n]‖, equal only
// when the top singular vectors coincide).
//
// Where a bound is not known to be exact (or there is none: user operators), ‖K‖ is estimated on
// the actual operator and data by Lanczos on KᵀK (the Krylov acceleration of power iteration: the
// same applications of K and Kᵀ, but the largest Ritz value converges in tens of steps where power
// iteration needs thousands for convolutions, whose spectrum is dense near the top). Each step
// gives an a-posteriori bound: the Ritz value θ plus its residual |β·s| bounds an eigenvalue of KᵀK
// from above, so the estimate approaches ‖K‖² from above once the top eigenvalue is found (a random
// start has it). The estimate is √(θ + |β·s|) × kMargin, kept only where it is below the planner's
// bound (which stays a guarantee). Estimates are cached per structure and data fingerprint, so a
// re-solve with the same data does not repeat them.
#include <algorithm>
#include <optional>
#include <string>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <numeric>
#include <random>

#include "engine.hpp"
#include "proxgen/error.hpp"
#include "proxgen/plan/planner.hpp"

namespace proxgen::detail {

using namespace Halide;

namespace {

/// Stop once the residual bound is below this fraction of θ (θ + residual then overestimates the
/// top eigenvalue of KᵀK by at most 0.1 %, ‖K‖ by 0.05 %).
constexpr double kRelativeResidual = 1e-3;
/// Lanczos steps at most (each one application of every K_iᵀK_i).
constexpr int kMaxSteps = 40;
/// Covers float32 rounding in the Gram pipelines (relative ~1e-6 per application) and a Ritz value
/// that has not yet met the top eigenvalue when the step limit stops it early (tested: within 1 %
/// of the true norm on operators with known norms, never below).
constexpr double kMargin = 1.003;

/// KᵀK v for one term (built, not compiled): one output per variable.
struct GramOfTerm {
    lower::Params params;
    lower::StateParams v;
    Pipeline pipe;
    explicit GramOfTerm(const ir::Problem& single) : params(single), v(single, "v") {
        const lower::State vin = v.lowered();
        lower::Lowerer L(single, params, vin);
        lower::Stages st;
        const lower::Lowered kv = L.forward(single.psi[0].expr, vin, lower::Part::linear, st);
        const auto back = L.adjoint_state(single.psi[0].expr, kv, st);
        std::vector<Func> outs;
        std::vector<int> ranks;
        for (std::size_t j = 0; j < vin.size(); ++j) {
            Func out(jit::state_name("gram_of_term", int(j)));
            const auto av = lower::args(vin[j].rank());
            if (back[j]) out(av) = (*back[j])(av);
            else out(av) = 0.0f;
            outs.push_back(out);
            ranks.push_back(vin[j].rank());
        }
        lower::schedule_outputs(outs, ranks, st);
        pipe = Pipeline(outs);
    }
    std::vector<Argument> arguments() const {
        auto a = params.arguments();
        v.append_to(a);
        return a;
    }
};

/// A problem holding only term t, over p's variables.
ir::Problem single_term(const ir::Problem& p, const ir::Term& t) {
    ir::Problem single;
    single.variable_shape = p.variable_shape;
    single.variables = p.variables;
    single.psi = {t};
    ir::assign_slots(single);
    return single;
}

bool known(double bound) { return std::isfinite(bound) && bound > 0; }

/// FNV-1a over the data a term's operator reads (its images and scalars): the cache key's data part.
void fingerprint(const ir::Node& n, std::uint64_t& h) {
    auto mix = [&](const void* p, std::size_t bytes) {
        const auto* b = static_cast<const unsigned char*>(p);
        for (std::size_t i = 0; i < bytes; ++i) h = (h ^ b[i]) * 0x100000001b3ULL;
    };
    mix(&n.scalar, sizeof n.scalar);
    mix(&n.norm_factor, sizeof n.norm_factor);
    if (!n.image.empty()) {
        const auto sizes = n.image.sizes();
        mix(sizes.data(), sizes.size() * sizeof(int));
        mix(n.image.data(), n.image.size() * sizeof(float));
    }
    if (n.code) {  // process-local code (user operators): its address names it
        const void* c = n.code.get();
        mix(&c, sizeof c);
    }
    for (const auto& a : n.args) fingerprint(a, h);
}

std::string cache_key(const ir::Problem& p, const std::vector<const ir::Term*>& terms) {
    std::string key = shape_string(p.variable_shape);
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const ir::Term* t : terms) {
        key += "|" + ir::signature(single_term(p, *t));
        fingerprint(t->expr, h);
    }
    return key + "#" + std::to_string(h);
}

std::mutex cache_mutex;
std::map<std::string, double>& estimate_cache() {
    static std::map<std::string, double> cache;  // key → ‖K‖ estimate (with the margin)
    return cache;
}

/// Largest eigenvalue of the symmetric tridiagonal T (diagonal a, off-diagonal b) and the last
/// component of its unit eigenvector, by Jacobi rotations on the dense matrix (T is at most
/// kMaxSteps × kMaxSteps).
std::pair<double, double> top_ritz_pair(const std::vector<double>& a, const std::vector<double>& b) {
    const int m = int(a.size());
    std::vector<double> A(std::size_t(m) * m, 0.0), V(std::size_t(m) * m, 0.0);
    auto at = [m](std::vector<double>& M, int i, int j) -> double& { return M[std::size_t(i) * m + j]; };
    for (int i = 0; i < m; ++i) {
        at(A, i, i) = a[i];
        at(V, i, i) = 1.0;
        if (i + 1 < m) at(A, i, i + 1) = at(A, i + 1, i) = b[i];
    }
    for (int sweep = 0; sweep < 100; ++sweep) {
        double off = 0, diag = 0;
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < m; ++j) (i == j ? diag : off) += at(A, i, j) * at(A, i, j);
        if (off <= 1e-30 * std::max(diag, 1e-300)) break;
        for (int p = 0; p < m; ++p)
            for (int q = p + 1; q < m; ++q) {
                const double apq = at(A, p, q);
                if (apq == 0) continue;
                const double theta = (at(A, q, q) - at(A, p, p)) / (2 * apq);
                const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
                const double c = 1 / std::sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < m; ++k) {  // A ← Jᵀ A J
                    const double akp = at(A, k, p), akq = at(A, k, q);
                    at(A, k, p) = c * akp - s * akq;
                    at(A, k, q) = s * akp + c * akq;
                }
                for (int k = 0; k < m; ++k) {
                    const double apk = at(A, p, k), aqk = at(A, q, k);
                    at(A, p, k) = c * apk - s * aqk;
                    at(A, q, k) = s * apk + c * aqk;
                }
                for (int k = 0; k < m; ++k) {
                    const double vkp = at(V, k, p), vkq = at(V, k, q);
                    at(V, k, p) = c * vkp - s * vkq;
                    at(V, k, q) = s * vkp + c * vkq;
                }
            }
    }
    int top = 0;
    for (int i = 1; i < m; ++i)
        if (at(A, i, i) > at(A, top, top)) top = i;
    return {at(A, top, top), at(V, m - 1, top)};
}

jit::KernelPtr gram_kernel(const ir::Problem& single) {
    double compile_seconds = 0;
    return cached_as<jit::Kernel>("norm:" + ir::signature(single), [&] {
        LazyPipelines<GramOfTerm> g(single);
        return kernel_for(single, "norm", g.source(&GramOfTerm::pipe));
    }, compile_seconds);
}

/// ‖[K_1; …; K_n]‖ of the given terms by Lanczos on Σ K_iᵀK_i (see the top of the file).
double lanczos_norm(const ir::Problem& p, const std::vector<const ir::Term*>& terms, const std::string& what) {
    std::vector<ir::Problem> singles;
    std::vector<jit::KernelPtr> kernels;
    for (const ir::Term* t : terms) {
        singles.push_back(single_term(p, *t));
        kernels.push_back(gram_kernel(singles.back()));
    }
    // calls bind their images and data by address: every container is filled before binding
    Image v(p.variable_shape);
    std::vector<Image> w;
    for (std::size_t i = 0; i < terms.size(); ++i) w.emplace_back(p.variable_shape);
    std::deque<lower::DataArgs> data;
    std::deque<jit::Call> grams;
    const auto shapes = ir::variable_shapes(p);
    for (std::size_t i = 0; i < terms.size(); ++i) {
        data.emplace_back(singles[i]);
        grams.emplace_back(kernels[i]);
        data.back().bind(grams.back());
        grams.back().in_state("v", v, shapes).out_state(0, w[i], shapes);
    }
    const std::size_t n = v.size();
    std::vector<double> q(n), q_prev(n, 0.0), r(n);
    std::mt19937 gen(12345);
    std::normal_distribution<double> normal;
    double nq = 0;
    for (auto& e : q) {
        e = normal(gen);
        nq += e * e;
    }
    nq = std::sqrt(nq);
    for (auto& e : q) e /= nq;
    std::vector<double> alpha, beta;
    double estimate = 0, beta_prev = 0;
    for (int step = 0; step < kMaxSteps; ++step) {
        for (std::size_t i = 0; i < n; ++i) v.data()[i] = float(q[i]);
        for (auto& g : grams) g.run();
        double a = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double s = 0;
            for (const Image& wi : w) s += wi.data()[i];
            r[i] = s;
            a += s * q[i];
        }
        double bnext = 0;
        for (std::size_t i = 0; i < n; ++i) {
            r[i] -= a * q[i] + beta_prev * q_prev[i];
            bnext += r[i] * r[i];
        }
        bnext = std::sqrt(bnext);
        alpha.push_back(a);
        const auto [theta, last] = top_ritz_pair(alpha, beta);
        const double residual = std::abs(bnext * last);
        if (!std::isfinite(theta) || !std::isfinite(residual))
            fail("estimating ||K|| of {}: the operator produced non-finite values", what);
        estimate = theta + residual;
        if (theta <= 0 && bnext <= 0) return 0;  // K v = 0 from a random start: K is 0 (up to rounding)
        if (residual <= kRelativeResidual * theta || bnext <= 1e-12 * std::max(theta, 1e-300)) break;
        beta.push_back(bnext);
        beta_prev = bnext;
        std::swap(q_prev, q);
        for (std::size_t i = 0; i < n; ++i) q[i] = r[i] / bnext;
    }
    return kMargin * std::sqrt(std::max(estimate, 0.0));
}

double cached_norm(const ir::Problem& p, const std::vector<const ir::Term*>& terms, const std::string& what) {
    const std::string key = cache_key(p, terms);
    {
        std::lock_guard<std::mutex> lock(cache_mutex);
        auto it = estimate_cache().find(key);
        if (it != estimate_cache().end()) return it->second;
    }
    const double v = lanczos_norm(p, terms, what);
    std::lock_guard<std::mutex> lock(cache_mutex);
    if (estimate_cache().size() > 256) estimate_cache().clear();  // bounded: data fingerprints vary
    estimate_cache()[key] = v;
    return v;
}

}  // namespace

double power_iteration_norm(const ir::Problem& p, const ir::Term& t) { return cached_norm(p, {&t}, t.text); }

double stacked_norm_estimate(const ir::Problem& p, const std::vector<const ir::Term*>& terms) {
    return cached_norm(p, terms, "the stacked Psi operators");
}

double stacked_norm_estimate(const ir::Problem& p) {
    std::vector<const ir::Term*> terms;
    for (const auto& t : p.psi) terms.push_back(&t);
    return stacked_norm_estimate(p, terms);
}

namespace {
/// PROXGEN_TIGHT_NORMS=0 keeps the planner's bounds where they exist (the step rules as they were
/// before the estimates; for the convergence benchmark's before/after tables); unset, empty or 1:
/// the estimates. Any other value is an error, not silently "on".
bool tight_norms() {
    static const std::optional<bool> on = []() -> std::optional<bool> {
        const char* v = std::getenv("PROXGEN_TIGHT_NORMS");
        if (!v || std::string(v).empty() || std::string(v) == "1") return true;
        if (std::string(v) == "0") return false;
        return std::nullopt;
    }();
    if (!on)
        fail("the environment variable PROXGEN_TIGHT_NORMS must be 0 (the planner's norm bounds) or 1 (tight "
             "estimates, the default), got '{}'", std::getenv("PROXGEN_TIGHT_NORMS"));
    return *on;
}
}  // namespace

NormEstimates estimate_norms(const ir::Problem& p) {
    NormEstimates e;
    e.problem = p;
    const bool tight = tight_norms();
    // A known bound that is not exact becomes the estimate where that is smaller (the bound stays a
    // guarantee); true when it did.
    auto tighten = [&](ir::Term& t) {
        if (!tight || plan::norm_bound_exact(t.expr)) return false;
        const double est = power_iteration_norm(e.problem, t);
        const bool below = est < t.norm_bound;
        t.norm_bound = std::min(t.norm_bound, est);
        return below;
    };
    for (auto& t : e.problem.psi) {
        if (known(t.norm_bound)) {
            e.estimated.push_back(tighten(t));
        } else {
            t.norm_bound = power_iteration_norm(e.problem, t);
            e.estimated.push_back(true);
        }
    }
    // The absorbed terms' norms set the smooth terms' curvature scale ω, hence ρ₀ = ω/‖K‖² (and PC's
    // σ₀, L-ADMM's λ): a sum of four masked convolutions whose masks sum to one has the bound 4 where
    // its norm is 0.95, which made ρ₀ 16× too large and ADMM 3.4× slower to 1e-4 than with the
    // reference's ρ. Their bounds are tightened like the split terms' (a missing one stays missing:
    // nothing in the x-update needs it).
    for (auto& t : e.problem.omega)
        if (known(t.norm_bound)) tighten(t);
    // KᵀK is block-diagonal over the groups of variables that no term couples (coupled_blocks): ‖K‖ is
    // the largest block's norm, and within a block √Σ‖K_i‖² is as tight as its parts when at most
    // one operator is not a multiple of the identity (s·I commutes with KᵀK: ‖[K; sI]‖² = ‖K‖² + s²)
    double worst = 0;
    for (const auto& terms : coupled_blocks(e.problem, false)) {
        double squares = 0;
        int general = 0;
        for (const ir::Term* t : terms) {
            squares += t->norm_bound * t->norm_bound;
            general += plan::linear_facts(t->expr).scalar_identity ? 0 : 1;
        }
        bool estimated = false;
        if (tight && general >= 2) {
            const double est = stacked_norm_estimate(e.problem, terms);
            if (est * est < squares) squares = est * est, estimated = true;
        }
        if (squares > worst || (squares == worst && !estimated)) {
            worst = squares;
            e.stacked_estimated = estimated;
        }
    }
    e.stacked = std::sqrt(worst);
    return e;
}

ir::Problem with_norm_bounds(const ir::Problem& p) {
    NormEstimates e = estimate_norms(p);
    e.problem.psi_norm = e.stacked;
    return std::move(e.problem);
}

}  // namespace proxgen::detail
