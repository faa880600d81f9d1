// A deployed deblurring program: links only a generated solver library (examples/deploy's
// `deblur`, Pock–Chambolle, or with PROXGEN_DEPLOY_LADMM defined `deblur_ladmm`, linearized ADMM,
// with PROXGEN_DEPLOY_ADMM `deblur_admm`, ADMM, with PROXGEN_DEPLOY_HQS `deblur_hqs`, half-quadratic
// splitting, with PROXGEN_DEPLOY_CV `deblur_cv`, Condat–Vũ, of the same problem) and the Halide runtime. Usage:
//   proxgen_deploy <b.npy> <kernel.npy> <lambda> <iterations> <x_out.npy> [--warmup | --converge]
// Runs exactly <iterations> iterations (tolerances 0), writes x, and prints
// ms/iteration. --warmup first runs one iteration on a throwaway solver, so that one-time costs
// (thread pool start, GPU context creation and kernel compilation) stay out of the timing.
// --converge stops at the default tolerances instead (<iterations> at most).
// Exit status: 0 on success, 2 on bad usage or input, 3 when the solver fails.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "npy_float32.hpp"
#if defined(PROXGEN_DEPLOY_LADMM)
#include "deblur_ladmm.h"
namespace generated = deblur_ladmm;
#elif defined(PROXGEN_DEPLOY_ADMM)
#include "deblur_admm.h"
namespace generated = deblur_admm;
#elif defined(PROXGEN_DEPLOY_HQS)
#include "deblur_hqs.h"
namespace generated = deblur_hqs;
#elif defined(PROXGEN_DEPLOY_CV)
#include "deblur_cv.h"
namespace generated = deblur_cv;
#else
#include "deblur.h"
namespace generated = deblur;
#endif

int main(int argc, char** argv) {
    const bool warmup = argc == 7 && std::string(argv[6]) == "--warmup";
    const bool converge = argc == 7 && std::string(argv[6]) == "--converge";
    if (argc != 6 && !warmup && !converge) {
        std::fprintf(stderr, "usage: %s <b.npy> <kernel.npy> <lambda> <iterations> <x_out.npy> [--warmup | --converge]\n",
                     argv[0]);
        return 2;
    }
    std::string error;
    Halide::Runtime::Buffer<float> b = npy::read(argv[1], error), k;
    if (b.data()) k = npy::read(argv[2], error);
    if (!b.data() || !k.data()) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 2;
    }
    // The data by the names deblur_problem.hpp gives them (pg::input, pg::parameter), as the user
    // has them: the generated init applies the rewrite rules (the term's offset is -b).
    generated::Data data;
    data.k = k;
    data.b = b;
    data.lambda = std::strtof(argv[3], nullptr);

    generated::Options options;
    options.max_iters = std::atoi(argv[4]);
    if (!converge) options.eps_abs = options.eps_rel = 0;  // exactly max_iters iterations

    if (warmup) {
        generated::Solver first;
        if (auto s = first.init({b.width(), b.height()}, data, options); s == generated::Status::ok) first.step(1);
    }
    generated::Solver solver;
    if (auto s = solver.init({b.width(), b.height()}, data, options); s != generated::Status::ok) {
        std::fprintf(stderr, "init: %s: %s\n", proxgen::aot::to_string(s), solver.last_error());
        return 3;
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (auto s = solver.solve(); s != generated::Status::ok) {
        std::fprintf(stderr, "solve: %s: %s\n", proxgen::aot::to_string(s), solver.last_error());
        return 3;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const generated::State& st = solver.state();
    std::printf("deploy: %d iterations, %.3f ms/iteration, r_primal %.4g r_dual %.4g (target %s)\n", st.iterations,
                1e3 * seconds / std::max(1, st.iterations), st.primal_residual, st.dual_residual,
                generated::Description::target);
    return npy::write(argv[5], solver.x()) ? 0 : 2;
}
