// diff_fn: a smooth separable penalty Σ_p f(e_p) that the user writes as a Halide expression —
// an opt-in header: it includes Halide.h (link Halide::Halide), which the rest of ProxGen's public
// headers avoid.
//
//   #include <proxgen/diff_fn.hpp>
//   // pseudo-Huber: f(u) = √(1 + u²) − 1, f' is 1-Lipschitz
//   auto f = [](Halide::Expr u) { return Halide::sqrt(1.0f + u * u) - 1.0f; };
//   auto prob = pg::sum_squares(x - b) + 0.1f * pg::diff_fn(pg::grad(x), f, 1.0);
//
// Its prox has no closed form: ProxGen takes `steps` gradient steps on α f(t) + ρ/2 (t − t₀)²
// from t₀, with f' from Halide's autodiff and the step 1/(αL + ρ) for L the Lipschitz constant
// of f' that the user gives. Each step contracts the error by αL/(αL + ρ): more steps where α L
// is large against ρ. f must be convex for the solvers' guarantees (smoothness alone is not enough).
#pragma once

#include <atomic>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include <Halide.h>

#include "proxgen/catalogue/penalties/diff_fn.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/typed/penalty.hpp"
#include "proxgen/typed/to_ir.hpp"
#include "proxgen/typed/traits.hpp"

namespace proxgen::ir {

/// A diff_fn's smooth function (the term's code).
struct SmoothFunction : Opaque {
    std::function<Halide::Expr(Halide::Expr)> f;
    double lipschitz = 1;  // of f'
    int steps = 10;
};

/// The smooth function of a diff_fn term.
inline const SmoothFunction& smooth_function(const Term& t) { return static_cast<const SmoothFunction&>(*t.code); }

}  // namespace proxgen::ir

namespace proxgen::dsl {

/// e, tagged with the smooth function of the diff_fn penalty around it (the planner's rules leave
/// a tagged argument alone, so the function cannot be lost when terms are rewritten).
template <class E>
struct smooth_arg_t {
    static constexpr int rank = E::rank;
    std::shared_ptr<const ir::SmoothFunction> fn;
    E arg;
    std::vector<int> shape;
};
template <class E> struct is_expression<smooth_arg_t<E>> : std::true_type {};

}  // namespace proxgen::dsl

namespace proxgen::traits {
/// The tag is the identity: every trait is its argument's.
template <class E>
struct linear_traits<dsl::smooth_arg_t<E>> : linear_traits<E> {};
}  // namespace proxgen::traits

namespace proxgen::typed {
template <class E>
ir::Node to_ir(const dsl::smooth_arg_t<E>& e, TypedVariables& vars) {
    return to_ir(e.arg, vars);  // the function travels on the ir::Term
}
}  // namespace proxgen::typed

namespace proxgen {

/// pg::diff_fn(e, f, L[, steps, name]): Σ_p f(e_p) for a smooth f given as a Halide expression of
/// one variable, whose derivative is L-Lipschitz.
template <class E>
auto diff_fn(E e, std::function<Halide::Expr(Halide::Expr)> f, double lipschitz, int steps = 10,
             std::string name = "diff_fn") {
    static_assert(dsl::Expression<E>, "diff_fn takes a linear or affine expression of a variable");
    if (!f) fail("diff_fn '{}': the function is empty", name);
    if (!(std::isfinite(lipschitz) && lipschitz > 0))
        fail("diff_fn '{}': the Lipschitz constant of f' must be finite and > 0, got {}", name, lipschitz);
    if (steps < 1 || steps > 1000) fail("diff_fn '{}': steps must be between 1 and 1000, got {}", name, steps);
    auto fn = std::make_shared<ir::SmoothFunction>();
    fn->name = std::move(name);
    fn->id = ir::next_code_id();
    fn->f = std::move(f);
    fn->lipschitz = lipschitz;
    fn->steps = steps;
    std::vector<int> shape = dsl::shape_of(e);
    using A = dsl::smooth_arg_t<E>;
    return dsl::make_penalty<dsl::penalty_kind::diff_fn>(A{std::move(fn), std::move(e), std::move(shape)});
}

}  // namespace proxgen
