#include "kernel.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

#include "call_context.hpp"
#include "proxgen/error.hpp"

namespace proxgen::jit {

Kernel::Kernel(std::string name, ArgvFunction fn, std::vector<ArgInfo> args, std::shared_ptr<const void> keep_alive)
    : name_(std::move(name)), args_(std::move(args)), fn_(fn), keep_alive_(std::move(keep_alive)) {
    PROXGEN_INTERNAL_ASSERT(fn_ != nullptr);
    count_inputs();
}

Kernel::Kernel(std::string name, std::vector<ArgInfo> args, std::shared_future<std::shared_ptr<const Kernel>> code)
    : name_(std::move(name)), args_(std::move(args)), code_(std::move(code)) {
    PROXGEN_INTERNAL_ASSERT(code_.valid());
    count_inputs();
}

void Kernel::count_inputs() {
    while (inputs_ < int(args_.size()) && !args_[inputs_].output) ++inputs_;
    for (int i = inputs_; i < int(args_.size()); ++i) PROXGEN_INTERNAL_ASSERT(args_[i].output);
}

void Kernel::wait() const {
    if (!code_.valid()) return;  // built ready
    std::call_once(resolved_, [&] {
        std::shared_ptr<const Kernel> compiled = code_.get();  // a failure leaves the flag unset: rethrown next time
        PROXGEN_INTERNAL_ASSERT(compiled && compiled->fn_ && compiled->args_.size() == args_.size());
        fn_ = compiled->fn_;
        keep_alive_ = std::move(compiled);
    });
}

int Kernel::input_index(std::string_view name) const {
    for (int i = 0; i < inputs_; ++i)
        if (args_[i].name == name) return i;
    return -1;
}

namespace {
thread_local bool serial_kernels = false;
thread_local CallContext* current_context = nullptr;
thread_local std::uint64_t serial_loops = 0, pooled_loops = 0;  // (per thread: no shared line to write)

/// A parallel loop's tasks in order on the calling thread; the first failing task's status.
template <class Context, class Task>
int run_tasks_in_order(Context* ctx, Task task, int min, int size, uint8_t* closure) {
    for (int i = min; i < min + size; ++i)
        if (const int status = task(ctx, i, closure)) return status;
    return 0;
}

int serial_jit_par_for(Halide::JITUserContext* ctx, int (*task)(Halide::JITUserContext*, int, uint8_t*), int min,
                       int size, uint8_t* closure) {
    ++serial_loops;
    return run_tasks_in_order(ctx, task, min, size, closure);
}
}  // namespace

SerialKernels::SerialKernels() : saved_(serial_kernels) { serial_kernels = true; }
SerialKernels::~SerialKernels() { serial_kernels = saved_; }
bool SerialKernels::active() { return serial_kernels; }

int serial_par_for(void* user_context, int (*task)(void*, int, uint8_t*), int min, int size, uint8_t* closure) {
    ++serial_loops;
    return run_tasks_in_order(user_context, task, min, size, closure);
}

namespace {
/// The threshold, -1 where PROXGEN_SERIAL_SOLVES_BELOW is not a number ≥ 0 (every solve then fails
/// naming it).
std::atomic<double>& serial_threshold() {
    static std::atomic<double> unknowns = [] {
        if (const char* v = std::getenv("PROXGEN_SERIAL_SOLVES_BELOW"); v && *v) {
            char* end = nullptr;
            const double n = std::strtod(v, &end);
            return *end == '\0' && n >= 0 ? n : -1.0;
        }
        const double cores = std::max(1u, std::thread::hardware_concurrency());
        return 2.0 * 288 * 288 / cores;
    }();
    return unknowns;
}
}  // namespace

double serial_solves_below() {
    const double n = serial_threshold().load(std::memory_order_relaxed);
    if (n < 0)
        fail("the environment variable PROXGEN_SERIAL_SOLVES_BELOW must be a number of unknowns >= 0 (0: no solve "
             "runs serially), got '{}'", std::getenv("PROXGEN_SERIAL_SOLVES_BELOW"));
    return n;
}
void set_serial_solves_below(double unknowns) { serial_threshold().store(unknowns, std::memory_order_relaxed); }
bool small_enough_to_run_serially(double unknowns) { return unknowns < serial_solves_below(); }

void count_pooled_loop() { ++pooled_loops; }

ParallelLoops parallel_loops() {
    return {serial_loops, pooled_loops};
}

void Kernel::run(const void** argv) const {
    CallContext ctx;
    if (serial_kernels) {
        ctx.serial = true;
        ctx.handlers.custom_do_par_for = &serial_jit_par_for;
    }
    // Halide's argv entry points read their user context through argv[0], as a pointer to it
    // (Halide's own JIT calls pass a JITUserContext**): the runtime's handlers then get this call.
    CallContext* self = &ctx;
    argv[0] = &self;
    wait();
    struct Current {  // this call, for extern stages on this thread (kernels nest: restore the outer)
        CallContext* outer;
        explicit Current(CallContext* c) : outer(current_context) { current_context = c; }
        ~Current() { current_context = outer; }
    } current(&ctx);
    const int status = fn_(argv);
    if (status != 0)
        fail("Halide pipeline '{}' failed (status {}): {}", name_, status,
             ctx.message.empty() ? std::string("no message") : ctx.message);
}

Call::Call(KernelPtr k) : kernel_(std::move(k)), argv_(1 + kernel_->args().size(), nullptr) {}

Call& Call::bind(int index, const void* p) {
    argv_[1 + index] = p;
    return *this;
}

Call& Call::in(std::string_view name, const Image& img) {
    const int i = kernel_->input_index(name);
    PROXGEN_INTERNAL_ASSERT(i >= 0 && kernel_->args()[i].kind == ArgInfo::Kind::buffer);
    return bind(i, img.buffer().raw_buffer());
}

Call& Call::in(std::string_view name, const float& value) {
    const int i = kernel_->input_index(name);
    PROXGEN_INTERNAL_ASSERT(i >= 0 && kernel_->args()[i].kind == ArgInfo::Kind::float32);
    return bind(i, &value);
}

Call& Call::maybe_in(std::string_view name, const halide_buffer_t* buf) {
    const int i = kernel_->input_index(name);
    if (i >= 0) {
        PROXGEN_INTERNAL_ASSERT(kernel_->args()[i].kind == ArgInfo::Kind::buffer);
        bind(i, buf);
    }
    return *this;
}

Call& Call::maybe_in(std::string_view name, const float& value) {
    const int i = kernel_->input_index(name);
    if (i >= 0) {
        PROXGEN_INTERNAL_ASSERT(kernel_->args()[i].kind == ArgInfo::Kind::float32);
        bind(i, &value);
    }
    return *this;
}

Call& Call::out(int i, Image& img) { return out(i, img.buffer().raw_buffer()); }

Call& Call::out(int i, halide_buffer_t* buffer) {
    PROXGEN_INTERNAL_ASSERT(i >= 0 && i < kernel_->output_count());
    return bind(kernel_->input_count() + i, buffer);
}

std::string state_name(std::string_view name, int j) {
    return j == 0 ? std::string(name) : fmt::format("{}_v{}", name, j);
}

void Call::bind_view(int index, const Image& flat, const std::vector<std::vector<int>>& shapes, std::size_t j) {
    std::size_t offset = 0, total = 0;
    for (std::size_t k = 0; k < shapes.size(); ++k) {
        std::size_t elements = 1;
        for (int e : shapes[k]) elements *= std::size_t(e);
        if (k < j) offset += elements;
        total += elements;
    }
    PROXGEN_INTERNAL_ASSERT(flat.empty() || total == flat.size());
    // binding the same view again (a step's output bound before every run) keeps the one it has
    if (auto it = views_.find(index);
        it != views_.end() && it->second->source == &flat && it->second->offset == offset && argv_[1 + index] == &it->second->buffer)
        return;
    auto v = std::make_shared<View>();
    v->source = &flat;
    v->offset = offset;
    const auto& shape = shapes[j];
    PROXGEN_INTERNAL_ASSERT(!shape.empty() && shape.size() <= 4);
    v->buffer.type = halide_type_of<float>();
    v->buffer.dimensions = int(shape.size());
    v->buffer.dim = v->dims.data();
    int stride = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        v->dims[d] = halide_dimension_t(0, shape[d], stride);
        stride *= shape[d];
    }
    bind(index, &v->buffer);
    views_[index] = std::move(v);
}

