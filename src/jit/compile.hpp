// Internal: compiling Halide pipelines into Kernels, once per machine.
//
//   jit::kernel(key, make)  →  the disk cache's shared object for `key` when it has a valid one;
//                              else make() builds the pipeline, it is compiled for the host and
//                              stored in the disk cache (or, with the cache off, JIT-compiled in
//                              memory).
//
// `key` must name everything that decides the generated code except the ProxGen sources, the
// Halide version and the target, which the cache adds itself (a structure signature and the
// pipeline's role, e.g. "pc.dual:" + ir::signature(p)). Halide's front end is not thread-safe:
// make() and the lowering run under one process-wide lock, taken here; running kernels needs no
// lock. Machine code (LLVM, then linking the shared object) is generated outside the lock, and
// within a ConcurrentCompiles scope on worker threads, so a set of kernels compiles side by side.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <Halide.h>

#include "kernel.hpp"

namespace proxgen::jit {

/// A pipeline and the inputs its entry point takes, in order (outputs follow them).
struct Source {
    Halide::Pipeline pipeline;
    std::vector<Halide::Argument> inputs;
};

KernelPtr kernel(const std::string& key, const std::function<Source()>& make);

/// While one lives on a thread, the kernels jit::kernel compiles there get their machine code on
/// worker threads (at most one per core) while the thread goes on lowering the next: kernel()
/// returns a Kernel whose arguments are known and whose run() waits for its code. finish() waits
/// for every kernel compiled in the scope and throws the first failure, so a kernel set built in
/// one (jit::cached builds every set in one) is whole when its build returns. Without a scope,
/// kernel() returns compiled kernels. Scopes nest: the innermost one collects.
class ConcurrentCompiles {
public:
    ConcurrentCompiles();
    /// Waits for the kernels not yet finished, ignoring their failures (an exception is leaving).
    ~ConcurrentCompiles();
    ConcurrentCompiles(const ConcurrentCompiles&) = delete;
    ConcurrentCompiles& operator=(const ConcurrentCompiles&) = delete;
    void finish();
    /// The scope collecting on this thread, or null.
    static ConcurrentCompiles* current();
    void add(KernelPtr pending) { pending_.push_back(std::move(pending)); }

private:
    ConcurrentCompiles* outer_;
    std::vector<KernelPtr> pending_;
};

/// While one lives on a thread, the first kernel jit::kernel does not find in the disk cache there
/// (it compiles it, or waits for another process compiling it) calls `on_miss`, once, before the
/// compiler starts: Tier::automatic learns at once that a new structure's fused kernels will take
/// seconds, where waiting for them would cost the per-card start its head start.
class CompileWatch {
public:
    explicit CompileWatch(std::function<void()> on_miss);
    ~CompileWatch();
    CompileWatch(const CompileWatch&) = delete;
    CompileWatch& operator=(const CompileWatch&) = delete;
    /// Called by jit::kernel at a miss.
    static void missed();

private:
    std::function<void()> on_miss_;
    CompileWatch* outer_;
};

/// The target kernels are compiled for: the host's (HL_JIT_TARGET overrides it, as Halide's JIT).
const Halide::Target& host_target();

/// Held while Halide's front end or compiler runs (building Funcs, lowering, code generation).
std::unique_lock<std::recursive_mutex> compiler_lock();

/// Makes a C function of this process callable from kernels compiled in memory (the JIT path that
/// process-local code takes): extern stages name it. Registering a name again replaces it.
void add_extern(const std::string& name, const Halide::ExternCFunction& f);

/// Whether a kernel's code may go to the disk cache: pipelines that embed process-local code
/// (user operators, diff_fn) must say no (their key cannot name that code).
struct NoDiskCache {
    NoDiskCache();
    ~NoDiskCache();
    NoDiskCache(const NoDiskCache&) = delete;
    NoDiskCache& operator=(const NoDiskCache&) = delete;
};

}  // namespace proxgen::jit
