// Internal: the process-wide counters behind pg::jit_stats().
#pragma once

#include "proxgen/solve/jit_stats.hpp"

namespace proxgen::jit {

void record_compile(double seconds);    ///< a kernel compiled (and stored when the disk cache is on)
void record_disk_load(double seconds);  ///< a kernel loaded from the disk cache
void record_cache_hit();                ///< a kernel set found in the in-memory cache
JitStats stats();

}  // namespace proxgen::jit
