// Convergence trace of one canonical problem: objective every `every` iterations for each
// algorithm, with the time per iteration. Used to tune defaults and to find the long-run optimum:
//   proxgen_converge deconv 256 3000 [pc,ladmm,admm,hqs] [every]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "canonical_problems.hpp"  // problems/, via proxgen_reference_problems

namespace pg = proxgen;

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s denoise|deconv|poisson W iters [alg,...] [every]\n", argv[0]);
        return 2;
    }
    const std::string kind = argv[1];
    const int W = std::atoi(argv[2]), iters = std::atoi(argv[3]);
    const std::string algs = argc > 4 ? argv[4] : "pc,ladmm,admm,hqs";
    const int every = argc > 5 ? std::atoi(argv[5]) : 50;
    const pg::bench::Canonical c = kind == "denoise" ? pg::bench::Canonical::denoise
                                   : kind == "deconv" ? pg::bench::Canonical::deconv
                                                      : pg::bench::Canonical::poisson;
    // any name of the algorithm table (pc, pock_chambolle, linearized_admm, ...); traces print short names
    std::vector<pg::Algorithm> algorithms;
    for (std::size_t at = 0; at <= algs.size();) {
        const std::size_t comma = std::min(algs.find(',', at), algs.size());
        try {
            algorithms.push_back(pg::algorithm_named(algs.substr(at, comma - at)));
        } catch (const pg::Error& e) {
            std::fprintf(stderr, "%s\n", e.what());
            return 2;
        }
        at = comma + 1;
    }
    pg::bench::with_problem(c, W, [&](const auto& prob, const auto& x, const pg::Image& start) {
        (void)x;
        for (pg::Algorithm alg : algorithms) {
            const std::string tag = pg::short_name(alg);
            pg::Options opt;
            opt.algorithm = alg;
            opt.max_iters = iters;
            opt.eps_abs = opt.eps_rel = 0;
            opt.check_every = every;
            opt.track_objective = true;
            opt.x0 = start;
            if (const char* v = std::getenv("PG_TAU")) opt.tau = std::atof(v);
            if (const char* v = std::getenv("PG_SIGMA")) opt.sigma = std::atof(v);
            if (const char* v = std::getenv("PG_RHO")) opt.rho = std::atof(v);
            if (const char* v = std::getenv("PG_CG_ITERS")) opt.cg_max_iters = std::atoi(v);
            if (const char* v = std::getenv("PG_CG_TOL")) opt.cg_tol = std::atof(v);
            if (const char* v = std::getenv("PG_HQS_EVERY")) opt.hqs_every = std::atoi(v);
            if (const char* v = std::getenv("PG_HQS_GROWTH")) opt.hqs_growth = std::atof(v);
            if (const char* v = std::getenv("PG_HQS_MAX")) opt.hqs_max_ratio = std::atof(v);
            if (std::getenv("PG_FIXED_RHO")) opt.adaptive_rho = false;
            if (std::getenv("PG_VERBOSE")) opt.verbose = true;
            pg::Options warm_up = opt;
            warm_up.max_iters = 1;
            const double compile_seconds = pg::solve(prob, warm_up).compile_seconds;
            const pg::Result r = pg::solve(prob, opt);
            // Poisson: print the deviance (objective + Σ(b log b − b)), not a value dominated by a constant
            const double shift = pg::bench::objective_shift(c, start);
            std::printf("%s:", tag.c_str());
            for (const auto& h : r.history) std::printf(" %d:%.7g", h.iteration, h.objective + shift);
            std::printf("\n  %.3f ms/it (with objective tracking), compile %.2f s, cg %d\n",
                        1e3 * r.solve_seconds / r.iterations, compile_seconds, r.cg_iterations);
            std::fflush(stdout);
        }
        return 0;
    });
}
