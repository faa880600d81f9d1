// User-defined operators: the user's forward Func, and its adjoint given or derived by Halide's
// autodiff. The operand is padded with zeros so the user's Func may read outside the image, and
// the autodiff seed is y inside the output and 0 outside (propagate_adjoints needs that).
#include "proxgen/user_operator.hpp"

#include <random>
#include <set>

#include "card_lowering.hpp"
#include "host_operator.hpp"
#include "proxgen/lower/evaluate.hpp"

namespace proxgen::lower {

using namespace Halide;

namespace {

Func zero_outside(const Func& f, const std::vector<Expr>& extents) {
    Region bounds;
    for (const auto& e : extents) bounds.push_back({0, e});
    return BoundaryConditions::constant_exterior(f, 0.0f, bounds);
}

const ir::UserOperator& user_of(const ir::Node& n) { return static_cast<const ir::UserOperator&>(*n.code); }

Func checked(const Func& f, const ir::Node& n, int rank, const char* what) {
    if (!f.defined()) fail("user_operator '{}': its {} function returned an undefined Func", n.code->name, what);
    if (f.dimensions() != rank)
        fail("user_operator '{}': its {} function returned a Func of rank {} for an operand of rank {}", n.code->name,
             what, f.dimensions(), rank);
    return f;
}

/// Computes every Func of the derivative over the whole image, in parallel: pure definitions
/// over their outermost variable, updates over their outermost reduction variable with atomic
/// adds (autodiff turns gathers it cannot invert into scatters, which are serial by default).
void schedule_derivative(const Func& g, const Func& seed) {
    std::set<std::string> skip{seed.name()};
    for (const auto& [name, f] : Internal::find_transitive_calls(seed.function())) skip.insert(name);
    auto all = Internal::find_transitive_calls(g.function());
    all.emplace(g.name(), g.function());
    const int vec = jit_target().natural_vector_size<float>();
    for (auto& [name, fn] : all) {
        if (skip.count(name) || !fn.has_pure_definition() || fn.has_extern_definition()) continue;
        Func f(fn);
        f.compute_root();
        const auto a = f.args();
        if (a.size() >= 2) f.parallel(a.back());
        f.vectorize(a[0], vec, TailStrategy::GuardWithIf);
        for (int u = 0; u < f.num_update_definitions(); ++u) {
            const auto rv = f.rvars(u);
            if (!rv.empty()) f.update(u).atomic().parallel(rv.back());
        }
    }
}

/// The operand as the user's function reads it: zero outside the image, and computed whole first
/// where the function reads it whole (an extern stage's input cannot be computed in strips).
Func operand_of(const ir::UserOperator& op, const Lowered& in, Stages& st) {
    Func padded = zero_outside(in.f, in.extents);
    if (!op.reads_operand_whole) return padded;
    Func whole("user_operand_whole");
    whole(args(in.rank())) = in.f(args(in.rank()));
    return st.add_root(whole);
}

}  // namespace

Func Back::user_forward(const ir::Node& n, const Lowered& in) const {
    Func f = checked(user_of(n).forward(operand_of(user_of(n), in, st)), n, in.rank(), "forward");
    Func out("user_" + n.code->name);
    out(args(in.rank())) = f(args(in.rank()));
    return out;
}

Func Back::user_adjoint(const ir::Node& n, const Lowered& y) const {
    const int r = y.rank();
    const std::vector<Expr> to = extents(n.args[0]);
    const ir::UserOperator& op = user_of(n);
    Func back("user_" + n.code->name + "_adjoint");
    if (op.adjoint) {
        Func f = checked(op.adjoint(operand_of(op, y, st)), n, r, "adjoint");
        back(args(r)) = f(args(r));
        return back;
    }
    // Kᵀ y = ∂⟨K x, y⟩/∂x, at any x (K is linear): x is a placeholder of zeros.
    Func operand("user_operand");
    operand(args(r)) = 0.0f;
    Func kx("user_forward_of_operand");
    kx(args(r)) = checked(op.forward(zero_outside(operand, to)), n, r, "forward")(args(r));
    Func seed("user_adjoint_seed");
    seed(args(r)) = zero_outside(y.f, y.extents)(args(r));
    Region bounds;
    for (const auto& e : y.extents) bounds.push_back({0, e});
    Derivative d = propagate_adjoints(kx, seed, bounds);
    Func g = d(operand);
    if (!g.defined())
        fail("user_operator '{}': Halide's autodiff found no derivative; give the adjoint explicitly", n.code->name);
    schedule_derivative(g, seed);
    back(args(r)) = g(args(r));
    st.add_root(seed);  // y's stages go to root with it (the derivative reads seed from root Funcs)
    return back;
}

Image random_normal_image(const std::vector<int>& shape, unsigned seed) {
    Image x(shape);
    std::mt19937 gen(seed);
    std::normal_distribution<float> dist;
    for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = dist(gen);
    return x;
}

double inner_product(const Image& a, const Image& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += double(a.data()[i]) * b.data()[i];
    return s;
}

double power_iteration_norm(const std::vector<int>& shape, unsigned seed, int iterations,
                            const std::function<Image(const Image&)>& gram) {
    Image x = random_normal_image(shape, seed);
    double lambda = 0;  // ‖K‖² ≈ ‖KᵀK v‖ / ‖v‖
    for (int it = 0; it < iterations; ++it) {
        const double nx = std::sqrt(inner_product(x, x));
        if (nx == 0) return 0;
        for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = float(x.data()[i] / nx);
        x = gram(x);
        lambda = std::sqrt(inner_product(x, x));
    }
    return std::sqrt(lambda);
}

double estimate_norm(const ir::Node& expr, int iterations) {
    const ir::Node* v = &expr;
    while (!v->args.empty()) v = &v->args[0];
    return power_iteration_norm(v->shape, 7, iterations,
                                [&](const Image& x) { return apply_adjoint(expr, apply_linear(expr, x)); });
}

}  // namespace proxgen::lower
