#include "compile.hpp"

#include <chrono>
#include <exception>
#include <future>
#include <map>
#include <optional>
#include <semaphore>
#include <thread>
#include <cstdlib>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "call_context.hpp"
#include "disk_cache.hpp"
#include "jit_stats.hpp"
#include "proxgen/error.hpp"

namespace proxgen::jit {

using namespace Halide;

namespace {
thread_local int disk_cache_disabled = 0;

std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::vector<ArgInfo> arg_table(const Module& m, const std::string& fn) {
    std::vector<ArgInfo> out;
    for (const auto& a : m.get_function_by_name(fn).args) {
        if (a.name == "__user_context") continue;
        ArgInfo i;
        i.name = a.name;
        i.output = a.kind == Argument::OutputBuffer;
        i.dimensions = a.dimensions;
        if (a.is_buffer()) i.kind = ArgInfo::Kind::buffer;
        else if (a.type == Float(32)) i.kind = ArgInfo::Kind::float32;
        else if (a.type == Int(32)) i.kind = ArgInfo::Kind::int32;
        else PROXGEN_INTERNAL_ASSERT(!"kernel scalar arguments are float32 or int32");
        out.push_back(std::move(i));
    }
    return out;
}

/// The display name of a kernel: its key up to the structure signature.
std::string display_name(const std::string& key) { return key.substr(0, key.find(':')); }

}  // namespace

NoDiskCache::NoDiskCache() { ++disk_cache_disabled; }
NoDiskCache::~NoDiskCache() { --disk_cache_disabled; }

namespace {
/// CPUID leaf 7, sub-leaf 1, EAX bit 4: the VEX-encoded AVX-VNNI instructions.
bool cpu_has_avx_vnni() {
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) return false;
    return ((eax >> 4) & 1u) != 0;
#else
    return false;
#endif
}
}  // namespace

const Target& host_target() {
    // Halide 14 reads AVX-512 with BF16 and VNNI as Sapphire Rapids, whose LLVM features include
    // AVX-VNNI; AMD's Zen 4 has the former and not the latter, and a kernel whose integer index
    // arithmetic LLVM turns into {vex} vpdpwssd (a reshape's flat index) dies of SIGILL there. The
    // feature is kept where the CPU has AVX-VNNI, and whenever HL_JIT_TARGET names the target.
    static const Target t = [] {
        Target host = get_jit_target_from_environment();
        if (!std::getenv("HL_JIT_TARGET") && host.has_feature(Target::AVX512_SapphireRapids) && !cpu_has_avx_vnni())
            host = host.without_feature(Target::AVX512_SapphireRapids);
        return host;
    }();
    return t;
}

std::unique_lock<std::recursive_mutex> compiler_lock() {
    static std::recursive_mutex m;
    return std::unique_lock<std::recursive_mutex>(m);
}

namespace {
thread_local ConcurrentCompiles* current_scope = nullptr;

/// Machine code generation runs on at most one thread per core at a time.
std::counting_semaphore<>& codegen_slots() {
    static std::counting_semaphore<> slots(std::max(1u, std::thread::hardware_concurrency()));
    return slots;
}
}  // namespace

ConcurrentCompiles::ConcurrentCompiles() : outer_(current_scope) { current_scope = this; }

namespace {
/// Waits for every kernel; the first failure, or null.
std::exception_ptr wait_for_all(const std::vector<KernelPtr>& kernels) {
    std::exception_ptr first;
    for (const auto& k : kernels) {
        try {
            k->wait();
        } catch (...) {
            if (!first) first = std::current_exception();
        }
    }
    return first;
}
}  // namespace

ConcurrentCompiles::~ConcurrentCompiles() {
    current_scope = outer_;
    wait_for_all(pending_);  // the exception already leaving this scope is the one to report
}

void ConcurrentCompiles::finish() {
    std::vector<KernelPtr> pending;
    pending.swap(pending_);
    if (std::exception_ptr first = wait_for_all(pending)) std::rethrow_exception(first);
}

ConcurrentCompiles* ConcurrentCompiles::current() { return current_scope; }

