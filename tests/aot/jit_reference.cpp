// The JIT side of the deployment test: writes the deconvolution problem of gen_inputs.py
// (make_deconv) as b.npy / kernel.npy, solves it with the JIT engine on the plan the generated
// solvers run (aot::halide_only of the algorithm's plan: pc, the default, or any other name of the
// algorithm table: ladmm, admm, hqs, cv), exactly
// <iterations> iterations, and writes x_jit.npy. Prints JIT ms/iteration (compilation excluded).
// With 0 iterations it only writes the inputs. admm_periodic: ADMM on the same deconvolution with
// periodic differences (tests/aot/periodic_deblur_problem.hpp), whose x-update is exact by FFT.
//   proxgen_aot_jit_reference <width> <lambda> <iterations> <out dir> [ALGORITHM|admm_periodic]
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <proxgen/aot/generator.hpp>
#include <proxgen/proxgen.hpp>

#include "../../examples/deploy/deblur_problem.hpp"
#include "periodic_deblur_problem.hpp"
#include "reference_problems.hpp"

int main(int argc, char** argv) {
    namespace pg = proxgen;
    const std::string algorithm = argc == 6 ? argv[5] : "pc";
    const bool periodic = algorithm == "admm_periodic";
    const std::optional<pg::Algorithm> a = periodic ? pg::Algorithm::admm : pg::parse_algorithm(algorithm);
    if ((argc != 5 && argc != 6) || !a || *a == pg::Algorithm::automatic) {
        std::fprintf(stderr, "usage: %s <width> <lambda> <iterations> <out dir> [ALGORITHM|admm_periodic] (%s)\n",
                     argv[0], pg::accepted_algorithm_names().c_str());
        return 2;
    }
    const int width = std::atoi(argv[1]);
    const float lambda = std::strtof(argv[2], nullptr);
    const std::string dir = argv[4];
    try {
        const auto deconv = pg::reference::make_deconv(width);
        pg::save_image(dir + "/b.npy", deconv.b);
        pg::save_image(dir + "/kernel.npy", deconv.kernel);
        const int iterations = std::atoi(argv[3]);
        if (iterations == 0) return 0;
        const pg::ir::Problem ir =
            periodic ? pg::detail::plan_for<pg::Algorithm::admm>(
                           pg::detail::normalized(periodic_deblur_problem(deconv.kernel, deconv.b, lambda)))
                     : pg::aot::halide_only(
                           pg::detail::plan_for(pg::detail::normalized(deblur_problem(deconv.kernel, deconv.b, lambda)), *a));
        pg::Options opt;
        opt.max_iters = iterations;
        opt.eps_abs = opt.eps_rel = 0;
        const pg::Result res = pg::detail::solve_ir(ir, opt, nullptr);
        std::printf("jit: %d iterations, %.3f ms/iteration (compile %.2f s), r_primal %.4g r_dual %.4g\n",
                    res.iterations, 1e3 * res.solve_seconds / std::max(1, res.iterations), res.compile_seconds,
                    res.primal_residual, res.dual_residual);
        pg::save_image(dir + "/x_jit.npy", res.x);
    } catch (const pg::Error& e) {
        std::fprintf(stderr, "jit_reference: %s\n", e.what());
        return 1;
    }
    return 0;
}
