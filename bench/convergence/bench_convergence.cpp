// The convergence benchmark: iterations and time to a relative objective gap of 1e-3 and 1e-4 (and
// to the default stopping rule), per algorithm, on the suite of convergence_suite.hpp, against the
// float64 fixed-step references of reference_solver.hpp (PDHG τ = σ = 1/‖K‖, ADMM with fixed ρ,
// both with exact norms). The optimum f* of each problem is the lower of a long PDHG run and a long
// ADMM run of the reference; both are cached in --cache (reference runs take minutes).
//
//   build/bench/proxgen_bench_convergence [--size 64] [--problems deconv,svb] [--algorithms pc,ladmm]
//       [--data data] [--cache build/bench/convergence_cache] [--ref-iters 20000] [--max-iters 3000]
//       [--csv out.csv]
//   --ref-iters 0: no float64 reference (too slow at 512²); f* from --optimum-iters (3000) iterations
//   of each algorithm asked for.
//
// Counts are multiples of 10 for ProxGen (its objective is measured at its residual checks, every
// 10 iterations, as the defaults run); the references' exact counts are printed, and rounded up to
// a multiple of 10 where they are compared.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <proxgen/benchmark.hpp>

#include "convergence_suite.hpp"

namespace pg = proxgen;
namespace ref = proxgen::bench::ref;

namespace {

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

struct Reference {
    double optimum = 0, pdhg_final = 0, admm_final = 0, norm = 0, rho = 0;
    int pdhg_1e3 = -1, pdhg_1e4 = -1, admm_1e3 = -1, admm_1e4 = -1;
};

int first_within(const std::vector<double>& trace, double optimum, double shift, double tol) {
    for (std::size_t i = 0; i < trace.size(); ++i)
        if ((trace[i] + shift - optimum) / std::abs(optimum) <= tol) return int(i) + 1;
    return -1;
}

Reference reference_for(const pg::bench::SuiteProblem& s, int W, int ref_iters, const std::string& cache_dir) {
    const std::string file = fmt::format("{}/{}_{}_{}_{}.txt", cache_dir, s.name, W, s.source, ref_iters);
    Reference r;
    if (std::ifstream in(file); in) {
        in >> r.optimum >> r.pdhg_final >> r.admm_final >> r.norm >> r.rho >> r.pdhg_1e3 >> r.pdhg_1e4 >> r.admm_1e3 >>
            r.admm_1e4;
        if (in) return r;
    }
    const ref::Vec x0 = s.x0.empty() ? ref::Vec(s.reference.n, 0.0) : ref::Vec(s.x0.data(), s.x0.data() + s.x0.size());
    fmt::print(stderr, "  reference: {} PDHG and {} ADMM iterations in float64 ...\n", ref_iters, ref_iters / 10);
    const ref::Trace p = ref::pdhg(s.reference, x0, ref_iters);
    const ref::Trace a = ref::admm(s.reference, x0, ref_iters / 10);
    r.pdhg_final = p.objective.back() + s.shift;
    r.admm_final = a.objective.back() + s.shift;
    r.optimum = INFINITY;
    for (const auto* t : {&p.objective, &a.objective})
        for (double v : *t) r.optimum = std::min(r.optimum, v + s.shift);
    r.norm = p.norm;
    r.rho = a.norm;
    r.pdhg_1e3 = first_within(p.objective, r.optimum, s.shift, 1e-3);
    r.pdhg_1e4 = first_within(p.objective, r.optimum, s.shift, 1e-4);
    r.admm_1e3 = first_within(a.objective, r.optimum, s.shift, 1e-3);
    r.admm_1e4 = first_within(a.objective, r.optimum, s.shift, 1e-4);
    std::filesystem::create_directories(cache_dir);
    std::ofstream out(file);
    out << fmt::format("{:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {} {} {} {}\n", r.optimum, r.pdhg_final, r.admm_final,
                       r.norm, r.rho, r.pdhg_1e3, r.pdhg_1e4, r.admm_1e3, r.admm_1e4);
    return r;
}

std::string count(int n) { return n < 0 ? std::string("-") : std::to_string(n); }
int round10(int n) { return n < 0 ? n : (n + 9) / 10 * 10; }

}  // namespace

