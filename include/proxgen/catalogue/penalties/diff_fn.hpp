// Card: diff_fn(e, f, L) — a smooth separable penalty Σ_p f(e_p) that the program writes as a
// Halide expression (proxgen/diff_fn.hpp holds the function; this card hands it to the back end).
// Its prox has no closed form: gradient steps with f' from Halide's autodiff. The rewrite rules
// leave its argument alone (the function is the user's).
#pragma once

#include <functional>
#include <optional>

#include "proxgen/catalogue/penalty_support.hpp"

namespace proxgen::catalogue::penalties {

/// A diff_fn whose function is host code (rt::host_diff_fn, Python's diff_fn): f and its gradient
/// on the whole argument, not necessarily separable. Its prox runs on the host (L-BFGS).
struct HostSmoothFunction : ir::Opaque {
    std::vector<int> shape;  ///< of the argument (Halide order)
    std::function<double(const Image&)> value;
    std::function<Image(const Image&)> gradient;
};

struct diff_fn {
    static constexpr const char* name = "diff_fn";
    static constexpr const char* summary = "diff_fn(e, f, L): a smooth penalty written as a Halide expression in C++ (proxgen/diff_fn.hpp)";
    static constexpr PenaltyFacts facts{.rewritable = false};

    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"diff_fn", {expr("e")}, true}, [](const Args&) -> Built {
            fail("diff_fn is written in Halide code, which a problem built by name cannot carry: build it in C++ with "
                 "proxgen/diff_fn.hpp (the typed DSL)");
        }}};
        return e;
    }
    /// The user's function, its derivative's steps staged.
    static bool local(const ir::Term&, bool, int) { return false; }
    /// A host function's term: the argument itself, and f of it.
    static const HostSmoothFunction* host(const ir::Term& t) { return dynamic_cast<const HostSmoothFunction*>(t.code.get()); }
    /// f per element (a host function's summand is the argument itself: host_value applies f).
    static auto summand(auto& h, const auto& f, auto v) { return h.to_double(h.smooth_value(*f.term, v)); }
    static std::optional<double> host_value(const ir::Term& t, const std::function<Image()>& argument) {
        if (const HostSmoothFunction* h = host(t)) return h->value(argument());
        return std::nullopt;
    }
    static auto prox(auto& h, const auto& f, const auto& t, const auto& extents, auto tau) {
        return h.smooth_prox(f, t, extents, tau);
    }
};

}  // namespace proxgen::catalogue::penalties
