// See baseline_support.hpp.
#include "baseline_support.hpp"

#include <sys/mman.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

namespace proxgen::bench::detail {

Layout::Layout(int w, int h, int margin_pixels) : W(w), H(h), margin((margin_pixels + 15) / 16 * 16) {
    if (w < 1 || h < 1) throw std::invalid_argument("baseline: the image must not be empty");
}

void PlaneSet::Free::operator()(float* p) const { std::free(p); }

PlaneSet::PlaneSet(const Layout& layout, int planes) : layout_(layout), planes_(planes) {
    constexpr std::size_t kHuge = std::size_t(2) << 20;
    const std::size_t bytes = (layout.plane_floats() * planes * sizeof(float) + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, bytes);
    if (p == nullptr) throw std::bad_alloc();
    // Huge pages: fewer TLB misses on 2048^2 planes, and far fewer page faults when first touched.
    madvise(p, bytes, MADV_HUGEPAGE);
    std::memset(p, 0, bytes);
    data_.reset(static_cast<float*>(p));
}

float* PlaneSet::origin(int k) const {
    if (k < 0 || k >= planes_) throw std::out_of_range("PlaneSet: no such plane");
    return data_.get() + std::size_t(k) * layout_.plane_floats() +
           std::size_t(layout_.margin) * layout_.stride() + layout_.margin;
}

Halide::Runtime::Buffer<float> PlaneSet::view(int k, int x0, int y0, int w, int h) const {
    halide_dimension_t dims[2] = {{x0, w, 1, 0}, {y0, h, layout_.stride(), 0}};
    float* first = origin(k) + std::ptrdiff_t(y0) * layout_.stride() + x0;
    return Halide::Runtime::Buffer<float>(first, 2, dims);
}

Halide::Runtime::Buffer<float> PlaneSet::padded(int k) const {
    return view(k, -layout_.margin, -layout_.margin, layout_.stride(), layout_.padded_height());
}

Halide::Runtime::Buffer<float> PlaneSet::written(int k) const { return view(k, 0, 0, layout_.vector_width(), layout_.H); }

Halide::Runtime::Buffer<float> PlaneSet::interior(int k) const { return view(k, 0, 0, layout_.W, layout_.H); }

void PlaneSet::load(int k, const Halide::Runtime::Buffer<const float>& src) const {
    if (src.dimensions() != 2 || src.dim(0).extent() != layout_.W || src.dim(1).extent() != layout_.H)
        throw std::invalid_argument("baseline: an input image does not have the problem's W x H shape");
    zero(k);
    const int x0 = src.dim(0).min(), y0 = src.dim(1).min();
    Halide::Runtime::Buffer<float> p = interior(k);
    for (int j = 0; j < layout_.H; ++j)
        for (int i = 0; i < layout_.W; ++i) p(i, j) = src(x0 + i, y0 + j);
}

void PlaneSet::zero(int k) const {
    std::memset(origin(k) - std::size_t(layout_.margin) * layout_.stride() - layout_.margin, 0,
                layout_.plane_floats() * sizeof(float));
}

Halide::Param<int> size_param(const char* name) { return Halide::Param<int>(name, 2, 2, 1 << 20); }

Halide::Target baseline_target() {
    return Halide::get_host_target().with_feature(Halide::Target::JIT).with_feature(Halide::Target::UserContext);
}

// Errors raised inside a pipeline land here (the JIT runtime finds the handler through the
// user context), and call() turns them into exceptions.
struct JitFunction::Context : Halide::JITUserContext {
    std::string message;
    static void on_error(Halide::JITUserContext* c, const char* msg) {
        static_cast<Context*>(c)->message += msg;
    }
};

namespace {

// The schedule knobs (PG_* variables, development only) are part of a pipeline's identity.
std::string cache_key(const std::string& name) {
    std::string key = name;
    for (char** e = environ; *e != nullptr; ++e)
        if (std::strncmp(*e, "PG_", 3) == 0) key += std::string(";") + *e;
    return key;
}

}  // namespace

JitFunction::JitFunction(Halide::Pipeline p, const std::vector<Halide::Argument>& inputs, const std::string& name)
    : name_(name) {
    static std::mutex mutex;
    // Never destroyed: JIT modules must not outlive Halide's runtime during static destruction.
    static auto* cache = new std::map<std::string, std::shared_ptr<const Halide::Internal::JITModule>>;
    const std::string key = cache_key(name);
    std::lock_guard<std::mutex> lock(mutex);  // Halide's compiler is not thread-safe either
    auto& slot = (*cache)[key];
    if (!slot) {
        const Halide::Target t = baseline_target();
        // For reading the generated code: PROXGEN_BASELINE_DUMP=<dir> writes <name>.s and <name>.stmt.
        if (const char* dir = std::getenv("PROXGEN_BASELINE_DUMP")) {
            p.compile_to_assembly(std::string(dir) + "/" + name + ".s", inputs, name, t);
            p.compile_to_lowered_stmt(std::string(dir) + "/" + name + ".stmt", inputs, Halide::StmtOutputFormat::Text,
                                      t);
        }
        Halide::Module m = p.compile_to_module(inputs, name, t).resolve_submodules();
        slot = std::make_shared<const Halide::Internal::JITModule>(m, m.get_function_by_name(name),
                                                                  std::vector<Halide::Internal::JITModule>{});
    }
    module_ = slot;
    fn_ = module_->argv_function();
    if (fn_ == nullptr) throw std::runtime_error("baseline: JIT compilation of " + name + " failed");
    argc_ = 1 + inputs.size();
    for (const Halide::Func& f : p.outputs()) argc_ += f.outputs();
}

std::vector<const void*> JitFunction::make_args() const { return std::vector<const void*>(argc_, nullptr); }

void JitFunction::call(std::vector<const void*>& args) const {
    // The context lives on the stack of the call: error messages are per call, and a shared
    // compiled function may run from several threads.
    Context ctx;
    ctx.handlers.custom_error = &Context::on_error;
    Halide::JITUserContext* ctx_ptr = &ctx;
    args[0] = &ctx_ptr;
    const int rc = fn_(args.data());
    args[0] = nullptr;
    if (rc != 0) throw std::runtime_error("baseline pipeline " + name_ + " failed: " + ctx.message);
}

Halide::Expr masked_difference(const Halide::Expr& v, const Halide::Expr& n, const Halide::Expr& difference) {
    return Halide::select(v >= 0 && v < n - 1, Halide::likely(difference), 0.0f);
}

void constrain_input(Halide::OutputImageParam p) { p.dim(0).set_stride(1); }

void constrain_written(Halide::Func& out) {
    std::vector<Halide::OutputImageParam> bufs = out.output_buffers();
    for (std::size_t k = 0; k < bufs.size(); ++k) {
        bufs[k].dim(0).set_stride(1);
        if (k == 0) bufs[k].dim(0).set_min(0);  // the others share the first's bounds
    }
}

}  // namespace proxgen::bench::detail
