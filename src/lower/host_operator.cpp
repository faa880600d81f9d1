// Host operators (rt::host_operator): a user operator whose forward and adjoint are host functions
// on whole images. Each direction is an extern stage of the kernels that read it: Halide asks the
// stage (bounds query) for the operand's whole image, runs it on the thread that runs the kernel,
// and the stage copies the function's result into the region the kernel asked for (zero outside
// the image). The stage finds its operator through a pointer the kernel carries: a kernel is keyed
// by the operator's id and only reached through a node that holds the operator, so the pointer is
// valid whenever the kernel runs.
#include "host_operator.hpp"

#include <cmath>
#include <deque>

#include <Halide.h>

#include "../jit/call_context.hpp"
#include "../jit/compile.hpp"
#include "proxgen/error.hpp"
#include "card_lowering.hpp"
#include "proxgen/catalogue/penalties/diff_fn.hpp"
#include "proxgen/user_operator.hpp"

namespace proxgen::lower {

namespace {

struct HostCode : ir::UserOperator {
    std::function<Image(const Image&)> host_forward, host_adjoint;
    std::vector<int> in_shape;  // out_shape is UserOperatorData's
    const std::vector<int>& shape_out() const { return out_shape.empty() ? in_shape : out_shape; }
};

/// f(in) with the shapes checked: an error names the operator and the direction.
Image call_checked(const HostCode& op, bool adjoint, const Image& in) {
    const auto& f = adjoint ? op.host_adjoint : op.host_forward;
    Image out = f(in);
    const std::vector<int>& want = adjoint ? op.in_shape : op.shape_out();
    if (out.sizes() != want)
        fail("host operator '{}': its {} returned an image of shape {} where {} was expected", op.name,
             adjoint ? "adjoint" : "forward", out.shape_string(), shape_string(want));
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!std::isfinite(out.data()[i]))
            fail("host operator '{}': its {} returned a non-finite value at element {}", op.name,
                 adjoint ? "adjoint" : "forward", i);
    return out;
}

/// √Σ (a_i b_i)²: the size of ⟨a, b⟩'s terms. For random images, a wrong adjoint moves the dot
/// product by about this much, and float32 rounding by about 1e-7 of it, whatever the size.
double term_scale(const Image& a, const Image& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += std::pow(double(a.data()[i]) * b.data()[i], 2);
    return std::sqrt(s);
}

void check_adjoint_once(const HostCode& op, unsigned seed) {
    const Image x = random_normal_image(op.in_shape, seed), y = random_normal_image(op.shape_out(), seed + 1);
    const Image ax = call_checked(op, false, x), aty = call_checked(op, true, y);
    const double lhs = inner_product(ax, y), rhs = inner_product(x, aty);
    const double scale = term_scale(ax, y) + term_scale(x, aty);
    constexpr double kTolerance = 1e-3;  // operators computed in float32: errors of ~1e-6 per term
    if (scale > 0 && std::abs(lhs - rhs) > kTolerance * scale)
        fail("host operator '{}': the adjoint is not the forward's adjoint: the dot-product test gives <A x, y> = {} "
             "but <x, A^T y> = {} on random images (a difference of {:.2g} times the size of the products' terms, "
             "allowed {:.0e})",
             op.name, lhs, rhs, std::abs(lhs - rhs) / scale, kTolerance);
}

/// The dot-product test ⟨A x, y⟩ = ⟨x, Aᵀ y⟩ on two pairs of random images (a wrong adjoint's
/// difference is a random sum: one pair could land near zero).
void check_adjoint(const HostCode& op) {
    for (unsigned seed : {11u, 21u}) check_adjoint_once(op, seed);
}

/// An extern stage's bounds query answered: `in` is read whole, [0, shape).
void ask_whole(halide_buffer_t* in, const std::vector<int>& shape) {
    for (int d = 0; d < in->dimensions; ++d) {
        in->dim[d].min = 0;
        in->dim[d].extent = shape[std::size_t(d)];
    }
}

/// An extern stage's work: `out` ← image_of() where they overlap, 0 elsewhere. A failure goes to the
/// kernel call's error message (never through Halide's frames as an exception), named by `who`
/// unless it is ProxGen's own Error (which names it), and fails the pipeline.
template <class Compute>
int run_stage(halide_buffer_t* out, const std::string& who, Compute image_of) {
    Halide::Runtime::Buffer<float> target(*out);
    target.fill(0.0f);
    try {
        target.copy_from(image_of().buffer());
        return 0;
    } catch (const Error& e) {
        jit::record_error(jit::current_call(), e.what());
    } catch (const std::exception& e) {
        jit::record_error(jit::current_call(), (who + " threw: " + e.what()).c_str());
    } catch (...) {
        jit::record_error(jit::current_call(), (who + " threw").c_str());
    }
    return -1;
}

/// A copy of an extern stage's input over [0, shape).
Image whole_input(const halide_buffer_t* in, const std::vector<int>& shape) {
    Image image(shape);
    image.buffer().copy_from(Halide::Runtime::Buffer<float>(*in));
    return image;
}

extern "C" int proxgen_host_operator_call(uint64_t code, int32_t adjoint, halide_buffer_t* in, halide_buffer_t* out) {
    const auto& op = *reinterpret_cast<const HostCode*>(code);
    const std::vector<int>& from = adjoint ? op.shape_out() : op.in_shape;
    if (in->is_bounds_query()) {
        ask_whole(in, from);
        return 0;
    }
    return run_stage(out, "host operator '" + op.name + "': its " + (adjoint ? "adjoint" : "forward"),
                     [&] { return call_checked(op, adjoint != 0, whole_input(in, from)); });
}

Halide::Func extern_stage(const HostCode& op, bool adjoint, const Halide::Func& operand) {
    Halide::Func f("host_" + op.name + (adjoint ? "_adjoint" : ""));
    const std::vector<Halide::ExternFuncArgument> a{Halide::Expr(uint64_t(reinterpret_cast<std::uintptr_t>(&op))),
                                                   Halide::Expr(int32_t(adjoint)), operand};
    const int rank = int((adjoint ? op.in_shape : op.shape_out()).size());
    f.define_extern("proxgen_host_operator_call", a, Halide::Float(32), rank);
    f.compute_root();
    return f;
}

using catalogue::penalties::HostSmoothFunction;

/// f's gradient, its shape and values checked.
Image gradient_checked(const HostSmoothFunction& f, const Image& t) {
    Image g = f.gradient(t);
    if (g.sizes() != t.sizes())
        fail("diff_fn '{}': its gradient returned an image of shape {} for an argument of shape {}", f.name,
             g.shape_string(), t.shape_string());
    return g;
}

/// argmin_t τ f(t) + ½‖t − t₀‖² by L-BFGS (7 pairs, backtracking to Armijo's condition; a step
/// that leaves f's domain — a non-finite value — is backtracked too), from t₀, until the gradient
/// is 1e-6 of its first norm or 1e-9 absolute, within 500 iterations.
Image lbfgs_prox(const HostSmoothFunction& f, const Image& t0, double tau) {
    const std::size_t n = t0.size();
    auto phi = [&](const Image& t) {
        double q = 0;
        for (std::size_t i = 0; i < n; ++i) q += std::pow(double(t.data()[i]) - t0.data()[i], 2);
        return tau * f.value(t) + 0.5 * q;
    };
    auto grad = [&](const Image& t) {
        Image g = gradient_checked(f, t);
        std::vector<double> out(n);
        for (std::size_t i = 0; i < n; ++i) out[i] = tau * g.data()[i] + (double(t.data()[i]) - t0.data()[i]);
        return out;
    };
    auto vdot = [n](const std::vector<double>& a, const std::vector<double>& b) {
        double s = 0;
        for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
        return s;
    };
    Image t = t0.copy();
    double value = phi(t);
    if (!std::isfinite(value)) fail("diff_fn '{}': f is not finite at the prox's starting point", f.name);
    std::vector<double> g = grad(t);
    const double stop = std::max(1e-9, 1e-6 * std::sqrt(vdot(g, g)));
    std::deque<std::pair<std::vector<double>, std::vector<double>>> pairs;  // (s, y), newest last
    for (int it = 0; it < 500 && std::sqrt(vdot(g, g)) > stop; ++it) {
        // the two-loop recursion: d = −H g
        std::vector<double> d = g;
        std::vector<double> alpha(pairs.size());
        for (std::size_t k = pairs.size(); k-- > 0;) {
            alpha[k] = vdot(pairs[k].first, d) / vdot(pairs[k].second, pairs[k].first);
            for (std::size_t i = 0; i < n; ++i) d[i] -= alpha[k] * pairs[k].second[i];
        }
        if (!pairs.empty()) {
            const auto& [s_, y_] = pairs.back();
            const double scale = vdot(s_, y_) / vdot(y_, y_);
            for (double& v : d) v *= scale;
        }
        for (std::size_t k = 0; k < pairs.size(); ++k) {
            const double beta = vdot(pairs[k].second, d) / vdot(pairs[k].second, pairs[k].first);
            for (std::size_t i = 0; i < n; ++i) d[i] += (alpha[k] - beta) * pairs[k].first[i];
        }
        for (double& v : d) v = -v;
        double slope = vdot(g, d);
        if (!(slope < 0)) {  // not a descent direction: restart from the gradient
            pairs.clear();
            for (std::size_t i = 0; i < n; ++i) d[i] = -g[i];
            slope = -vdot(g, g);
        }
        double step = 1;
        Image next = t.copy();
        double next_value = INFINITY;
        for (int back = 0; back < 60; ++back, step *= 0.5) {
            for (std::size_t i = 0; i < n; ++i) next.data()[i] = float(t.data()[i] + step * d[i]);
            next_value = phi(next);
            if (std::isfinite(next_value) && next_value <= value + 1e-4 * step * slope) break;
        }
        if (!(std::isfinite(next_value) && next_value <= value)) break;  // no decrease at float32's resolution
        std::vector<double> g_next = grad(next);
        std::vector<double> s_(n), y_(n);
        for (std::size_t i = 0; i < n; ++i) {
            s_[i] = double(next.data()[i]) - t.data()[i];
            y_[i] = g_next[i] - g[i];
        }
        if (vdot(s_, y_) > 1e-12 * std::sqrt(vdot(s_, s_) * vdot(y_, y_))) {
            pairs.emplace_back(std::move(s_), std::move(y_));
            if (pairs.size() > 7) pairs.pop_front();
        }
        t = std::move(next);
        value = next_value;
        g = std::move(g_next);
    }
    return t;
}

extern "C" int proxgen_host_prox_call(uint64_t code, halide_buffer_t* tau_buffer, halide_buffer_t* in,
                                      halide_buffer_t* out) {
    const auto& f = *reinterpret_cast<const HostSmoothFunction*>(code);
    if (in->is_bounds_query() || tau_buffer->is_bounds_query()) {
        ask_whole(in, f.shape);
        ask_whole(tau_buffer, {1});
        return 0;
    }
    const double tau = reinterpret_cast<const float*>(tau_buffer->host)[0];
    return run_stage(out, "diff_fn '" + f.name + "': its function",
                     [&] { return lbfgs_prox(f, whole_input(in, f.shape), tau); });
}

}  // namespace

