// Support code of generated (ahead-of-time) solvers: status codes, options, state, and small
// helpers the generated headers call. Needs only the Halide runtime headers (no Halide.h, no libHalide, no
// LLVM), so it compiles for every target the generator emits for.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <initializer_list>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <HalideBuffer.h>
#include <HalideRuntime.h>

#include "proxgen/algorithms/loop.hpp"
#include "proxgen/catalogue/data_norms.hpp"

namespace proxgen::aot {

/// What every generated entry point returns. Errors never abort(): a Halide error inside a step
/// pipeline becomes `halide_error` with Halide's message in `last_error()`.
enum class Status : int {
    ok = 0,
    not_initialized = 1,   ///< step / solve / state before a successful init
    invalid_argument = 2,  ///< an option or size out of range, an empty or strided buffer
    shape_mismatch = 3,    ///< a data image's extents differ from what the problem needs
    non_finite_input = 4,  ///< NaN or Inf in a data image, a scalar or x0
    halide_error = 5,      ///< a step pipeline reported an error (e.g. out of memory, bounds)
    diverged = 6,          ///< a residual became NaN or Inf; reduce the step sizes
    bad_library = 7,       ///< the linked pipelines do not match this header (regenerate both)
    out_of_memory = 8,     ///< the solver's state or a pipeline's scratch memory could not be allocated
    unbounded = 9,         ///< the objective falls without bound along the iterates (HQS's check): no minimum
};

inline const char* to_string(Status s) {
    switch (s) {
    case Status::ok: return "ok";
    case Status::not_initialized: return "not_initialized";
    case Status::invalid_argument: return "invalid_argument";
    case Status::shape_mismatch: return "shape_mismatch";
    case Status::non_finite_input: return "non_finite_input";
    case Status::halide_error: return "halide_error";
    case Status::diverged: return "diverged";
    case Status::bad_library: return "bad_library";
    case Status::out_of_memory: return "out_of_memory";
    case Status::unbounded: return "unbounded";
    }
    return "unknown";
}

/// Options of a generated solver; the same meaning and defaults as proxgen::Options (pg::solve).
struct Options {
    int max_iters = 500;
    /// Stop when both residuals fall below √dim·eps_abs + eps_rel·scale. Both 0: run max_iters.
    double eps_abs = 1e-4, eps_rel = 1e-4;
    int check_every = 10;  ///< residuals are measured every check_every iterations and at the last
    double tau = 0, sigma = 0;  ///< Pock–Chambolle steps (0: from the plan, as pg::solve)
    double lambda = 0, mu = 0;  ///< linearized ADMM steps (0: from the plan, as pg::solve)
    double rho = 0;             ///< ADMM's and HQS's penalty ρ₀ (0: from the plan, as pg::solve)
    bool adaptive_rho = true;   ///< ADMM: residual balancing of ρ (where Ω is not empty, as pg::solve)
    double hqs_growth = 1.5;    ///< HQS: ρ ← ρ·growth at the end of each stage of hqs_every iterations ...
    int hqs_every = 20;
    double hqs_max_ratio = 1e5;  ///< ... up to ρ₀·hqs_max_ratio (as proxgen::Options)
    double cg_tol = 1e-3;       ///< CG x-updates: the residual reduction from the warm start
    int cg_max_iters = 50;      ///< CG x-updates: iterations per x-update at most
    bool accelerate = true;     ///< Chambolle & Pock's Algorithm 2 when Ω is strongly convex
    bool precondition = false;  ///< block-diagonal dual steps per split term, as proxgen::Options
};

/// Where a solve stands.
struct State {
    int iterations = 0;
    bool converged = false;
    bool finished = false;  ///< converged or max_iters reached
    double primal_residual = NAN, dual_residual = NAN;  ///< last measured
    double eps_primal = NAN, eps_dual = NAN;
    double tau = 0, sigma = 0, theta = 1;  ///< Pock–Chambolle's steps for the next iteration
    double lambda = 0, mu = 0;             ///< linearized ADMM's steps for the next iteration
    double rho = 0;                        ///< ADMM's and HQS's penalty for the next iteration
};

/// The message of the last error on this thread ("" when none).
inline std::string& last_error_message() {
    static thread_local std::string message;
    return message;
}

/// Installed by every generated solver's init: Halide's default handler prints to stderr (and
/// some runtimes abort); this one keeps the message so the entry point can return a Status.
inline void record_halide_error(void*, const char* message) { last_error_message() = message ? message : ""; }

inline void install_error_handler() { halide_set_error_handler(&record_halide_error); }

/// malloc that throws std::bad_alloc instead of returning null: Halide::Runtime::Buffer constructs
/// its allocation header in whatever its allocator returns, so a null would be written through.
inline void* allocate_or_throw(std::size_t bytes) {
    void* p = std::malloc(bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
}

/// A float32 state buffer of the given extents, uninitialised; throws std::bad_alloc when the
/// memory is not there (the solvers turn that into Status::out_of_memory).
inline Halide::Runtime::Buffer<float> state_buffer(const std::vector<int>& extents) {
    Halide::Runtime::Buffer<float> b(nullptr, extents);
    b.allocate(&allocate_or_throw, &std::free);
    return b;
}

/// The Status of a step pipeline's non-zero return code.
inline Status status_of_pipeline_error(int code) {
    return code == halide_error_code_out_of_memory ? Status::out_of_memory : Status::halide_error;
}

// ---- helpers for the generated formulas (dense float32 buffers, checked by init) ------------

using data::element_count;
using data::floats;

inline std::vector<int> extents(const halide_buffer_t* b) {
    std::vector<int> e;
    for (int d = 0; d < b->dimensions; ++d) e.push_back(b->dim[d].extent);
    return e;
}

/// "512x512x2"
inline std::string shape_text(const std::vector<int>& e) {
    std::string s;
    for (std::size_t i = 0; i < e.size(); ++i) s += (i ? "x" : "") + std::to_string(e[i]);
    return s;
}

/// Dense float32 with x fastest (the layout every generated pipeline and formula assumes).
inline bool dense_float(const halide_buffer_t* b) {
    if (!b || !b->host || b->type.code != halide_type_float || b->type.bits != 32) return false;
    std::int64_t stride = 1;
    for (int d = 0; d < b->dimensions; ++d) {
        if (b->dim[d].stride != stride || b->dim[d].min != 0) return false;
        stride *= b->dim[d].extent;
    }
    return true;
}

inline bool all_finite(const halide_buffer_t* b) {
    const float* d = floats(b);
    for (std::size_t i = 0, n = element_count(b); i < n; ++i)
        if (!std::isfinite(d[i])) return false;
    return true;
}

/// One term's data peak (algorithms::term_data_peak) from its offset c and its weight w (null, or
/// weighing groups when its size differs from c's: left out, as the JIT does).
inline double term_data_peak(const halide_buffer_t* c, const halide_buffer_t* w, double beta) {
    const std::size_t n = element_count(c);
    const float* weights = w && element_count(w) == n ? floats(w) : nullptr;
    return algorithms::term_data_peak(floats(c), n, weights, beta);
}

/// The data slots init made of the user's named images: a deque, so that the buffers a slot
/// points to stay put while later slots are made.
using MadeData = std::deque<Halide::Runtime::Buffer<float>>;

/// A data slot made of the user's named images, Σ factor · image (what the rewrite rules make of
/// them: −b for `… − b`), summed in float64 in the sources' order and kept in `made`; null when a
/// source is not a dense float32 buffer or the sources' extents differ (init then names the field).
/// Where a source holds a non-finite value the slot holds that value itself, so that init's
/// sentence reports the user's value (−inf in b, not the +inf of −b).
inline halide_buffer_t* combine(MadeData& made, std::initializer_list<std::pair<const halide_buffer_t*, double>> sources) {
    const halide_buffer_t* first = sources.begin()->first;
    for (const auto& [b, f] : sources)
        if (!dense_float(b) || extents(b) != extents(first)) return nullptr;
    Halide::Runtime::Buffer<float> out = state_buffer(extents(first));
    float* o = out.data();
    for (std::size_t i = 0, n = element_count(first); i < n; ++i) {
        double v = 0;
        for (const auto& [b, f] : sources) {
            const float x = floats(b)[i];
            if (!std::isfinite(x)) {
                v = x;
                break;
            }
            v += f * x;
        }
        o[i] = float(v);
    }
    made.push_back(out);
    return made.back().raw_buffer();
}

/// ‖a‖₂ in float64, in memory order (as the JIT's norm2, so both sum alike).
inline double norm2(Halide::Runtime::Buffer<float>& a) {
    a.copy_to_host();
    double s = 0;
    const float* d = a.data();
    for (std::size_t i = 0, n = a.number_of_elements(); i < n; ++i) s += double(d[i]) * d[i];
    return std::sqrt(s);
}

}  // namespace proxgen::aot
