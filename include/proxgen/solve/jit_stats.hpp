// pg::jit_stats(): what the process has compiled, loaded and reused, for tests and for users who
// want to see that a data-only change does not recompile.
#pragma once

#include <string>

namespace proxgen {

/// JIT statistics for the whole process.
struct JitStats {
    int pipelines_compiled = 0;  ///< kernels compiled (Halide lowering + code generation) in this process
    int cache_hits = 0;          ///< solver kernel sets found in the in-memory cache
    double compile_seconds = 0;  ///< time spent compiling (and storing) kernels
    int disk_loads = 0;          ///< kernels loaded from the on-disk cache instead of compiled
    double disk_load_seconds = 0;
    int cached_structures = 0;   ///< kernel sets held in memory now (bounded: see jit_cache_capacity)
};
JitStats jit_stats();

/// Where compiled kernels persist between processes ($PROXGEN_CACHE_DIR, else
/// $XDG_CACHE_HOME/proxgen, else ~/.cache/proxgen), or "off: <reason>" (PROXGEN_CACHE_DIR=off, no
/// C compiler driver on PATH to link kernels, an unwritable directory).
std::string jit_disk_cache();

/// The in-memory cache holds the compiled kernels of at most this many (problem structure,
/// algorithm) pairs, least recently used evicted first. Default 64, or $PROXGEN_JIT_CACHE_SIZE.
int jit_cache_capacity();
void set_jit_cache_capacity(int structures);

}  // namespace proxgen
