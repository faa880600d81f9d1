// Algorithm::automatic: chooses the algorithm (and Pock–Chambolle's preconditioning) for a problem
// by short probes of the candidates, then continues the chosen run from its probe.
//
// Each probed candidate runs kProbe iterations from the same start (residuals checked every 10),
// stopping at the user's tolerances: a probe that converges is the answer (the chosen run never
// goes on past the check where it would have stopped alone).
// Its progress is the decay of its residuals between the first check and the last, each relative
// to its own first value (the residuals of different algorithms have different units; their decay
// rates do not), the two ratios' geometric mean extrapolated linearly in log scale to a further
// 1e-3: an estimated iteration count. Times the algorithm's cost per iteration relative to
// Pock–Chambolle's (a constant of its row, not a timing), that is the estimated cost; the smallest
// wins, the earlier candidate on a tie.
// Iteration counts are deterministic for a given problem, data and machine, so the choice is too.
// The candidates are probed cheapest first, and a probe runs only while the probes beyond the first
// (which the chosen run continues) cost at most 1/20 of the best estimate so far (the estimates
// overshoot the iterations to a 1e-4 objective gap two- to fivefold): a problem that
// Pock–Chambolle finishes in a few hundred iterations is not probed four times over.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "algorithm_rows.hpp"
#include "engine.hpp"
#include "proxgen/error.hpp"
#include "proxgen/typed/solve.hpp"

