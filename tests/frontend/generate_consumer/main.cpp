// Runs the deblurring solver that `proxgen generate` wrote from examples/node_graph/deblur.txt:
//   deblur_app B.npy KERNEL.npy LAMBDA OUT.npy [MAX_ITERS EPS]
// Exit 0 when it converged and wrote OUT.npy (the test compares it with the clean image); with
// MAX_ITERS and EPS (both tolerances), when it wrote OUT.npy, converged or not (the test compares
// its objective with the JIT's).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "deblur_cli.h"
#include "npy_float32.hpp"

int main(int argc, char** argv) {
    const bool limits = argc == 7;
    if (argc != 5 && !limits) {
        std::fprintf(stderr, "usage: deblur_app B.npy KERNEL.npy LAMBDA OUT.npy [MAX_ITERS EPS]\n");
        return 2;
    }
    std::string error;
    Halide::Runtime::Buffer<float> b = npy::read(argv[1], error), k = npy::read(argv[2], error);
    if (!error.empty()) {
        std::fprintf(stderr, "deblur_app: %s\n", error.c_str());
        return 1;
    }
    // The data as the problem file names them: its inputs b and k, its parameter lambda (the
    // generated init applies the rewrite rules, e.g. the offset -b of the data term).
    deblur_cli::Data data;
    data.b = b;
    data.k = k;
    data.lambda = float(std::atof(argv[3]));
    deblur_cli::Options options;
    options.max_iters = limits ? std::atoi(argv[5]) : 1000;
    if (limits) options.eps_abs = options.eps_rel = std::atof(argv[6]);
    deblur_cli::Solver solver;
    if (deblur_cli_init(solver, {b.width(), b.height()}, data, options) != deblur_cli::Status::ok ||
        deblur_cli_solve(solver) != deblur_cli::Status::ok) {
        std::fprintf(stderr, "deblur_app: %s\n", solver.last_error());
        return 1;
    }
    std::printf("deblur_app: %d iterations, converged %d\n", deblur_cli_state(solver).iterations,
                int(deblur_cli_state(solver).converged));
    if (!npy::write(argv[4], solver.x())) return 1;
    return deblur_cli_state(solver).converged || limits ? 0 : 1;
}
