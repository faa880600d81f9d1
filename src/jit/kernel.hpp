// Internal: a compiled Halide pipeline called through its argv entry point with arguments bound
// per caller, never through shared Halide::Param / ImageParam state. This is what makes solves
// thread-safe (every solve owns its argument vectors; the compiled code is shared) and cheap to
// call (no Pipeline::realize bookkeeping per call: one indirect call into the generated code).
//
// A Kernel comes from the in-process JIT (Halide::Internal::JITModule) or from a shared object in
// the on-disk cache (disk_cache.hpp); both expose the same entry point
//     int fn(const void** argv)   argv = {&user_context, inputs in the kernel's order, outputs}
// where a buffer argument is a halide_buffer_t* and a scalar one (the user context included) a
// pointer to its value.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <HalideRuntime.h>

#include "proxgen/image.hpp"

namespace proxgen::jit {

/// One argument of a kernel (the user context excluded).
struct ArgInfo {
    enum class Kind { buffer, float32, int32 };
    std::string name;
    Kind kind = Kind::buffer;
    bool output = false;
    int dimensions = 0;
};

class Kernel {
public:
    using ArgvFunction = int (*)(const void**);

    Kernel(std::string name, ArgvFunction fn, std::vector<ArgInfo> args, std::shared_ptr<const void> keep_alive);
    /// A kernel whose machine code another thread is still generating (jit::ConcurrentCompiles):
    /// its arguments are known, so calls can be bound at once; run() waits for `code`.
    Kernel(std::string name, std::vector<ArgInfo> args, std::shared_future<std::shared_ptr<const Kernel>> code);

    const std::string& name() const { return name_; }
    /// Inputs first (in the order the pipeline was compiled with), then the outputs.
    const std::vector<ArgInfo>& args() const { return args_; }
    /// Position of the named input in args(), or -1.
    int input_index(std::string_view name) const;
    int input_count() const { return inputs_; }
    int output_count() const { return int(args_.size()) - inputs_; }

    /// Runs the kernel; argv has 1 + args().size() entries and argv[0] is overwritten with this
    /// call's user context. Throws proxgen::Error with Halide's message if the pipeline fails.
    void run(const void** argv) const;
    /// Waits until the machine code exists (at once for a kernel built ready); throws the error
    /// that generating it met.
    void wait() const;

private:
    /// inputs_ from args_: the inputs come first, then only outputs.
    void count_inputs();

    std::string name_;
    std::vector<ArgInfo> args_;
    int inputs_ = 0;
    // Set by the constructor, or once by wait() from code_ (the kernel another thread compiled,
    // kept alive as keep_alive_).
    mutable ArgvFunction fn_ = nullptr;
    mutable std::shared_ptr<const void> keep_alive_;  // the JIT module or the loaded shared object
    std::shared_future<std::shared_ptr<const Kernel>> code_;
    mutable std::once_flag resolved_;
};

using KernelPtr = std::shared_ptr<const Kernel>;

/// The argument vector of one kernel for one caller. Buffers are bound by the address of their
/// halide_buffer_t and scalars by the address of the caller's variable, so binding happens once
/// per solve: swapping two Images (std::swap) or assigning a new value to a bound float is seen by
/// the next run() without binding again.
class Call {
public:
    Call() = default;
    explicit Call(KernelPtr k);