int main(int argc, char** argv) {
    int W = 64, ref_iters = 20000, max_iters = 3000, optimum_iters = 3000;
    std::string data = "data", cache = "build/bench/convergence_cache", csv;
    std::vector<std::string> problems = pg::bench::suite_names(), algorithms = {"pc", "ladmm", "admm", "hqs"};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--size") W = std::atoi(next().c_str());
        else if (a == "--problems") problems = split(next());
        else if (a == "--algorithms") algorithms = split(next());
        else if (a == "--data") data = next();
        else if (a == "--cache") cache = next();
        else if (a == "--ref-iters") ref_iters = std::atoi(next().c_str());
        else if (a == "--max-iters") max_iters = std::atoi(next().c_str());
        else if (a == "--optimum-iters") optimum_iters = std::atoi(next().c_str());
        else if (a == "--csv") csv = next();
        else {
            std::fprintf(stderr, "usage: %s [--size W] [--problems a,b] [--algorithms pc,ladmm,admm,hqs,cv,pc_pre] [--data DIR] "
                                 "[--cache DIR] [--ref-iters N] [--max-iters N] [--csv FILE]\n", argv[0]);
            return 2;
        }
    }
    // every name of the algorithm table (and auto); a variant is <name>_fixed, <name>_exactcg or pc_pre
    std::map<std::string, pg::Algorithm> by_name;
    for (const std::string& an : algorithms) {
        const std::string base = an.substr(0, an.find('_'));
        const std::optional<pg::Algorithm> a = pg::parse_algorithm(base);
        if (!a) {
            fmt::print(stderr, "unknown algorithm {}: the algorithms are {}\n", an, pg::accepted_algorithm_names());
            return 2;
        }
        by_name[base] = *a;
    }
    std::ofstream csv_out;
    if (!csv.empty()) {
        csv_out.open(csv);
        csv_out << "problem,size,source,algorithm,it_1e-3,it_1e-4,s_1e-3,s_1e-4,default_its,default_s,default_gap,"
                   "default_converged,gap_at_end,searched,ref_pdhg_1e-3,ref_pdhg_1e-4,ref_admm_1e-3,ref_admm_1e-4,"
                   "optimum\n";
    }
    fmt::print("| problem | alg | it 1e-3 | it 1e-4 | ms to 1e-4 | default: its / gap | gap after 200 (f - f*) | "
               "gap after {} | ref PDHG 1e-3 / 1e-4 | ref ADMM 1e-3 / 1e-4 |\n|---|---|---|---|---|---|---|---|---|---|\n",
               max_iters);
    std::fflush(stdout);
    for (const std::string& name : problems) {
        const pg::bench::SuiteProblem s = pg::bench::make_suite_problem(name, W, data);
        fmt::print(stderr, "{} ({}, {}): {}\n", name, W, s.source, s.kind);
        // the two objectives agree at a test point: the reference's operators are ProxGen's
        {
            pg::Image probe = s.x0.empty() ? pg::Image(s.problem.variables()[0].shape) : s.x0.copy();
            if (s.x0.empty())
                for (std::size_t i = 0; i < probe.size(); ++i) probe.data()[i] = 0.3f + 0.2f * float(std::sin(0.37 * double(i)));
            const double fp = pg::rt::objective(s.problem, probe);
            const double fr = ref::objective(s.reference, ref::Vec(probe.data(), probe.data() + probe.size()));
            if (!(std::abs(fp - fr) <= 1e-5 * std::max(1.0, std::abs(fr))))
                fmt::print(stderr, "  WARNING: ProxGen's objective {} and the reference's {} differ at a test point\n", fp, fr);
        }
        Reference r;
        if (ref_iters > 0) {
            r = reference_for(s, W, ref_iters, cache);
        } else {
            // --ref-iters 0 (sizes where the float64 reference is too slow, e.g. the 512² blur):
            // f* is the lowest objective of --optimum-iters iterations of each algorithm asked for
            r.optimum = INFINITY;
            for (const std::string& an : algorithms) {
                pg::Options o;
                o.algorithm = by_name.at(an.substr(0, an.find('_')));
                o.x0 = s.x0;
                o.max_iters = optimum_iters;
                o.eps_abs = o.eps_rel = 0;
                r.optimum = std::min(r.optimum, pg::rt::objective(s.problem, pg::rt::solve(s.problem, o)) + s.shift);
            }
        }
        fmt::print(stderr, "  optimum {:.10g} (PDHG {:.10g}, ADMM {:.10g}; ||K|| = {:.5g}, rho = {:.4g})\n", r.optimum,
                   r.pdhg_final, r.admm_final, r.norm, r.rho);
        for (const std::string& an : algorithms) {
            // variants: <alg>_fixed (no residual balancing), pc_pre (block preconditioning),
            // <alg>_exactcg (a CG x-update solved to float32 precision: what its inexactness costs)
            const std::string base = an.substr(0, an.find('_'));
            const auto it = by_name.find(base);
            if (it == by_name.end()) {
                fmt::print(stderr, "unknown algorithm {}\n", an);
                return 2;
            }
            pg::Options opt;
            opt.algorithm = it->second;
            opt.precondition = an.find("_pre") != std::string::npos;
            opt.adaptive_rho = an.find("_fixed") == std::string::npos;
            if (an.find("_exactcg") != std::string::npos) opt.cg_tol = 1e-7, opt.cg_max_iters = 1000;
            opt.x0 = s.x0;
            opt.max_iters = max_iters;
            pg::benchmark::ToTolerance m;
            double gap200 = NAN, abs200 = NAN, gap_max = NAN;
            try {
                if (opt.algorithm != pg::Algorithm::automatic) pg::rt::plan(s.problem, opt.algorithm);
                auto solve = [&](const pg::Options& o) {
                    pg::Result res = pg::rt::solve(s.problem, o);
                    const double f = pg::rt::objective(s.problem, res);
                    return std::pair{std::move(res), f};
                };
                if (std::getenv("PROXGEN_BENCH_TRACE")) {  // residuals and gap per check, for studying the step rules
                    pg::Options t = opt;
                    t.max_iters = std::atoi(std::getenv("PROXGEN_BENCH_TRACE"));
                    // PROXGEN_BENCH_TRACE_TOLERANCES=1 keeps the default tolerances (HQS's continuation
                    // holds ρ where they are met: another schedule than without them)
                    if (!std::getenv("PROXGEN_BENCH_TRACE_TOLERANCES")) t.eps_abs = t.eps_rel = 0;
                    t.track_objective = true;
                    t.callback = [&](const pg::IterationInfo& i) {
                        if (!std::isnan(i.objective))
                            fmt::print(stderr, "trace {} {} {} {:.3e} {:.3e} {:.3e} {:.3e} {:.3e}\n", name, an, i.iteration,
                                       i.primal_residual, i.eps_primal, i.dual_residual, i.eps_dual, (i.objective + s.shift - r.optimum) / std::abs(r.optimum));
                        return true;
                    };
                    pg::rt::solve(s.problem, t);
                }
                pg::Options warm = opt;
                warm.max_iters = 1;
                pg::rt::solve(s.problem, warm);  // compile outside the measurements
                m = pg::benchmark::to_tolerance(solve, opt, r.optimum, s.shift, max_iters);
                pg::Options o200 = opt;
                o200.max_iters = 200;
                o200.eps_abs = o200.eps_rel = 0;
                const double f200 = solve(o200).second + s.shift;
                gap200 = (f200 - r.optimum) / std::abs(r.optimum);
                abs200 = f200 - r.optimum;
                pg::Options omax = o200;  // the long run: does it reach the float32 floor?
                omax.max_iters = max_iters;
                gap_max = (solve(omax).second + s.shift - r.optimum) / std::abs(r.optimum);
            } catch (const pg::Error& e) {
                fmt::print("| {} | {} | not plannable: {} |\n", name, an, e.what());
                continue;
            }
            const bool ref_pdhg = base == "pc" || base == "ladmm";
            fmt::print("| {} | {} | {} | {}{} | {:.1f} | {}{} / {:.1e} | {:.1e} ({:.3g}) | {:.1e} | {} / {} | {} / {} |\n",
                       name, an, count(m.iterations_1e3), count(m.iterations_1e4), m.searched ? "*" : "",
                       1e3 * m.seconds_1e4, m.default_iterations, m.default_converged ? "" : " (max)", m.default_gap,
                       gap200, abs200, gap_max,
                       count(r.pdhg_1e3),
                       count(r.pdhg_1e4), count(r.admm_1e3), count(r.admm_1e4));
            std::fflush(stdout);
            (void)ref_pdhg;
            if (csv_out)
                csv_out << fmt::format("{},{},{},{},{},{},{:.6g},{:.6g},{},{:.6g},{:.4g},{},{:.4g},{},{},{},{},{},{:.12g}\n",
                                       name, W, s.source, an, m.iterations_1e3, m.iterations_1e4, m.seconds_1e3,
                                       m.seconds_1e4, m.default_iterations, m.default_seconds, m.default_gap,
                                       int(m.default_converged), m.final_gap, int(m.searched), r.pdhg_1e3, r.pdhg_1e4,
                                       r.admm_1e3, r.admm_1e4, r.optimum)
                        << std::flush;
        }
    }
    return 0;
}
