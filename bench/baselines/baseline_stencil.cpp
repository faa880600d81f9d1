// See baseline_stencil.hpp.
#include "baseline_stencil.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace proxgen::bench::detail {

StencilBaseline::StencilBaseline(const TVProblem& problem, std::string name, int slots, std::vector<int> x_slots,
                                 int max_outputs, int margin)
    : Baseline(problem.b.dim(0).extent(), problem.b.dim(1).extent()), name_(std::move(name)),
      x_slots_(std::move(x_slots)), layout_(width(), height(), margin),
      planes_(layout_, 1 + slots + max_outputs) {
    for (int k = 0; k < 1 + slots + max_outputs; ++k) {
        padded_.push_back(planes_.padded(k));
        written_.push_back(planes_.written(k));
    }
    planes_.load(0, problem.b);
    for (int s = 0; s < slots; ++s) slot_.push_back(1 + s);
}

std::string StencilBaseline::name() const { return name_; }

void StencilBaseline::reset(const Halide::Runtime::Buffer<const float>& x0) {
    for (int s = 0; s < slots(); ++s) slot_[s] = 1 + s;
    for (std::size_t k = 1; k < padded_.size(); ++k) planes_.zero(int(k));
    if (x0.data() != nullptr)
        for (int s : x_slots_) planes_.load(slot_[s], x0);
}

Halide::Runtime::Buffer<const float> StencilBaseline::x_view() const { return planes_.interior(slot_[0]); }

double StencilBaseline::bytes_per_iteration() const {
    // Each call reads every slot's plane and b once and writes each output once.
    const Kernel& k = kernels_.front();
    return 4.0 * width() * height() * (slots() + 1 + k.outputs) / k.iterations;
}

void StencilBaseline::set_inputs(const std::vector<Halide::ImageParam>& slot_params, const Halide::ImageParam& b,
                                 std::vector<Halide::Argument> scalars, std::vector<const void*> scalar_values) {
    if (int(slot_params.size()) != slots() || scalars.size() != scalar_values.size())
        throw std::logic_error("StencilBaseline: inputs do not match the slots / scalars");
    inputs_.clear();
    for (const Halide::ImageParam& p : slot_params) inputs_.emplace_back(p);
    inputs_.emplace_back(b);
    for (Halide::Argument& a : scalars) inputs_.push_back(std::move(a));
    scalar_values_ = std::move(scalar_values);
}

void StencilBaseline::add_kernel(Halide::Func out, int iterations, std::vector<int> next,
                                 const std::string& fn_name) {
    constrain_written(out);
    Kernel k;
    k.fn = JitFunction(Halide::Pipeline(out), inputs_, fn_name);
    k.iterations = iterations;
    k.outputs = int(out.outputs());
    k.next = std::move(next);
    k.args = k.fn.make_args();
    if (int(k.next.size()) != slots() || 1 + slots() + k.outputs > int(padded_.size()))
        throw std::logic_error("StencilBaseline: a kernel does not fit the slots / planes");
    // Scalars: their addresses never change, so they are set once.
    for (std::size_t s = 0; s < scalar_values_.size(); ++s) k.args[std::size_t(2 + slots()) + s] = scalar_values_[s];
    kernels_.push_back(std::move(k));
    std::sort(kernels_.begin(), kernels_.end(),
              [](const Kernel& a, const Kernel& b) { return a.iterations > b.iterations; });
}

void StencilBaseline::call(Kernel& k) {
    const int n_slots = slots();
    for (int s = 0; s < n_slots; ++s) k.args[std::size_t(1 + s)] = padded_[slot_[s]].raw_buffer();
    k.args[std::size_t(1 + n_slots)] = padded_[0].raw_buffer();
    // Outputs go to planes no slot holds.
    int out_plane[16];
    const std::size_t first_out = k.args.size() - std::size_t(k.outputs);
    for (int o = 0, p = 1; o < k.outputs; ++p)
        if (std::find(slot_.begin(), slot_.end(), p) == slot_.end()) {
            out_plane[o] = p;
            k.args[first_out + std::size_t(o++)] = written_[p].raw_buffer();
        }
    k.fn.call(k.args);
    int previous[16];
    std::copy(slot_.begin(), slot_.end(), previous);
    for (int s = 0; s < n_slots; ++s) slot_[s] = k.next[s] >= 0 ? out_plane[k.next[s]] : previous[-1 - k.next[s]];
}

void StencilBaseline::run(int n) {
    if (n < 0) throw std::invalid_argument(name_ + ": negative iteration count");
    for (Kernel& k : kernels_)
        for (; n >= k.iterations; n -= k.iterations) call(k);
}

Halide::Func tv_dual(const Halide::Func& x, const Halide::Func& x_prev, const Halide::Func& y, const Halide::Expr& sigma,
                     const Halide::Expr& theta, const Halide::Expr& alpha, const Halide::Expr& W, const Halide::Expr& H,
                     const std::string& name) {
    Halide::Var i("i"), j("j");
    Halide::Func xbar(name + "_xbar");  // inlined: three loads of x and x_prev beat a stored copy
    xbar(i, j) = x(i, j) + theta * (x(i, j) - x_prev(i, j));
    Halide::Expr v0 = y(i, j)[0] + sigma * masked_difference(i, W, xbar(i + 1, j) - xbar(i, j));
    Halide::Expr v1 = y(i, j)[1] + sigma * masked_difference(j, H, xbar(i, j + 1) - xbar(i, j));
    Halide::Expr n = Halide::sqrt(v0 * v0 + v1 * v1);
    Halide::Expr s = Halide::select(n > alpha, alpha / n, 1.0f);  // alpha = 0 safe: 0 > 0 is false
    Halide::Func dual(name);
    dual(i, j) = Halide::Tuple(v0 * s, v1 * s);
    return dual;
}

Halide::Expr grad_adjoint(const Halide::Func& y, const Halide::Var& i, const Halide::Var& j) {
    return y(i - 1, j)[0] - y(i, j)[0] + y(i, j - 1)[1] - y(i, j)[1];
}

Halide::Func wrap_plane(const Halide::ImageParam& p) {
    Halide::Var i("i"), j("j");
    Halide::Func f(p.name() + "_in");
    f(i, j) = p(i, j);
    return f;
}

int schedule_knob(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v != nullptr ? std::atoi(v) : fallback;
}

}  // namespace proxgen::bench::detail
