// Measuring tools for the benchmarks (issue 9 items 6 and 7): the machine's memory bandwidth
// (a STREAM-style triad), the process's peak resident memory, and ms per iteration with set-up
// cancelled out.
#pragma once

#include <cstddef>
#include <functional>

namespace proxgen::bench {

/// STREAM's triad a[i] = b[i] + s c[i] on `threads` threads over three arrays of doubles of
/// `bytes_per_array` each (far larger than the caches), best of `repeats` passes after one
/// warm-up pass, in GB/s counted as STREAM counts: 24 bytes per element (2 reads, 1 write; the
/// write-allocate read the CPU also makes is not counted).
double triad_bandwidth_gbs(int threads = 2, std::size_t bytes_per_array = std::size_t(128) << 20, int repeats = 10);

/// The process's peak resident set size in bytes (VmHWM of /proc/self/status; getrusage's
/// ru_maxrss where /proc is missing).
std::size_t peak_rss_bytes();

/// Milliseconds per iteration of `run(n)` (which runs n iterations) as (time of `long_n`
/// iterations - time of `short_n`) / (long_n - short_n), so that per-call set-up cancels; each time
/// the minimum over `repeats` runs (the least disturbed by other processes).
double ms_per_iteration(const std::function<void(int)>& run, int short_n = 20, int long_n = 220, int repeats = 3);

}  // namespace proxgen::bench
