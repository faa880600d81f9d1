// Internal pieces shared by the hand-written baselines (baseline.hpp): padded planes allocated
// once, and Halide pipelines compiled once and called through their argv entry point.
//
// Kept out of baseline.hpp so that users of the baselines need only HalideBuffer.h.
#pragma once

#include <Halide.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace proxgen::bench::detail {

// The Halide names every baseline source uses (an internal header: not seen by users).
using Halide::Expr;
using Halide::Func;
using Halide::ImageParam;
using Halide::Param;
using Halide::TailStrategy;
using Halide::Tuple;
using Halide::Var;

/// Floats per vector: the host's natural width on the machines the baselines are tuned for
/// (AVX-512). Halide splits wider vectors for narrower targets.
constexpr int kVec = 16;

/// An image size parameter (W or H) with the range Halide may assume (>= 2).
Halide::Param<int> size_param(const char* name);

/// Geometry of every state plane of one baseline. Pipelines write the W x H interior rounded up
/// to whole 16-float vectors ([0, Wv) x [0, H), rows start 64-byte aligned); around it lies a
/// margin (`margin` columns each side and rows above and below) that is zeroed
/// once and never written. Stencils read the margin and the columns [W, Wv) freely: what they
/// compute there is finite and never reaches the interior, because every difference across the
/// image boundary is masked (boundary_mask below).
struct Layout {
    int W = 0, H = 0, margin = 16;  // margin: a multiple of 16
    [[nodiscard]] int vector_width() const { return (W + 15) / 16 * 16; }
    [[nodiscard]] int stride() const { return vector_width() + 2 * margin; }
    [[nodiscard]] int padded_height() const { return H + 2 * margin; }
    [[nodiscard]] std::size_t plane_floats() const { return std::size_t(stride()) * padded_height(); }
    Layout() = default;
    Layout(int w, int h, int margin_pixels);
};

/// N planes of one Layout in one allocation (2 MiB aligned, transparent huge pages requested),
/// zero-filled once. Never reallocated: iterations rotate plane indices.
class PlaneSet {
public:
    PlaneSet() = default;
    PlaneSet(const Layout& layout, int planes);
    PlaneSet(PlaneSet&&) noexcept = default;
    PlaneSet& operator=(PlaneSet&&) noexcept = default;

    /// Address of element (0, 0) of plane k.
    [[nodiscard]] float* origin(int k) const;
    /// A Halide view of plane k over columns [x0, x0 + w) and rows [y0, y0 + h).
    [[nodiscard]] Halide::Runtime::Buffer<float> view(int k, int x0, int y0, int w, int h) const;
    /// The whole allocated plane k (what pipelines may read).
    [[nodiscard]] Halide::Runtime::Buffer<float> padded(int k) const;
    /// The region pipelines write: [0, Wv) x [0, H).
    [[nodiscard]] Halide::Runtime::Buffer<float> written(int k) const;
    /// The W x H interior of plane k (mins 0).
    [[nodiscard]] Halide::Runtime::Buffer<float> interior(int k) const;
    /// Zero plane k, then copy `src` (W x H, any mins) into its interior.
    void load(int k, const Halide::Runtime::Buffer<const float>& src) const;
    /// Zero plane k, margin included.
    void zero(int k) const;
    [[nodiscard]] const Layout& layout() const { return layout_; }

private:
    struct Free {
        void operator()(float* p) const;
    };
    Layout layout_;
    int planes_ = 0;
    std::unique_ptr<float, Free> data_;
};

/// The target every baseline compiles for: the host (AVX-512 here) with a user context, so
/// errors inside a pipeline reach our handler instead of aborting.
Halide::Target baseline_target();

/// A Halide pipeline compiled once with Pipeline::compile_to_module and called through the JIT
/// module's argv entry point: a call costs one indirect call, with no argument packing, target
/// checks or handler set-up (Pipeline::realize does those on every call).
/// Compiled code is shared process-wide by `name` (sizes are parameters, so one compilation
/// serves every baseline of that kind): a second baseline of the same kind compiles nothing.
class JitFunction {
public:
    JitFunction() = default;
    /// `inputs` are the pipeline's parameters in the order the argv arrays will hold them; the
    /// outputs (one halide_buffer_t* per output buffer) follow them. `name` must identify the
    /// pipeline's definition and schedule.
    JitFunction(Halide::Pipeline p, const std::vector<Halide::Argument>& inputs, const std::string& name);

    /// An argv array for this function: slot 0 is reserved for the user context.
    [[nodiscard]] std::vector<const void*> make_args() const;
    /// Runs the pipeline; throws std::runtime_error with Halide's message if it fails.
    void call(std::vector<const void*>& args) const;
    [[nodiscard]] bool defined() const { return fn_ != nullptr; }
    [[nodiscard]] std::size_t argument_count() const { return argc_; }

private:
    struct Context;
    std::shared_ptr<const Halide::Internal::JITModule> module_;
    int (*fn_)(const void**) = nullptr;
    std::size_t argc_ = 0;
    std::string name_;
};

/// select(0 <= v < n - 1, likely(difference), 0): a forward difference along an axis, 0 in
/// the last column / row and outside the image (grad's convention). The loop partitioner keeps
/// the select only in the loop iterations that touch the boundary; interior loops run without it.
Halide::Expr masked_difference(const Halide::Expr& v, const Halide::Expr& n, const Halide::Expr& difference);

/// Constrain an input to dense rows.
void constrain_input(Halide::OutputImageParam p);
/// Constrain every output buffer of `out` to dense rows starting at column 0 (bounds only on the
/// first buffer: Halide ties the others to it).
void constrain_written(Halide::Func& out);

}  // namespace proxgen::bench::detail
