// Internal: the machinery of the stencil baselines (PC and L-ADMM denoising), whose whole state
// lives in padded planes that each pipeline call reads and whose successors it writes.
//
// The state is a list of slots (PC: x, x_prev, y0, y1; L-ADMM: x, z0, z1, u0, u1), each naming
// one plane of a PlaneSet. A kernel reads every slot's plane and b, takes the step parameters,
// and writes its outputs into free planes; afterwards each slot names either one of the outputs
// or the plane another slot held before (x_prev <- x). No plane is copied or reallocated.
#pragma once

#include <string>
#include <vector>

#include "baseline.hpp"
#include "baseline_support.hpp"

namespace proxgen::bench::detail {

class StencilBaseline : public Baseline {
public:
    [[nodiscard]] std::string name() const override;
    void reset(const Halide::Runtime::Buffer<const float>& x0) override;
    void run(int n) override;
    [[nodiscard]] Halide::Runtime::Buffer<const float> x_view() const override;
    [[nodiscard]] double bytes_per_iteration() const override;

protected:
    /// A compiled step: `iterations` iterations per call, `outputs` planes written, and for
    /// each slot where its next plane comes from: an output index k >= 0, or -1 - s for the
    /// plane slot s held before the call.
    struct Kernel {
        JitFunction fn;
        int iterations = 1, outputs = 0;
        std::vector<int> next;
        std::vector<const void*> args;
    };

    /// `x_slots`: the slots reset() loads with x0 (slot 0 is the iterate x_view() shows).
    StencilBaseline(const TVProblem& problem, std::string name, int slots, std::vector<int> x_slots,
                    int max_outputs, int margin);

    /// The inputs of every kernel, in argv order: one ImageParam per slot, then b, then
    /// `scalars` (their addresses must stay valid: members of the derived class).
    void set_inputs(const std::vector<Halide::ImageParam>& slot_params, const Halide::ImageParam& b,
                    std::vector<Halide::Argument> scalars, std::vector<const void*> scalar_values);
    /// Compiles `out` (a Tuple over the planes' written region) and adds it as a kernel.
    void add_kernel(Halide::Func out, int iterations, std::vector<int> next, const std::string& fn_name);

    [[nodiscard]] int slots() const { return int(slot_.size()); }

private:
    void call(Kernel& k);

    std::string name_;
    std::vector<int> x_slots_;
    Layout layout_;
    PlaneSet planes_;
    std::vector<Halide::Runtime::Buffer<float>> padded_, written_;
    std::vector<int> slot_;  // plane of each slot; plane 0 holds b
    std::vector<Halide::Argument> inputs_;
    std::vector<const void*> scalar_values_;
    std::vector<Kernel> kernels_;  // by decreasing iterations per call
};

/// Pock–Chambolle's TV dual step at raw coordinates, as a Tuple Func {y0, y1}:
///   proj_{||.||_2 <= alpha per pixel}(y + sigma grad(x + theta (x - x_prev)))
/// with masked forward differences (baseline_support.hpp). `y` is a Tuple Func {y0, y1}.
Halide::Func tv_dual(const Halide::Func& x, const Halide::Func& x_prev, const Halide::Func& y, const Halide::Expr& sigma,
                     const Halide::Expr& theta, const Halide::Expr& alpha, const Halide::Expr& W, const Halide::Expr& H,
                     const std::string& name);
/// grad^T of a Tuple Func {y0, y1} that is 0 in grad's last column / row and outside the image:
/// y0(i-1,j) - y0(i,j) + y1(i,j-1) - y1(i,j).
Halide::Expr grad_adjoint(const Halide::Func& y, const Halide::Var& i, const Halide::Var& j);

/// A 2-D input plane wrapped as a Func (inlined).
Halide::Func wrap_plane(const Halide::ImageParam& p);

/// Reads an integer schedule knob from the environment (development only; the defaults are
/// the measured best).
int schedule_knob(const char* name, int fallback);

}  // namespace proxgen::bench::detail
