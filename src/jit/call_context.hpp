// Internal: the user context every kernel call passes to the generated code. Halide's runtime hands
// it back to the error handler, so an error message lands in the call that caused it (never in
// shared state, never an abort). It is a Halide::JITUserContext so that JIT-compiled kernels can
// use it as theirs; kernels loaded from shared objects get the same pointer through
// halide_set_error_handler (disk_cache.cpp).
#pragma once

#include <string>

#include <Halide.h>

namespace proxgen::jit {

struct CallContext : Halide::JITUserContext {
    std::string message;
    bool serial = false;  // run parallel loops on the calling thread (SerialKernels)
    CallContext();
};

/// A parallel loop run serially on the calling thread: what a kernel loaded from the disk cache
/// runs for a CallContext with `serial` (the cache's runtime dispatches on it).
int serial_par_for(void* user_context, int (*task)(void*, int, uint8_t*), int min, int size, uint8_t* closure);

/// Counts a parallel loop a kernel loaded from the disk cache, called on this thread, hands to the
/// runtime's thread pool (parallel_loops()).
void count_pooled_loop();

/// The call running a kernel on this thread (the innermost, where a kernel's extern stage runs
/// another kernel), or null: where errors go when Halide hands no context (kernels compiled in
/// memory pass their handlers and extern stages a null one).
CallContext* current_call();

/// The error handler both kinds of kernels use: appends msg to the CallContext it is given (or,
/// given none, to current_call()'s).
void record_error(void* user_context, const char* msg);

}  // namespace proxgen::jit
