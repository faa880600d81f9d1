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
// the actual operator and data by the norm-estimate card (proxgen/algorithms/norm_estimate.hpp:
// Lanczos on KᵀK, approaching ‖K‖ from above), kept only where it is below the planner's bound
// (which stays a guarantee). Estimates are cached per structure and data fingerprint, so a
// re-solve with the same data does not repeat them.
#include <algorithm>
#include <atomic>
#include <functional>
#include <future>
#include <system_error>
#include <thread>
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
#include "per_card.hpp"
#include "proxgen/algorithms/norm_estimate.hpp"
#include "proxgen/error.hpp"
#include "proxgen/plan/planner.hpp"

namespace proxgen::detail {

using namespace Halide;

GramOfTerm::GramOfTerm(const ir::Problem& p, const ir::Term& t) : params(p), v(p, "v") {
    const lower::State vin = v.lowered();
    lower::Lowerer L(p, params, vin);
    lower::Stages st;
    const lower::Lowered kv = L.forward(t.expr, vin, lower::Part::linear, st);
    const auto back = L.adjoint_state(t.expr, kv, st);
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

std::vector<Argument> GramOfTerm::arguments() const {
    auto a = params.arguments();
    v.append_to(a);
    return a;
}

namespace {

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

jit::KernelPtr gram_kernel(const ir::Problem& single) {
    double compile_seconds = 0;
    return cached_as<jit::Kernel>("norm:" + ir::signature(single), [&] {
        LazyPipelines<GramOfTerm> g(single);
        return kernel_for(single, "norm", g.source(&GramOfTerm::pipe));
    }, compile_seconds);
}

/// v = q in float32, as the Gram applications take it. (The runners' elementwise loops run in pieces
/// on the kernels' threads: the same values on any thread.)
void round_to_float(const std::vector<double>& q, float* v) {
    jit::in_pieces(long(q.size()), long(q.size()), [&](long first, long last) {
        for (long i = first; i < last; ++i) v[i] = float(q[std::size_t(i)]);
    });
}

/// Σ K_iᵀK_i v of the given terms in the per-card tier: each operator node by node.
struct PerCardGram {
    const ir::Problem& p;
    std::deque<PerCardOperator> ops;
    std::vector<Image> parts;  // Σ K_iᵀK_i v per variable
    PerCardGram(const ir::Problem& problem, const std::vector<const ir::Term*>& terms) : p(problem) {
        SharedBuffers shared;
        for (const ir::Term* t : terms) ops.emplace_back(p, t->expr, shared, PerCardOutputs::read_at_once);
        for (const auto& shape : ir::variable_shapes(p)) parts.emplace_back(shape);
    }
    std::size_t size() const {
        std::size_t n = 0;
        for (const Image& part : parts) n += part.size();
        return n;
    }
    Image v{p.variable_shape};  // q in float32, reused (fresh pages cost more than the copy)
    bool apply(const std::vector<double>& q, std::vector<double>& out) {
        round_to_float(q, v.data());
        const std::vector<Image> vs = ir::split_state(p, v);
        for (Image& part : parts) std::fill_n(part.data(), part.size(), 0.0f);
        for (PerCardOperator& op : ops) {
            const Image kv = op.linear(vs);  // (the operator's buffer, read by its adjoint below)
            op.adjoint_add(kv, parts);
        }
        std::size_t offset = 0;
        for (const Image& part : parts) {
            const float* pd = part.data();
            double* o = out.data() + offset;
            jit::in_pieces(long(part.size()), long(part.size()), [&](long first, long last) {
                for (long e = first; e < last; ++e) o[e] = pd[e];
            });
            offset += part.size();
        }
        return true;
    }
};

/// ‖[K_1; …; K_n]‖ of the given terms by Lanczos on Σ K_iᵀK_i (see the top of the file), with
/// the Gram kernel of each term's whole operator or (per_card) node by node.
double lanczos_norm(const ir::Problem& p, const std::vector<const ir::Term*>& terms, const std::string& what,
                    bool per_card, double ceiling) {
    if (per_card) {
        PerCardGram gram(p, terms);
        double norm = 0;
        if (algorithms::lanczos_norm(gram, norm, ceiling) == algorithms::NormEstimate::non_finite)
            fail("estimating ||K|| of {}: the operator produced non-finite values", what);
        return norm;
    }
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
    struct Runner {
        Image& v;
        std::vector<Image>& w;
        std::deque<jit::Call>& grams;
        std::size_t size() const { return v.size(); }
        bool apply(const std::vector<double>& q, std::vector<double>& out) {
            round_to_float(q, v.data());
            const long n = long(q.size());
            for (auto& g : grams) g.run();
            jit::in_pieces(n, n * long(w.size()), [&](long first, long last) {
                for (long i = first; i < last; ++i) {
                    double s = 0;
                    for (const Image& wi : w) s += wi.data()[i];
                    out[std::size_t(i)] = s;
                }
            });
            return true;
        }
    } runner{v, w, grams};
    double norm = 0;
    if (algorithms::lanczos_norm(runner, norm, ceiling) == algorithms::NormEstimate::non_finite)
        fail("estimating ||K|| of {}: the operator produced non-finite values", what);
    return norm;
}

double cached_norm(const ir::Problem& p, const std::vector<const ir::Term*>& terms, const std::string& what,
                   bool per_card, double ceiling) {
    // (the tiers' Gram applications round differently: each keeps its own estimates, so that a
    // solve's steps do not depend on which tier estimated first; an estimate stopped at its
    // ceiling is kept for that ceiling only)
    const std::string key = cache_key(p, terms) + (per_card ? "|per card" : "") + fmt::format("|{}", ceiling);
    {
        std::lock_guard<std::mutex> lock(cache_mutex);
        auto it = estimate_cache().find(key);
        if (it != estimate_cache().end()) return it->second;
    }
    const double v = lanczos_norm(p, terms, what, per_card, ceiling);
    std::lock_guard<std::mutex> lock(cache_mutex);
    if (estimate_cache().size() > 256) estimate_cache().clear();  // bounded: data fingerprints vary
    estimate_cache()[key] = v;
    return v;
}

}  // namespace

void forget_norm_estimates() {
    std::lock_guard<std::mutex> lock(cache_mutex);
    estimate_cache().clear();
}

double power_iteration_norm(const ir::Problem& p, const ir::Term& t, bool per_card, double ceiling) {
    return cached_norm(p, {&t}, t.text, per_card, ceiling);
}

double stacked_norm_estimate(const ir::Problem& p, const std::vector<const ir::Term*>& terms, bool per_card,
                             double ceiling) {
    return cached_norm(p, terms, "the stacked Psi operators", per_card, ceiling);
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

namespace {
/// A term whose norm estimate_norms estimates, and the bound it keeps unless the estimate is
/// smaller (+inf where it has none).
struct Estimate {
    ir::Term* term;
    double ceiling;
    int psi = -1;  // its index among the Ψ terms (−1: an Ω term)
};

/// The terms estimate_norms estimates in p (tight: the loose bounds too, not only the missing ones):
/// a known bound that is not exact (it becomes the estimate where that is smaller; the bound stays a
/// guarantee), and a missing bound of a Ψ term or of a gradient step.
std::vector<Estimate> estimates_of(ir::Problem& p, bool tight) {
    std::vector<Estimate> todo;
    const auto infinite = std::numeric_limits<double>::infinity();
    for (auto* list : {&p.psi, &p.omega})
        for (std::size_t i = 0; i < list->size(); ++i) {
            ir::Term& t = (*list)[i];
            const int psi = list == &p.psi ? int(i) : -1;
            if (known(t.norm_bound)) {
                if (tight && !plan::norm_bound_exact(t.expr)) todo.push_back({&t, t.norm_bound, psi});
            } else if (psi >= 0 || plan::gradient_step(p, t)) {
                todo.push_back({&t, infinite, psi});
            }
        }
    return todo;
}

/// Whether the stacked norm of a coupled block is estimated (with tight norms): two or more of its
/// operators are not multiples of the identity (with one, √Σ‖K_i‖² is as tight as its parts).
bool stacked_estimated(const std::vector<const ir::Term*>& terms) {
    int general = 0;
    for (const ir::Term* t : terms) general += plan::linear_facts(t->expr).scalar_identity ? 0 : 1;
    return general >= 2;
}

/// Estimates the terms' norms into the estimate cache two at a time where the variables are large:
/// a Lanczos run's vector work between its Gram applications is serial C++ that would leave the
/// second core idle (the 512² 17-term problem spent a quarter of its set-up there). Each estimate
/// is the one the sequential pass would compute (keyed by term, data and ceiling, deterministic); a
/// failing one is left out of the cache, so that pass estimates it again and throws in the terms'
/// order.
void estimate_side_by_side(const ir::Problem& p, const std::vector<Estimate>& todo, bool per_card) {
    long elements = 0;
    for (const auto& shape : ir::variable_shapes(p))
        elements += std::accumulate(shape.begin(), shape.end(), 1L, std::multiplies<long>());
    if (todo.size() < 2 || elements < jit::kParallelFromElements || jit::SerialKernels::active()) return;
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i; (i = next++) < todo.size();) {
            try {
                power_iteration_norm(p, *todo[i].term, per_card, todo[i].ceiling);
            } catch (...) {  // (estimated again, and reported, by the sequential pass)
            }
        }
    };
    std::optional<std::thread> other;
    try {
        other.emplace(work);
    } catch (const std::system_error&) {  // no second thread: this one estimates them all
    }
    work();
    if (other) other->join();
}
}  // namespace

namespace {
NormEstimates estimate_norms(const ir::Problem& p, bool per_card, bool tight) {
    NormEstimates e;
    e.problem = p;
    // What is estimated: a known bound that is not exact (it becomes the estimate where that is
    // smaller; the bound stays a guarantee), and a missing Ψ bound. The absorbed terms' norms set
    // the smooth terms' curvature scale ω, hence ρ₀ = ω/‖K‖² (and PC's σ₀, L-ADMM's λ): a sum of four
    // masked convolutions whose masks sum to one has the bound 4 where its norm is 0.95, which made
    // ρ₀ 16× too large and ADMM 3.4× slower to 1e-4 than with the reference's ρ; so their bounds are
    // tightened like the split terms' (a missing one stays missing: nothing in the x-update needs
    // it), except that Condat–Vũ's gradient steps need ‖A‖ of every such term (L of ∇h).
    const std::vector<Estimate> todo = estimates_of(e.problem, tight);
    estimate_side_by_side(e.problem, todo, per_card);
    e.estimated.assign(e.problem.psi.size(), false);  // per Ψ term: its bound replaced
    for (const Estimate& job : todo) {
        const double est = power_iteration_norm(e.problem, *job.term, per_card, job.ceiling);
        if (std::isfinite(job.ceiling) && !(est < job.ceiling)) continue;  // (a missing bound is the estimate)
        job.term->norm_bound = est;
        if (job.psi >= 0) e.estimated[std::size_t(job.psi)] = true;
    }
    // KᵀK is block-diagonal over the groups of variables that no term couples (coupled_blocks): ‖K‖ is
    // the largest block's norm, and within a block √Σ‖K_i‖² is as tight as its parts when at most
    // one operator is not a multiple of the identity (s·I commutes with KᵀK: ‖[K; sI]‖² = ‖K‖² + s²)
    double worst = 0;
    for (const auto& terms : coupled_blocks(e.problem, false)) {
        double squares = 0;
        for (const ir::Term* t : terms) squares += t->norm_bound * t->norm_bound;
        bool estimated = false;
        if (tight && stacked_estimated(terms)) {
            const double est = stacked_norm_estimate(e.problem, terms, per_card, std::sqrt(squares));
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

ir::Problem with_psi_norm(NormEstimates e) {
    e.problem.psi_norm = e.stacked;
    return std::move(e.problem);
}

std::atomic<int> forced_norms_after{-1};  // −1: none
thread_local bool norms_at_the_start = false;
}  // namespace

NormEstimates estimate_norms(const ir::Problem& p, bool per_card) { return estimate_norms(p, per_card, tight_norms()); }

ir::Problem with_norm_bounds(const ir::Problem& p, bool per_card) {
    return with_psi_norm(estimate_norms(p, per_card, tight_norms()));
}

ir::Problem with_planner_bounds(const ir::Problem& p) { return with_psi_norm(estimate_norms(p, false, false)); }

bool starts_on_bounds(const ir::Problem& p) {
    // (a batch member's run stays on its worker's core: no thread of its own)
    if (!tight_norms() || NormsAtTheStart::active() || jit::SerialKernels::active()) return false;
    ir::Problem q = p;  // (estimates_of points into the problem it reads)
    const std::vector<Estimate> todo = estimates_of(q, true);
    for (const Estimate& job : todo)
        if (!std::isfinite(job.ceiling)) return false;  // a missing bound: nothing to start from
    if (!todo.empty()) return true;
    for (const auto& terms : coupled_blocks(p, false))
        if (stacked_estimated(terms)) return true;
    return false;
}

PendingNorms::PendingNorms(const ir::Problem& planned, const HeadStart& head)
    : future_(std::async(std::launch::async, [p = planned, &head] {
          head.wait();
          return with_norm_bounds(p, true);
      })) {}

bool PendingNorms::ready(int iterations_done) {
    if (tight_) return true;
    if (const int forced = forced_norms_after.load(); forced >= 0) {
        if (iterations_done < forced) return false;
    } else if (future_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        return false;
    }
    tight();
    return true;
}

const ir::Problem& PendingNorms::tight() {
    if (!tight_) tight_ = future_.get();
    return *tight_;
}

void force_tight_norms_after(std::optional<int> iterations) { forced_norms_after = iterations ? *iterations : -1; }

NormsAtTheStart::NormsAtTheStart() : previous_(norms_at_the_start) { norms_at_the_start = true; }
NormsAtTheStart::~NormsAtTheStart() { norms_at_the_start = previous_; }
bool NormsAtTheStart::active() { return norms_at_the_start; }

}  // namespace proxgen::detail
