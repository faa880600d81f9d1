// Internal: the in-memory cache of compiled kernel sets (one per algorithm and problem structure).
// A key is built once: concurrent callers of the same key wait for that build, callers of other
// keys go on (the Halide compiler lock is only taken inside builds). At most jit_cache_capacity()
// sets are kept; the least recently used is dropped first (its kernels stay alive while a solve
// still holds them).
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace proxgen::jit {

/// The set cached under key, built by build() on a miss; build_seconds grows by the time this call
/// spent building or waiting for a build.
std::shared_ptr<const void> cached(const std::string& key, const std::function<std::shared_ptr<const void>()>& build,
                             double& build_seconds);

template <class T>
std::shared_ptr<const T> cached_as(const std::string& key, const std::function<std::shared_ptr<const T>()>& build,
                                   double& build_seconds) {
    return std::static_pointer_cast<const T>(
        cached(key, [&] { return std::shared_ptr<const void>(build()); }, build_seconds));
}

}  // namespace proxgen::jit
