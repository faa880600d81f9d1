// A problem in two variables against the same problem stacked by hand into one variable: two TV
// denoisings, x and y of W×H, against one W×H×2 variable whose channels are x and y (its grad and
// group_norm1 act per channel, so both problems are one and the same). Milliseconds per iteration
// (set-up cancelled: proxgen::ms_per_iteration), each algorithm's two forms measured in turn,
// `--rounds` times, the best of each kept (this VM drifts by up to 1.5×).
//   proxgen_bench_variables [--sizes 256,512] [--rounds 3]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <malloc.h>

#include <proxgen/benchmark.hpp>
#include <proxgen/proxgen.hpp>

namespace pg = proxgen;
namespace rt = pg::rt;

namespace {

pg::Image noisy(const std::vector<int>& shape, unsigned seed) {
    pg::Image img(shape);
    unsigned s = seed;
    for (std::size_t i = 0; i < img.size(); ++i) {
        s = s * 1664525u + 1013904223u;
        img.data()[i] = float(s >> 8) / float(1u << 24);
    }
    return img;
}

double measure(const rt::Problem& prob, pg::Algorithm a) {
    const rt::Plan plan = rt::plan(prob, a);
    auto run = [&](int n) {
        pg::Options opt;
        opt.algorithm = a;
        opt.max_iters = n;
        opt.eps_abs = opt.eps_rel = 0;
        opt.check_every = 1000000;  // residuals only at the last iteration
        rt::solve(plan, opt);
    };
    run(2);  // compiles
    return pg::benchmark::ms_per_iteration(run, 20, 120, 3);
}

}  // namespace

int main(int argc, char** argv) {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);  // fresh pages are slow on this VM: reuse the heap
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    std::vector<int> sizes{256, 512};
    int rounds = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        if (k == "--rounds") rounds = std::atoi(argv[i + 1]);
        if (k == "--sizes") {
            sizes.clear();
            for (const char* p = argv[i + 1]; *p;) {
                sizes.push_back(std::atoi(p));
                while (*p && *p != ',') ++p;
                if (*p == ',') ++p;
            }
        }
    }
    std::printf("%-8s %-16s %14s %14s %8s\n", "size", "algorithm", "2 variables", "stacked by hand", "ratio");
    for (int n : sizes) {
        const pg::Image b0 = noisy({n, n}, 1), b1 = noisy({n, n}, 2);
        pg::Image both({n, n, 2});
        std::copy(b0.data(), b0.data() + b0.size(), both.data());
        std::copy(b1.data(), b1.data() + b1.size(), both.data() + b0.size());
        rt::Expr x = rt::variable("x", {n, n}), y = rt::variable("y", {n, n}), s = rt::variable("s", {n, n, 2});
        const rt::Problem two = rt::sum_squares(x - b0) + 0.1 * rt::group_norm1(rt::grad(x)) +
                                rt::sum_squares(y - b1) + 0.1 * rt::group_norm1(rt::grad(y));
        const rt::Problem stacked = rt::sum_squares(s - both) + 0.1 * rt::group_norm1(rt::grad(s));
        for (pg::Algorithm a : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm, pg::Algorithm::hqs}) {
            double best_two = 1e30, best_stacked = 1e30;
            for (int r = 0; r < rounds; ++r) {
                best_two = std::min(best_two, measure(two, a));
                best_stacked = std::min(best_stacked, measure(stacked, a));
            }
            std::printf("%-8s %-16s %11.3f ms %11.3f ms %7.2fx\n", (std::to_string(n) + "^2").c_str(), pg::name(a),
                        best_two, best_stacked, best_two / best_stacked);
        }
    }
    return 0;
}
