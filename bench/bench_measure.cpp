// See bench_measure.hpp.
#include "bench_measure.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace proxgen::bench {

double triad_bandwidth_gbs(int threads, std::size_t bytes_per_array, int repeats) {
    const std::size_t n = bytes_per_array / sizeof(double);
    std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
    const int T = std::max(threads, 1);
    // Each thread first touches its own part, so pages are mapped by the thread that uses them.
    auto parallel = [&](auto&& body) {
        std::vector<std::thread> pool;
        for (int t = 0; t < T; ++t) pool.emplace_back([&, t] { body(n * t / T, n * (t + 1) / T); });
        for (std::thread& th : pool) th.join();
    };
    parallel([&](std::size_t lo, std::size_t hi) {
        for (std::size_t i = lo; i < hi; ++i) a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
    });
    const double s = 3.0;
    auto triad = [&](std::size_t lo, std::size_t hi) {
        double* __restrict pa = a.get();
        const double* __restrict pb = b.get();
        const double* __restrict pc = c.get();
        for (std::size_t i = lo; i < hi; ++i) pa[i] = pb[i] + s * pc[i];
    };
    parallel(triad);  // warm-up
    double best = 1e300;
    for (int r = 0; r < std::max(repeats, 1); ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        parallel(triad);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return 24.0 * double(n) / best / 1e9;
}

std::size_t peak_rss_bytes() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::size_t(std::stoull(line.substr(6))) * 1024;  // "VmHWM: n kB"
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return std::size_t(u.ru_maxrss) * 1024;  // kB on Linux
}

double ms_per_iteration(const std::function<void(int)>& run, int short_n, int long_n, int repeats) {
    auto time = [&](int n) {
        const auto t0 = std::chrono::steady_clock::now();
        run(n);
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    };
    // The least disturbed time of each length (a disturbed short run must not shrink the difference).
    double t_short = 1e300, t_long = 1e300;
    for (int r = 0; r < std::max(repeats, 1); ++r) {
        t_short = std::min(t_short, time(short_n));
        t_long = std::min(t_long, time(long_n));
    }
    return (t_long - t_short) / (long_n - short_n);
}

}  // namespace proxgen::bench