Call& Call::in_state(std::string_view name, const Image& flat, const std::vector<std::vector<int>>& shapes) {
    if (shapes.size() == 1) return in(name, flat);
    for (std::size_t j = 0; j < shapes.size(); ++j) {
        const int i = kernel_->input_index(state_name(name, int(j)));
        PROXGEN_INTERNAL_ASSERT(i >= 0 && kernel_->args()[i].kind == ArgInfo::Kind::buffer);
        bind_view(i, flat, shapes, j);
    }
    return *this;
}

int Call::out_state(int first, Image& flat, const std::vector<std::vector<int>>& shapes) {
    if (shapes.size() == 1) {
        out(first, flat);
        return first + 1;
    }
    for (std::size_t j = 0; j < shapes.size(); ++j) {
        PROXGEN_INTERNAL_ASSERT(first + int(j) < kernel_->output_count());
        bind_view(kernel_->input_count() + first + int(j), flat, shapes, j);
    }
    return first + int(shapes.size());
}

void Call::run() {
    for (auto& [index, v] : views_) {
        // the flat image's current storage (swaps move it); an empty image leaves the view unbound
        if (argv_[1 + index] != &v->buffer) continue;  // rebound since to something else
        v->buffer.host = v->source->empty() ? nullptr
                                            : reinterpret_cast<uint8_t*>(const_cast<float*>(v->source->data()) + v->offset);
    }
    for (std::size_t i = 1; i < argv_.size(); ++i)
        if (!argv_[i])
            detail::internal_error(fmt::format("argument '{}' of kernel '{}' is not bound", kernel_->args()[i - 1].name,
                                               kernel_->name())
                                       .c_str(),
                                   __FILE__, __LINE__);
    kernel_->run(argv_.data());
}

}  // namespace proxgen::jit

namespace proxgen::jit {

CallContext* current_call() { return current_context; }

void record_error(void* user_context, const char* msg) {
    auto* ctx = static_cast<CallContext*>(static_cast<Halide::JITUserContext*>(user_context));
    if (!ctx) ctx = current_call();  // extern stages have none to give
    if (!ctx || !msg) return;
    if (!ctx->message.empty()) ctx->message += "; ";
    ctx->message += msg;
    while (!ctx->message.empty() && ctx->message.back() == '\n') ctx->message.pop_back();
}

CallContext::CallContext() {
    handlers.custom_error = [](Halide::JITUserContext* ucon, const char* msg) { record_error(ucon, msg); };
}

}  // namespace proxgen::jit
