#include "memory_cache.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <list>
#include <map>
#include <mutex>

#include "compile.hpp"
#include "disk_cache.hpp"
#include "jit_stats.hpp"
#include "proxgen/error.hpp"

namespace proxgen {

namespace {

using Clock = std::chrono::steady_clock;

struct Slot {
    std::shared_future<std::shared_ptr<const void>> value;
    std::list<std::string>::iterator age;  // position in the recency list
};

struct Cache {
    std::mutex mutex;
    std::map<std::string, Slot> slots;
    std::list<std::string> recency;  // most recent first
    int capacity = initial_capacity();

    static int initial_capacity() {
        if (const char* s = std::getenv("PROXGEN_JIT_CACHE_SIZE"); s && *s) {
            const int n = std::atoi(s);
            if (n >= 1) return n;
        }
        return 64;
    }
    /// Drops least recently used sets beyond capacity (called with the mutex held).
    void trim() {
        while (int(slots.size()) > capacity && !recency.empty()) {
            slots.erase(recency.back());
            recency.pop_back();
        }
    }
};

Cache& cache() {
    static Cache c;
    return c;
}

struct Counters {
    std::mutex mutex;
    JitStats stats;
};
Counters& counters() {
    static Counters c;
    return c;
}

}  // namespace

namespace jit {

void record_compile(double seconds) {
    std::lock_guard<std::mutex> lock(counters().mutex);
    ++counters().stats.pipelines_compiled;
    counters().stats.compile_seconds += seconds;
}
void record_disk_load(double seconds) {
    std::lock_guard<std::mutex> lock(counters().mutex);
    ++counters().stats.disk_loads;
    counters().stats.disk_load_seconds += seconds;
}
void record_cache_hit() {
    std::lock_guard<std::mutex> lock(counters().mutex);
    ++counters().stats.cache_hits;
}
JitStats stats() {
    JitStats s;
    {
        std::lock_guard<std::mutex> lock(counters().mutex);
        s = counters().stats;
    }
    std::lock_guard<std::mutex> lock(cache().mutex);
    s.cached_structures = int(cache().slots.size());
    return s;
}

std::shared_ptr<const void> cached(const std::string& key, const std::function<std::shared_ptr<const void>()>& build,
                             double& build_seconds) {
    Cache& c = cache();
    std::promise<std::shared_ptr<const void>> promise;
    std::shared_future<std::shared_ptr<const void>> value;
    bool builder = false;
    {
        std::lock_guard<std::mutex> lock(c.mutex);
        auto it = c.slots.find(key);
        if (it != c.slots.end()) {
            c.recency.splice(c.recency.begin(), c.recency, it->second.age);
            value = it->second.value;
        } else {
            value = promise.get_future().share();
            c.recency.push_front(key);
            c.slots.emplace(key, Slot{value, c.recency.begin()});
            c.trim();
            builder = true;
        }
    }
    const auto t0 = Clock::now();
    const bool waits = !builder && value.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
    if (builder) {
        try {
            // the set's kernels get their machine code side by side; the set is whole when stored
            ConcurrentCompiles compiles;
            auto set = build();
            compiles.finish();
            promise.set_value(std::move(set));
        } catch (...) {
            promise.set_exception(std::current_exception());
            std::lock_guard<std::mutex> lock(c.mutex);
            auto it = c.slots.find(key);
            if (it != c.slots.end()) {  // forget the failed build: the next call retries
                c.recency.erase(it->second.age);
                c.slots.erase(it);
            }
        }
    } else {
        record_cache_hit();
    }
    auto result = value.get();  // rethrows a failed build to every waiter
    if (builder || waits) build_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    return result;
}

}  // namespace jit

JitStats jit_stats() { return jit::stats(); }

std::string jit_disk_cache() {
    const jit::DiskCache* d = jit::DiskCache::instance();
    return d ? d->directory() : "off: " + jit::DiskCache::why_off();
}

int jit_cache_capacity() {
    std::lock_guard<std::mutex> lock(cache().mutex);
    return cache().capacity;
}

void set_jit_cache_capacity(int structures) {
    if (structures < 1) fail("set_jit_cache_capacity: the capacity must be >= 1, got {}", structures);
    std::lock_guard<std::mutex> lock(cache().mutex);
    cache().capacity = structures;
    cache().trim();
}

}  // namespace proxgen
