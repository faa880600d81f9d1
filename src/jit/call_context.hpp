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
    bool failed = false;  // an extern stage failed without failing the pipeline (record_failure)
    CallContext();
};

/// A parallel loop run serially on the calling thread: what a kernel loaded from the disk cache
/// runs for a CallContext with `serial` (the cache's runtime dispatches on it).
int serial_par_for(void* user_context, int (*task)(void*, int, uint8_t*), int min, int size, uint8_t* closure);

/// The call running a kernel on this thread (the innermost, where a kernel's extern stage runs
/// another kernel), or null: what an extern stage computed at the pipeline's root reports to (the
/// user context Halide hands extern stages is not this one in kernels compiled in memory).
CallContext* current_call();

/// What an extern stage calls instead of returning an error status (which kernels compiled in
/// memory cannot report: their runtime's error handler is Halide's default, which aborts): the
/// call fails with msg once the pipeline returns.
void record_failure(void* user_context, const char* msg);

/// The error handler both kinds of kernels use: appends msg to the CallContext it is given.
void record_error(void* user_context, const char* msg);

}  // namespace proxgen::jit
