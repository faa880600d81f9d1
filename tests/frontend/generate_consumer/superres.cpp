// Runs the masked super-resolution solver that `proxgen generate` wrote from
// tests/frontend/superres.txt:
//   superres_app M.npy K.npy B.npy LAMBDA OUT.npy MAX_ITERS EPS
// x has twice b's extents. Writes x after the solve (converged or at MAX_ITERS; exit 0 either way:
// the test compares its objective with the JIT's); exit 1 when the solver fails.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "npy_float32.hpp"
#include "superres_cli.h"

int main(int argc, char** argv) {
    if (argc != 8) {
        std::fprintf(stderr, "usage: superres_app M.npy K.npy B.npy LAMBDA OUT.npy MAX_ITERS EPS\n");
        return 2;
    }
    std::string error;
    Halide::Runtime::Buffer<float> m = npy::read(argv[1], error), k = npy::read(argv[2], error),
                                   b = npy::read(argv[3], error);
    if (!error.empty()) {
        std::fprintf(stderr, "superres_app: %s\n", error.c_str());
        return 1;
    }
    // the data as the problem file names them (the generated init applies the rewrite rules)
    superres_cli::Data data;
    data.m = m;
    data.k = k;
    data.b = b;
    data.lambda = float(std::atof(argv[4]));
    superres_cli::Options options;
    options.max_iters = std::atoi(argv[6]);
    options.eps_abs = options.eps_rel = std::atof(argv[7]);
    superres_cli::Solver solver;
    if (solver.init({2 * b.width(), 2 * b.height()}, data, options) != superres_cli::Status::ok ||
        solver.solve() != superres_cli::Status::ok) {
        std::fprintf(stderr, "superres_app: %s\n", solver.last_error());
        return 1;
    }
    std::printf("superres_app: %d iterations, converged %d\n", solver.state().iterations, int(solver.state().converged));
    return npy::write(argv[5], solver.x()) ? 0 : 1;
}