Halide::Func host_smooth_prox(const HostSmoothFunction& f, const Halide::Func& t0, const std::vector<Halide::Expr>& extents,
                              Halide::Expr tau) {
    jit::add_extern("proxgen_host_prox_call", Halide::ExternCFunction(&proxgen_host_prox_call));
    // τ as a one-sample Func: an extern stage's scalar arguments cannot call Funcs, and τ reads the
    // term's scale
    Halide::Func tau_sample("host_prox_tau");
    tau_sample(Halide::Var("i")) = Halide::cast<float>(tau);
    tau_sample.compute_root();
    Halide::Func p("host_prox_" + f.name);
    const std::vector<Halide::ExternFuncArgument> a{Halide::Expr(uint64_t(reinterpret_cast<std::uintptr_t>(&f))),
                                                   tau_sample, t0};
    p.define_extern("proxgen_host_prox_call", a, Halide::Float(32), int(extents.size()));
    p.compute_root();
    return p;
}

std::shared_ptr<const ir::Opaque> host_smooth_code(const std::string& name, const std::vector<int>& shape,
                                                   std::function<double(const Image&)> value,
                                                   std::function<Image(const Image&)> gradient) {
    if (!value || !gradient) fail("diff_fn '{}': both the function and its gradient are needed", name);
    auto f = std::make_shared<HostSmoothFunction>();
    f->name = name;
    f->id = ir::next_code_id();
    f->shape = shape;
    f->value = std::move(value);
    f->gradient = std::move(gradient);
    return f;
}