namespace {
std::map<std::string, ExternCFunction>& registered_externs() {
    static auto& externs = *new std::map<std::string, ExternCFunction>;  // lives past static destructors
    return externs;
}

/// A module exporting the registered externs, for a kernel's dependencies (under the compiler lock).
std::vector<Internal::JITModule> externs_module() {
    if (registered_externs().empty()) return {};
    Internal::JITModule exports;
    for (const auto& [name, f] : registered_externs()) exports.add_extern_for_export(name, f);
    return {exports};
}

/// Kernels compiled in memory report runtime errors to Halide's JIT runtime, whose default handler
/// (for a null context: an extern stage's) prints and aborts. Errors with no context, or with
/// this thread's running call's, go to that call's message (record_error); any other context is
/// Halide's own (Func::realize elsewhere in the process) and keeps the handler it had.
void install_jit_error_handler() {
    static Halide::JITHandlers previous;
    static const bool installed = [] {
        Halide::JITHandlers h;
        h.custom_error = [](Halide::JITUserContext* ucon, const char* msg) {
            CallContext* call = current_call();
            if (call && (ucon == nullptr || ucon == call)) record_error(call, msg);
            else if (previous.custom_error) previous.custom_error(ucon, msg);
        };
        previous = Internal::JITSharedRuntime::set_default_handlers(h);
        return true;
    }();
    (void)installed;
}
}  // namespace

void add_extern(const std::string& name, const ExternCFunction& f) {
    auto lock = compiler_lock();
    registered_externs()[name] = f;
}

namespace {
thread_local CompileWatch* current_watch = nullptr;
}  // namespace

CompileWatch::CompileWatch(std::function<void()> on_miss) : on_miss_(std::move(on_miss)), outer_(current_watch) {
    current_watch = this;
}
CompileWatch::~CompileWatch() { current_watch = outer_; }
void CompileWatch::missed() {
    if (!current_watch || !current_watch->on_miss_) return;
    auto f = std::move(current_watch->on_miss_);
    current_watch->on_miss_ = nullptr;  // once
    f();
}

KernelPtr kernel(const std::string& key, const std::function<Source()>& make) {
    DiskCache* disk = disk_cache_disabled ? nullptr : DiskCache::instance();
    const std::string name = display_name(key);
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [t0] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    Target target = disk ? disk->target() : host_target().with_feature(Target::JIT).with_feature(Target::UserContext);
    const std::string full_key = key + "|" + cache_version(target);
    std::shared_ptr<void> claim;
    if (disk) {
        if (KernelPtr k = disk->load(full_key, name)) {
            record_disk_load(elapsed());
            return k;
        }
        CompileWatch::missed();
        // another process (or thread) compiling this kernel: wait for it and load what it stored
        claim = disk->claim(full_key);
        if (KernelPtr k = claim ? disk->load(full_key, name) : nullptr) {
            record_disk_load(elapsed());
            return k;
        }
    }
    if (!disk) CompileWatch::missed();
    const std::string fn = fmt::format("proxgen_{:016x}", fnv1a(full_key));
    std::optional<Module> lowered;
    std::vector<ArgInfo> args;
    {
        auto lock = compiler_lock();
        Source s = make();
        lowered = s.pipeline.compile_to_module(s.inputs, fn, target);
        const Module& m = *lowered;
        args = arg_table(m, fn);
        if (!disk) {  // Halide's in-memory JIT: code generated here, under the lock
            install_jit_error_handler();
            auto jm = std::make_shared<Internal::JITModule>(m, m.get_function_by_name(fn), externs_module());
            auto argv = reinterpret_cast<Kernel::ArgvFunction>(jm->argv_function());
            record_compile(elapsed());
            return std::make_shared<Kernel>(name, argv, args, std::shared_ptr<const void>(jm, jm.get()));
        }
    }
    // The lowered module holds its own statements: LLVM's code generation and the link need
    // neither the lock nor the pipeline, and several modules may be generated at once.
    // (mutable: the claim is released when the kernel is stored or fails, not when the task's
    // state, which a pending kernel keeps, is destroyed)
    auto generate = [disk, full_key, name, m = *lowered, fn, args, elapsed, claim = std::move(claim)]() mutable -> KernelPtr {
        codegen_slots().acquire();
        struct Release {
            std::shared_ptr<void>& claim;
            ~Release() {
                claim.reset();
                codegen_slots().release();
            }
        } release{claim};
        KernelPtr k = disk->store(full_key, name, m, fn, args);
        record_compile(elapsed());
        return k;
    };
    ConcurrentCompiles* scope = ConcurrentCompiles::current();
    if (!scope) return generate();
    auto pending = std::make_shared<Kernel>(name, args, std::async(std::launch::async, std::move(generate)).share());
    scope->add(pending);
    return pending;
}

}  // namespace proxgen::jit