    bool defined() const { return kernel_ != nullptr; }
    const Kernel& kernel() const { return *kernel_; }
    /// Binds an input by name; an input the kernel does not have is an internal error.
    Call& in(std::string_view name, const Image& img);
    Call& in(std::string_view name, const float& value);
    /// The same, but silently ignores names the kernel does not take.
    Call& maybe_in(std::string_view name, const halide_buffer_t* buf);
    Call& maybe_in(std::string_view name, const float& value);
    /// Binds output i (in the pipeline's output order).
    Call& out(int i, Image& img);
    /// The same for a buffer of another type (the objective's float64 summands).
    Call& out(int i, halide_buffer_t* buffer);
    /// The state of a problem in several variables is one flat image holding the variables one
    /// after the other (ir::state_shape); its kernels take one buffer per variable, named
    /// state_name(name, j). These bind the variables as views of the flat image, whose data
    /// pointer is read again at every run(), so swapping flat images needs no binding either.
    /// With one variable (one shape) they bind the image itself.
    Call& in_state(std::string_view name, const Image& flat, const std::vector<std::vector<int>>& shapes);
    /// Binds outputs first, first + 1, … to the variables' views; returns the next output index.
    int out_state(int first, Image& flat, const std::vector<std::vector<int>>& shapes);
    /// Runs with the bound arguments; every argument must be bound.
    void run();

private:
    /// A variable's view of a flat state image (in_state / out_state).
    struct View {
        const Image* source = nullptr;
        std::size_t offset = 0;
        halide_buffer_t buffer{};
        std::array<halide_dimension_t, 4> dims{};
    };
    Call& bind(int index, const void* p);
    /// Binds argument `index` to variable j's view of `flat` (binding an index again replaces its view).
    void bind_view(int index, const Image& flat, const std::vector<std::vector<int>>& shapes, std::size_t j);
    KernelPtr kernel_;
    std::vector<const void*> argv_;
    // by argument index; shared by copies of the Call, their addresses stay put
    std::map<int, std::shared_ptr<View>> views_;
};

/// While one lives, kernels called on this thread run their parallel loops serially on this thread
/// instead of handing them to Halide's thread pool: a batch of small problems is solved one member
/// per core, where the pool's hand-offs would cost more than a small image's work.
class SerialKernels {
public:
    SerialKernels();
    ~SerialKernels();
    SerialKernels(const SerialKernels&) = delete;
    SerialKernels& operator=(const SerialKernels&) = delete;
    static bool active();

private:
    bool saved_;
};

/// Whether a solve of this many unknowns runs its kernels' parallel loops on the calling thread
/// (SerialKernels): where the thread pool's hand-offs cost more than a second core saves. Measured
/// on TV deblurring (Pock–Chambolle and ADMM, one solve after another, 2 cores): serial was 1.45×
/// faster at 64², 3× at 128², 1.3× at 256²; the pool 1.05–1.1× faster at 320², 1.3× at 512², 2× at
/// 1024². The crossover (288² on 2 cores) is taken to shrink in proportion to the core count.
bool small_enough_to_run_serially(double unknowns);

/// The unknowns below which solves run serially: the crossover above, PROXGEN_SERIAL_SOLVES_BELOW
/// where the environment sets it (0: never), or what set_serial_solves_below last gave (benchmarks
/// that time both sides in one run).
double serial_solves_below();
void set_serial_solves_below(double unknowns);

/// Parallel loops of the kernels called on this thread so far: run serially on it (SerialKernels),
/// and handed to the thread pool (counted for kernels loaded from the disk cache only: Halide's JIT
/// runtime dispatches the others itself). What tests read to see that SerialKernels holds.
struct ParallelLoops {
    std::uint64_t serial = 0, pooled = 0;
};
ParallelLoops parallel_loops();

/// Runs body(0), …, body(tasks − 1) on the kernels' thread pool (the runtime the disk cache loads)
/// and returns when all have; serially on this thread under SerialKernels, for fewer than two
/// tasks, or where no such runtime is loaded (kernels compiled in memory). For the C++ loops
/// between kernels (a transform's reordering, its spectral division) that would otherwise leave a
/// core idle: the pool is the kernels' own, so the two never oversubscribe the cores. body must not
/// throw.
void parallel_for(int tasks, const std::function<void(int)>& body);

/// Elements a loop must touch before a second thread saves more than its hand-off costs (measured
/// on transforms and CG's vectors on two cores).
inline constexpr long kParallelFromElements = 128 * 128;

/// body(first, last) over [0, n) in up to 16 pieces on parallel_for where `elements` (what the loop
/// touches) reaches kParallelFromElements, else at once on this thread.
template <class Body>
void in_pieces(long n, long elements, const Body& body) {
    const int pieces = elements >= kParallelFromElements && !SerialKernels::active() ? int(n < 16 ? n : 16) : 1;
    parallel_for(pieces, [&](int k) { body(n * k / pieces, n * (k + 1) / pieces); });
}

/// The name of variable j's buffer among a kernel's state arguments: `name` for the first
/// variable, `name`_v<j> for the others.
std::string state_name(std::string_view name, int j);

}  // namespace proxgen::jit