std::shared_ptr<const ir::Opaque> host_operator_code(const rt::HostOperator& def) {
    if (!def.forward || !def.adjoint)
        fail("host operator '{}': both the forward and the adjoint function are needed", def.name);
    if (def.in_shape.size() < 2 || def.in_shape.size() > 4)
        fail("host operator '{}': its input shape must have 2 to 4 axes (Halide order), got {}", def.name,
             def.in_shape.size());
    if (def.out_shape.size() != def.in_shape.size())
        fail("host operator '{}': its output shape must have as many axes as its input shape ({}), got {}", def.name,
             def.in_shape.size(), def.out_shape.size());
    for (const auto* s : {&def.in_shape, &def.out_shape})
        for (int e : *s)
            if (e < 1) fail("host operator '{}': shapes must be positive, got an extent of {}", def.name, e);
    if (!(def.norm_bound >= 0) || !std::isfinite(def.norm_bound))
        fail("host operator '{}': the norm bound must be finite and >= 0, got {}", def.name, def.norm_bound);
    jit::add_extern("proxgen_host_operator_call", Halide::ExternCFunction(&proxgen_host_operator_call));
    auto op = std::make_shared<HostCode>();
    op->name = def.name;
    op->id = ir::next_code_id();
    op->in_shape = def.in_shape;
    if (def.out_shape != def.in_shape) op->out_shape = def.out_shape;
    op->host_forward = def.forward;
    op->host_adjoint = def.adjoint;
    op->reads_operand_whole = true;
    const HostCode* self = op.get();  // the Maps live in *op: no ownership cycle
    op->forward = [self](const Halide::Func& in) { return extern_stage(*self, false, in); };
    op->adjoint = [self](const Halide::Func& y) { return extern_stage(*self, true, y); };
    check_adjoint(*op);
    op->norm_bound = def.norm_bound > 0 ? def.norm_bound
                                        : 1.1 * power_iteration_norm(op->in_shape, 13, 30, [&](const Image& v) {
                                              return call_checked(*op, true, call_checked(*op, false, v));
                                          });
    return op;
}

}  // namespace proxgen::lower