namespace proxgen::detail {

namespace {

constexpr int kProbe = 40;
/// The probes beyond the first may cost this fraction of the best estimated run at most.
constexpr double kProbeShare = 0.05;

struct Candidate {
    Algorithm algorithm;
    bool precondition;
    std::string label;
};

/// log-rate per iteration of the geometric mean of the primal and dual residuals, each relative to
/// its first checked value. Residual balancing trades one residual for the other: on the suite's
/// 64² deconvolution Pock–Chambolle's primal residual fell 13× in its probe while its dual one rose
/// 7 %, and the larger of the two ratios (the rule before) called that no progress and chose ADMM,
/// at 7× Pock–Chambolle's time to 1e-4. (A residual that reached 0: the other's ratio alone.)
double decay_per_iteration(const Result& r) {
    if (r.history.size() < 2) return 0;
    const HistoryEntry& a = r.history.front();
    const HistoryEntry& b = r.history.back();
    auto ratio = [](double now, double first) { return first > 0 ? now / first : (now > 0 ? 1.0 : 0.0); };
    const double p = ratio(b.primal_residual, a.primal_residual), d = ratio(b.dual_residual, a.dual_residual);
    const double m = p > 0 && d > 0 ? std::sqrt(p * d) : std::max(p, d);
    if (!(m > 0) || !std::isfinite(m)) return 0;
    return std::log(m) / double(b.iteration - a.iteration);
}

}  // namespace

AutomaticChoice choose_automatic(const std::function<std::optional<ir::Problem>(Algorithm)>& plan_for, const Options& opt,
                                 const Result* warm) {
    const std::vector<Candidate> candidates{{Algorithm::pock_chambolle, false, "pc"},
                                            {Algorithm::pock_chambolle, true, "pc (preconditioned)"},
                                            {Algorithm::ladmm, false, "ladmm"},
                                            {Algorithm::admm, false, "admm"}};
    // max_iters = 0 runs nothing: the first plannable candidate returns the start
    const int probe = std::min(kProbe, std::max(0, opt.max_iters));
    Options p = opt;
    p.max_iters = probe;
    // at least two checks in a short probe, so that its residuals show a rate
    p.check_every = std::max(1, std::min(10, probe / 4));
    p.callback = nullptr;
    p.verbose = false;
    p.track_objective = false;
    if (p.x0.empty() && p.x0_by_name.empty() && warm && !warm->x.empty()) p.x0 = warm->x;  // every probe starts where the user's warm start is
    AutomaticChoice ch;
    ch.why = probe == 0 ? std::string("automatic: max_iters = 0, so no probe:")
                        : "automatic: probed " + std::to_string(probe) +
                              " iterations of the candidates, cheapest first, while the probes pay:";
    double best = std::numeric_limits<double>::infinity();
    double extra_probes = 0;  // the probes' cost beyond the first, in Pock–Chambolle iterations
    for (const Candidate& c : candidates) {
        std::optional<ir::Problem> planned;
        try {
            planned = plan_for(c.algorithm);
        } catch (const Error& e) {
            ch.why += fmt::format(" {} not plannable ({});", c.label, e.what());
            continue;
        }
        if (!planned) {
            ch.why += fmt::format(" {} not plannable (its x-update would be singular);", c.label);
            continue;
        }
        if (c.precondition && planned->psi.size() < 2) continue;  // the same run as plain pc
        if (probe == 0) {
            ch.algorithm = c.algorithm;
            ch.label = c.label;
            ch.plan = std::move(planned);
            ch.probe.x = initial_x(*ch.plan, opt, warm);
            ch.probe.algorithm = c.algorithm;
            ch.why += fmt::format(" chose {}, the first plannable candidate", c.label);
            return ch;
        }
        const double cost = algorithm_row(c.algorithm).iteration_cost;
        if (ch.plan && extra_probes + probe * cost > kProbeShare * best) {
            ch.why += fmt::format(" {} not probed (its probe costs as much as {:.0f} Pock-Chambolle iterations, more "
                                  "than {:.0f}% of the best estimate's {:.0f});",
                                  c.label, probe * cost, 100 * kProbeShare, best);
            continue;
        }
        if (ch.plan) extra_probes += probe * cost;
        Options o = p;
        o.algorithm = c.algorithm;
        o.precondition = c.precondition;
        Result r;
        try {
            Options compile = o;
            compile.max_iters = 1;
            ch.compile_seconds += solve_ir(*planned, compile, nullptr).compile_seconds;  // outside the timing
            r = solve_ir(*planned, o, nullptr);
        } catch (const Error& e) {
            ch.why += fmt::format(" {} failed ({});", c.label, e.what());
            continue;
        }
        ch.probe_seconds += r.solve_seconds;
        ch.probe_iterations += r.iterations;
        const double per_it = r.solve_seconds / std::max(1, r.iterations);
        const double rate = decay_per_iteration(r);
        const double iters = rate < 0 ? std::log(1e-3) / rate : std::numeric_limits<double>::infinity();
        const double estimate = iters * cost;
        ch.why += fmt::format(" {}: residuals x{:.3g} per 10 iterations, ~{:.0f} iterations for a further 1e-3 at {:.2g}x "
                              "Pock-Chambolle's cost per iteration (measured here: {:.3g} ms);",
                              c.label, std::exp(10 * rate), iters, cost, 1e3 * per_it);
        const bool converged = r.converged;
        if (estimate < best || !ch.plan || converged) {
            best = estimate;
            ch.algorithm = c.algorithm;
            ch.precondition = c.precondition;
            ch.label = c.label;
            ch.plan = std::move(planned);
            ch.probe = std::move(r);
        }
        if (converged) {  // within the probe: that run is the answer
            ch.why += fmt::format(" {} converged within its probe;", c.label);
            break;
        }
    }
    if (!ch.plan) fail("automatic: no algorithm could be planned or probed:{}", ch.why.substr(ch.why.find(':') + 1));
    if (std::isinf(best))
        ch.why += " no candidate's residuals fell within the probe, so its estimates say nothing:";
    ch.why += " chose " + ch.label;
    return ch;
}

Result solve_automatic(const std::function<std::optional<ir::Problem>(Algorithm)>& plan_for, const Options& opt,
                       const Result* warm) {
    AutomaticChoice ch = choose_automatic(plan_for, opt, warm);
    Options o = opt;
    o.algorithm = ch.algorithm;
    o.precondition = ch.precondition;
    o.max_iters = std::max(0, opt.max_iters - ch.probe.iterations);
    o.x0 = Image();  // continue the chosen run from its probe: its x, duals and steps
    o.x0_by_name.clear();
    Result res = ch.probe;
    if (o.max_iters > 0 && !ch.probe.converged) {
        const IterationNumbering after_probe(ch.probe.iterations);
        res = solve_ir(*ch.plan, o, &ch.probe);
        res.iterations += ch.probe.iterations;
    }
    res.solve_seconds += ch.probe_seconds;
    res.compile_seconds += ch.compile_seconds;
    res.choice = ch.why;
    res.probe_iterations = ch.probe_iterations;
    return res;
}

std::string describe_automatic(const std::function<std::optional<ir::Problem>(Algorithm)>& plan_for) {
    const AutomaticChoice ch = choose_automatic(plan_for, Options{}, nullptr);
    return ch.why + "\n" + describe_ir(*ch.plan);
}

}  // namespace proxgen::detail
