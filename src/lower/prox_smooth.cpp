// diff_fn's prox: argmin_t α f(t) + ρ/2 (t − t₀)² by gradient steps. In the generalised form the
// caller hands over t₀ = a v + c and τ = α a²/ρ; scaled by 1/ρ the gradient is τ f'(t) + t − t₀,
// whose Lipschitz constant is τL + 1, so each step is t ← t − (τ f'(t) + t − t₀)/(τL + 1).
// f' comes from Halide's autodiff of the user's expression, one derivative per step (each step's
// t is its own Func, computed per strip, so the expression does not grow with the steps).
#include "proxgen/diff_fn.hpp"

#include "card_lowering.hpp"

namespace proxgen::lower {

using namespace Halide;

Expr Back::smooth_prox(const ProxSpec& spec, const Func& t0, const std::vector<Expr>& extents, Expr tau) const {
    if (const auto* h = catalogue::penalties::diff_fn::host(*spec.term)) {
        // the host's prox reads t₀ whole (an extern stage's input is computed before it)
        const auto at = args(int(extents.size()));
        Func whole("host_smooth_t0");
        whole(at) = t0(at);
        // τ = α a² / ρ with a = β: the planner leaves a diff_fn's argument alone, so no weight image
        // is absorbed into a and τ is the same at every pixel; the stage takes its value at the origin
        for (const Expr& v : at) tau = Internal::substitute(v.as<Internal::Variable>()->name, Expr(0), tau);
        return host_smooth_prox(*h, st.add_root(whole), extents, tau)(at);
    }
    const ir::SmoothFunction& f = ir::smooth_function(*spec.term);
    const int r = int(extents.size());
    const auto at = args(r);
    Region bounds;
    Expr inside = Internal::const_true();
    for (int d = 0; d < r; ++d) {
        bounds.push_back({0, extents[d]});
        inside = inside && at[d] >= 0 && at[d] < extents[d];
    }
    // the seed of ∂(Σ f(t))/∂t: 1 on the image, 0 outside (propagate_adjoints needs that)
    Func seed("smooth_seed");
    seed(at) = select(inside, 1.0f, 0.0f);
    Func t("smooth_t0");
    t(at) = t0(at);
    st.add(t);
    Expr L = float(f.lipschitz);
    for (int k = 0; k < f.steps; ++k) {
        Func value("smooth_value");
        value(at) = f.f(t(at));
        Derivative d = propagate_adjoints(value, seed, bounds);
        Func grad = d(t);
        if (!grad.defined())
            fail("diff_fn '{}': Halide's autodiff found no derivative of the function", f.name);
        Func next("smooth_t" + std::to_string(k + 1));
        next(at) = t(at) - (tau * grad(at) + t(at) - t0(at)) / (tau * L + 1.0f);
        st.add(next);
        t = next;
    }
    return t(at);
}

Expr Back::smooth_value(const ir::Term& t, Expr v) const {
    if (catalogue::penalties::diff_fn::host(t)) return v;  // the card's value() applies f to the whole argument
    return ir::smooth_function(t).f(std::move(v));
}

}  // namespace proxgen::lower
