// One solve at a time, its kernels' parallel loops on the thread pool or serially on the calling
// thread (jit::set_serial_solves_below), alternating in one run, the best of `--rounds` kept: where
// the pool's hand-offs cost more than a second core saves, which sets the default crossover
// (jit::small_enough_to_run_serially). TV deblurring (5×5 box blur, circular, λ = 0.01), each solve
// with its own noise image, the default tolerances; microseconds per iteration.
//   proxgen_bench_serial_solves [--sizes 64,128,256,320,512,1024] [--algorithms pc,admm] [--rounds 3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <proxgen/proxgen.hpp>

#include "jit/kernel.hpp"
#include "small_deblur.hpp"

namespace pg = proxgen;
namespace rt = pg::rt;

int main(int argc, char** argv) {
    pg::bench::reuse_the_heap();
    std::string sizes = "64,128,256,320,512,1024", algorithms = "pc,admm";
    int rounds = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        if (k == "--sizes") sizes = argv[i + 1];
        if (k == "--algorithms") algorithms = argv[i + 1];
        if (k == "--rounds") rounds = std::atoi(argv[i + 1]);
    }
    const double default_threshold = pg::jit::serial_solves_below();
    std::printf("default: serial below %.0f unknowns\n", default_threshold);
    std::printf("%-6s %-16s %14s %14s %8s\n", "size", "algorithm", "pool us/iter", "serial us/iter", "pool/serial");
    for (const std::string& size : pg::bench::comma_list(sizes)) {
        const int n = std::atoi(size.c_str());
        rt::Problem prob = pg::bench::small_deblur(n);
        const int solves = std::max(1, 20 * 64 * 64 / (n * n));
        for (const std::string& name : pg::bench::comma_list(algorithms)) {
            pg::Options opt;
            opt.algorithm = name == "admm" ? pg::Algorithm::admm : pg::Algorithm::pock_chambolle;
            rt::solve(prob, opt);  // compiles
            double best[2] = {1e30, 1e30};
            for (int r = 0; r < rounds; ++r)
                for (int serial = 0; serial < 2; ++serial) {
                    pg::jit::set_serial_solves_below(serial ? std::numeric_limits<double>::infinity() : 0.0);
                    long iterations = 0;
                    const auto t0 = std::chrono::steady_clock::now();
                    for (int s = 0; s < solves; ++s) {
                        prob.set_input("b", pg::bench::noise_image(n, unsigned(s + 1)));
                        iterations += rt::solve(prob, opt).iterations;
                    }
                    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
                    best[serial] = std::min(best[serial], us / double(iterations));
                }
            pg::jit::set_serial_solves_below(default_threshold);
            std::printf("%-6d %-16s %14.1f %14.1f %7.2fx\n", n, pg::name(opt.algorithm), best[0], best[1], best[0] / best[1]);
            std::fflush(stdout);
        }
    }
}
