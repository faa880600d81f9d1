// See proxgen/benchmark.hpp.
#include "proxgen/benchmark.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../solve/algorithm_rows.hpp"

namespace proxgen::benchmark {

double triad_bandwidth_gbs(int threads, std::size_t bytes_per_array, int repeats) {
    const std::size_t n = bytes_per_array / sizeof(double);
    std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
    const int T = threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
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

double machine_bandwidth_gbs() {
    static const double measured = triad_bandwidth_gbs();  // thread-safe one-time initialisation
    return measured;
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
    if (short_n < 0 || long_n <= short_n)
        throw Error("ms_per_iteration: needs 0 <= short_n < long_n, got " + std::to_string(short_n) + " and " +
                    std::to_string(long_n));
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

namespace {

double samples(const std::vector<int>& shape) {
    double n = 1;
    for (int s : shape) n *= s;
    return n;
}

/// Samples of every data image a term reads (absorbed offset, weight, counts, and the images its
/// operators hold: kernels, elementwise weights, constants).
double data_samples(const ir::Term& t) {
    double n = double(t.offset.size() + t.arg_weight.size() + t.data.size());
    std::function<void(const ir::Node&)> visit = [&](const ir::Node& node) {
        n += double(node.image.size());
        for (const ir::Node& a : node.args) visit(a);
    };
    visit(t.expr);
    return n;
}

double split_samples(const ir::Problem& p) {
    double m = 0;
    for (const ir::Term& t : p.psi) m += samples(t.expr.shape);
    return m;
}

}  // namespace

double iteration_bytes(const ir::Problem& p) {
    const detail::AlgorithmRow& row = detail::algorithm_row(p.algorithm);
    double data = 0;
    for (const ir::Term& t : p.omega) data += data_samples(t);
    for (const ir::Term& t : p.psi) data += data_samples(t);
    return 4.0 * (row.x_planes_moved * samples(p.variable_shape) + row.planes_moved_per_split_term * split_samples(p) +
                  data);
}

double state_bytes(const ir::Problem& p) {
    const detail::AlgorithmRow& row = detail::algorithm_row(p.algorithm);
    return 4.0 * (row.x_state_planes * samples(p.variable_shape) + row.state_planes_per_split_term * split_samples(p));
}

}  // namespace proxgen::benchmark
