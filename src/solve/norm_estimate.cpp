// ‖K‖ by power iteration, for operators whose traits give no bound (norm_bound not finite or
// ≤ 0: e.g. user-defined operators). The step-size rules of every algorithm need ‖K‖; a loose
// bound only slows them, an underestimate can make them diverge, hence the safety margin.
#include <cmath>
#include <random>

#include "engine.hpp"
#include "proxgen/error.hpp"

namespace proxgen::detail {

using namespace Halide;

namespace {

constexpr int kPowerIterations = 40;
constexpr double kMargin = 1.05;  // power iteration approaches ‖K‖ from below

/// KᵀK v for one term (built, not compiled).
struct GramOfTerm {
    lower::Params params;
    ImageParam v;
    Pipeline pipe;
    explicit GramOfTerm(const ir::Problem& single) : params(single), v(Float(32), int(single.variable_shape.size()), "v") {
        const lower::Lowered vin = lower::input(v);
        lower::Lowerer L(single, params, vin.extents);
        lower::Stages st;
        const lower::Lowered kv = L.forward(single.psi[0].expr, vin, lower::Part::linear, st);
        Func out("gram_of_term");
        const auto av = lower::args(int(single.variable_shape.size()));
        if (auto back = L.adjoint(single.psi[0].expr, kv, st)) out(av) = (*back)(av);
        else out(av) = 0.0f;
        lower::schedule_output(out, int(av.size()), st);
        pipe = Pipeline(out);
    }
    std::vector<Argument> arguments() const {
        auto a = params.arguments();
        a.emplace_back(v);
        return a;
    }
};

bool known(double bound) { return std::isfinite(bound) && bound > 0; }

}  // namespace

double power_iteration_norm(const ir::Problem& p, const ir::Term& t) {
    ir::Problem single;
    single.variable_shape = p.variable_shape;
    single.psi = {t};
    ir::assign_slots(single);
    double compile_seconds = 0;
    auto kernel = cached_as<jit::Kernel>("norm:" + ir::signature(single), [&] {
        LazyPipelines<GramOfTerm> g(single);
        return kernel_for(single, "norm", g.source(&GramOfTerm::pipe));
    }, compile_seconds);
    Image v(p.variable_shape), w(p.variable_shape);
    const lower::DataArgs data(single);
    jit::Call gram(kernel);
    data.bind(gram);
    gram.in("v", v).out(0, w);
    std::mt19937 gen(12345);
    std::normal_distribution<float> normal;
    for (std::size_t i = 0; i < v.size(); ++i) v.data()[i] = normal(gen);
    double lambda = 0;
    for (int k = 0; k < kPowerIterations; ++k) {
        const double nv = norm2(v);
        if (!(nv > 0)) return 0;  // K v = 0 from a random start: K is 0 (up to rounding)
        for (std::size_t i = 0; i < v.size(); ++i) v.data()[i] = float(v.data()[i] / nv);
        gram.run();
        lambda = norm2(w);  // ‖KᵀK v‖ with ‖v‖ = 1 → the largest eigenvalue of KᵀK
        std::swap(v, w);
    }
    if (!std::isfinite(lambda)) fail("power iteration for ||K|| of {} did not give a finite value", t.text);
    return kMargin * std::sqrt(lambda);
}

ir::Problem with_norm_bounds(const ir::Problem& p) {
    ir::Problem q = p;
    for (auto& t : q.psi)
        if (!known(t.norm_bound)) t.norm_bound = power_iteration_norm(q, t);
    return q;
}

}  // namespace proxgen::detail
