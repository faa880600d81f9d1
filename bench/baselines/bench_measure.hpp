// The measuring tools of the benchmarks are ProxGen's public ones (proxgen/benchmark.hpp: the
// triad bandwidth, peak RSS, ms per iteration with set-up cancelled out), under bench's names.
#pragma once

#include "proxgen/benchmark.hpp"

namespace proxgen::bench {
using proxgen::benchmark::ms_per_iteration;
using proxgen::benchmark::peak_rss_bytes;
using proxgen::benchmark::triad_bandwidth_gbs;
}  // namespace proxgen::bench
