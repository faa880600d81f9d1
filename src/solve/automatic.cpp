// Algorithm::automatic: chooses the algorithm (and Pock–Chambolle's preconditioning) for a problem
// by short probes of the candidates; the chosen candidate's run goes on from where its probe
// paused, so that the answer is that candidate's run alone, iterate for iterate.
//
// Each probed candidate's run starts on a thread of its own and pauses after kProbe iterations
// (residuals checked every 10): it has the whole run's options, so the chosen one simply goes on
// (the others are stopped). A run that ends within its probe — converged, or at max_iters — is
// the answer as it is. Continuing from a copy of the probe's state instead (x, duals, steps)
// restarted what a warm start does not carry — the balancing's range, its safeguard, x̄ — and cost
// the chosen run 20–30 % more iterations than the candidate alone (64² deconvolution: 310 against
// 240).
// A probe's progress is the decay of its residuals between its first check and its last, each
// relative to its own first value (the residuals of different algorithms have different units;
// their decay rates do not), the two ratios' geometric mean extrapolated linearly in log scale to a
// further 1e-3: an estimated iteration count. Times the algorithm's cost per iteration relative to
// Pock–Chambolle's (a constant of its row, not a timing), that is the estimated cost; the smallest
// wins, the earlier candidate on a tie.
// Iteration counts are deterministic for a given problem, data and machine, so the choice is too.
// The candidates are probed cheapest first, and a probe runs only while the probes beyond the first
// (which the chosen run continues) cost at most 1/20 of the best estimate so far (the estimates
// overshoot the iterations to a 1e-4 objective gap two- to fivefold): a problem that
// Pock–Chambolle finishes in a few hundred iterations is not probed four times over.
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "../jit/kernel.hpp"
#include "algorithm_rows.hpp"
#include "engine.hpp"
#include "proxgen/algorithms/loop.hpp"
#include "proxgen/error.hpp"
#include "proxgen/typed/solve.hpp"

namespace proxgen::detail {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kProbe = 40;
/// The probes beyond the first may cost this fraction of the best estimated run at most.
constexpr double kProbeShare = 0.05;

struct Candidate {
    Algorithm algorithm;
    bool precondition;
    std::string label;
};

/// One candidate's whole run on a thread of its own, which pauses after the probe's last
/// iteration until it is told to go on (it was chosen) or to stop. The run calls the user's
/// callback only once it goes on (iterations after the probe), from its own thread.
class CandidateRun {
public:
    CandidateRun(ir::Problem plan, Options o, int probe)
        : plan_(std::move(plan)), user_callback_(std::move(o.callback)), probe_(probe) {
        o.callback = [this](const IterationInfo& info) { return on_iteration(info); };
        options_ = std::move(o);
        thread_ = std::thread([this, serial = jit::SerialKernels::active()] { body(serial); });
    }
    CandidateRun(const CandidateRun&) = delete;
    CandidateRun& operator=(const CandidateRun&) = delete;
    ~CandidateRun() {
        decide(Verdict::stop);
        thread_.join();
    }

    /// Blocks until the run has paused after its probe or has ended.
    void wait_for_probe() {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return phase_ != Phase::probing; });
    }
    /// After wait_for_probe: whether the run has ended (converged, max_iters, failed), and then
    /// its result or error.
    bool ended() const { return phase_ == Phase::ended; }
    const std::exception_ptr& error() const { return error_; }
    bool converged() const { return ended() && !error_ && result_.converged; }
    /// The residual checks of the probe (the run's first, up to the pause).
    const std::vector<IterationInfo>& checks() const { return checks_; }
    int probe_iterations() const { return ended() ? result_.iterations : probe_; }
    double probe_seconds() const { return probe_seconds_; }
    const ir::Problem& plan() const { return plan_; }

    /// Lets the run go on to its end; its result (rethrows what it threw), whose solve_seconds
    /// leave out the pause.
    Result finish() {
        decide(Verdict::go_on);
        {
            std::unique_lock lock(m_);
            cv_.wait(lock, [&] { return phase_ == Phase::ended; });
        }
        if (error_) std::rethrow_exception(error_);
        result_.solve_seconds -= paused_seconds_;
        return std::move(result_);
    }

private:
    enum class Phase { probing, paused, ended };
    enum class Verdict { none, go_on, stop };

    void decide(Verdict v) {
        std::lock_guard lock(m_);
        if (verdict_ == Verdict::none) verdict_ = v;
        cv_.notify_all();
    }

    void body(bool serial) {
        std::optional<jit::SerialKernels> serial_kernels;
        if (serial) serial_kernels.emplace();  // a batch member's run stays on its worker's core
        const NormsAtTheStart tight_from_the_start;  // (the probes' rates decide: no step change by timing)
        start_ = Clock::now();
        try {
            result_ = solve_ir(plan_, options_, nullptr);
        } catch (...) {
            error_ = std::current_exception();
        }
        std::lock_guard lock(m_);
        if (phase_ == Phase::probing) probe_seconds_ = std::chrono::duration<double>(Clock::now() - start_).count();
        phase_ = Phase::ended;
        cv_.notify_all();
    }

    /// On the run's thread, after every iteration.
    bool on_iteration(const IterationInfo& info) {
        if (info.iteration > probe_) {  // went on: chosen, or past a probe that did not pause
            Verdict v;
            {
                std::lock_guard lock(m_);
                v = verdict_;
            }
            if (v == Verdict::stop) return false;
            return v == Verdict::go_on && user_callback_ ? user_callback_(info) : true;
        }
        if (!std::isnan(info.primal_residual)) checks_.push_back(info);
        if (info.iteration < probe_) return true;
        // a run that ends here (its tolerances met, or max_iters) ends: it is an answer as it is
        const algorithms::Residuals r{info.primal_residual, info.eps_primal, info.dual_residual, info.eps_dual};
        if (r.met(options_.eps_abs, options_.eps_rel) || info.iteration >= options_.max_iters) return true;
        std::unique_lock lock(m_);
        probe_seconds_ = std::chrono::duration<double>(Clock::now() - start_).count();
        phase_ = Phase::paused;
        cv_.notify_all();
        const Clock::time_point paused = Clock::now();
        cv_.wait(lock, [&] { return verdict_ != Verdict::none; });
        paused_seconds_ = std::chrono::duration<double>(Clock::now() - paused).count();
        return verdict_ == Verdict::go_on;
    }

    const ir::Problem plan_;
    Options options_;
    std::function<bool(const IterationInfo&)> user_callback_;
    const int probe_;
    std::mutex m_;
    std::condition_variable cv_;
    Phase phase_ = Phase::probing;
    Verdict verdict_ = Verdict::none;
    std::vector<IterationInfo> checks_;
    Result result_;
    std::exception_ptr error_;
    Clock::time_point start_;
    double probe_seconds_ = 0, paused_seconds_ = 0;
    std::thread thread_;
};

/// log-rate per iteration of the geometric mean of the primal and dual residuals, each relative to
/// its first checked value. Residual balancing trades one residual for the other: on the suite's
/// 64² deconvolution Pock–Chambolle's primal residual fell 13× in its probe while its dual one rose
/// 7 %, and the larger of the two ratios (the rule before) called that no progress and chose ADMM,
/// at 7× Pock–Chambolle's time to 1e-4. (A residual that reached 0: the other's ratio alone.)
double decay_per_iteration(const std::vector<IterationInfo>& checks) {
    if (checks.size() < 2) return 0;
    const IterationInfo& a = checks.front();
    const IterationInfo& b = checks.back();
    auto ratio = [](double now, double first) { return first > 0 ? now / first : (now > 0 ? 1.0 : 0.0); };
    const double p = ratio(b.primal_residual, a.primal_residual), d = ratio(b.dual_residual, a.dual_residual);
    const double m = p > 0 && d > 0 ? std::sqrt(p * d) : std::max(p, d);
    if (!(m > 0) || !std::isfinite(m)) return 0;
    return std::log(m) / double(b.iteration - a.iteration);
}

/// The candidates' probes and the choice among them. `run` is the chosen candidate's run, paused
/// after its probe or ended; null where max_iters = 0 (then `start` is the answer).
struct AutomaticChoice {
    std::string label, why;
    std::shared_ptr<CandidateRun> run;
    std::optional<ir::Problem> plan;  ///< where no run was started
    Options options;                  ///< the chosen run's (its algorithm and preconditioning)
    Result start;
    double compile_seconds = 0;  ///< the candidates' compilations (a 1-iteration solve each)
    double probe_seconds = 0;    ///< every probe's run time, the chosen one's included
    int probe_iterations = 0;
    const ir::Problem& chosen_plan() const { return run ? run->plan() : *plan; }
};

AutomaticChoice choose_automatic(const std::function<std::optional<ir::Problem>(Algorithm)>& plan_for, const Options& opt,
                                 const Result* warm) {
    const std::vector<Candidate> candidates{{Algorithm::pock_chambolle, false, "pc"},
                                            {Algorithm::pock_chambolle, true, "pc (preconditioned)"},
                                            {Algorithm::ladmm, false, "ladmm"},
                                            {Algorithm::admm, false, "admm"}};
    // max_iters = 0 runs nothing: the first plannable candidate returns the start
    const int probe = std::min(kProbe, std::max(0, opt.max_iters));
    Options p = opt;
    // at least two checks in a short probe, so that its residuals show a rate (the default
    // cadence, 10, stays: then the chosen run is its candidate's run alone)
    p.check_every = std::max(1, std::min(opt.check_every, probe / 4));
    p.verbose = false;
    if (p.x0.empty() && p.x0_by_name.empty() && warm && !warm->x.empty()) p.x0 = warm->x;  // every probe starts where the user's warm start is
    AutomaticChoice ch;
    ch.why = probe == 0 ? std::string("automatic: max_iters = 0, so no probe:")
                        : "automatic: probed " + std::to_string(probe) +
                              " iterations of the candidates, cheapest first, while the probes pay:";
    double best = std::numeric_limits<double>::infinity();
    double extra_probes = 0;  // the probes' cost beyond the first, in Pock–Chambolle iterations
    bool chosen_any = false;
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
        if (chosen_any && p.stop && p.stop->load(std::memory_order_relaxed)) {
            ch.why += fmt::format(" {} not probed (stopped: Options::stop was set);", c.label);
            continue;
        }
        if (probe == 0) {
            ch.label = c.label;
            ch.plan = std::move(planned);
            ch.start.x = initial_x(*ch.plan, opt, warm);
            ch.start.algorithm = c.algorithm;
            ch.why += fmt::format(" chose {}, the first plannable candidate", c.label);
            return ch;
        }
        const double cost = algorithm_row(c.algorithm).iteration_cost;
        if (chosen_any && extra_probes + probe * cost > kProbeShare * best) {
            ch.why += fmt::format(" {} not probed (its probe costs as much as {:.0f} Pock-Chambolle iterations, more "
                                  "than {:.0f}% of the best estimate's {:.0f});",
                                  c.label, probe * cost, 100 * kProbeShare, best);
            continue;
        }
        if (chosen_any) extra_probes += probe * cost;
        Options o = p;
        o.algorithm = c.algorithm;
        o.precondition = c.precondition;
        try {
            Options compile = o;
            compile.max_iters = 1;
            compile.callback = nullptr;
            ch.compile_seconds += solve_ir(*planned, compile, nullptr).compile_seconds;  // outside the timing
        } catch (const Error& e) {
            ch.why += fmt::format(" {} failed ({});", c.label, e.what());
            continue;
        }
        auto run = std::make_shared<CandidateRun>(std::move(*planned), o, probe);
        run->wait_for_probe();
        if (run->error()) {
            try {
                std::rethrow_exception(run->error());
            } catch (const Error& e) {
                ch.why += fmt::format(" {} failed ({});", c.label, e.what());
                continue;
            }
        }
        ch.probe_iterations += run->probe_iterations();
        ch.probe_seconds += run->probe_seconds();
        const double per_it = run->probe_seconds() / std::max(1, run->probe_iterations());
        const double rate = decay_per_iteration(run->checks());
        const double iters = rate < 0 ? std::log(1e-3) / rate : std::numeric_limits<double>::infinity();
        const double estimate = iters * cost;
        ch.why += fmt::format(" {}: residuals x{:.3g} per 10 iterations, ~{:.0f} iterations for a further 1e-3 at {:.2g}x "
                              "Pock-Chambolle's cost per iteration (measured here: {:.3g} ms);",
                              c.label, std::exp(10 * rate), iters, cost, 1e3 * per_it);
        const bool converged = run->converged();
        if (estimate < best || !chosen_any || converged) {
            best = estimate;
            ch.label = c.label;
            ch.options = o;
            ch.run = std::move(run);  // the run chosen before is stopped here
            chosen_any = true;
        }
        if (converged) {  // within the probe: that run is the answer
            ch.why += fmt::format(" {} converged within its probe;", c.label);
            break;
        }
    }
    if (!chosen_any) fail("automatic: no algorithm could be planned or probed:{}", ch.why.substr(ch.why.find(':') + 1));
    if (std::isinf(best))
        ch.why += " no candidate's residuals fell within the probe, so its estimates say nothing:";
    ch.why += " chose " + ch.label;
    return ch;
}

}  // namespace

Result solve_automatic(const std::function<std::optional<ir::Problem>(Algorithm)>& plan_for, const Options& opt,
                       const Result* warm) {
    AutomaticChoice ch = choose_automatic(plan_for, opt, warm);
    Result res;
    // Timed as one algorithm's solve is (without planning and compilation): the chosen run, and
    // the other candidates' probes.
    double other_probes = ch.probe_seconds;
    if (!ch.run) {
        res = std::move(ch.start);
    } else if (opt.verbose) {
        // the plan and the iteration table from the first iteration: the chosen candidate's run
        // again, alone (the same iterates; its probe's time counted twice)
        const ir::Problem plan = ch.run->plan();
        ch.run.reset();
        Options o = ch.options;
        o.verbose = true;
        const NormsAtTheStart tight_from_the_start;  // (its candidate's run again: the same steps)
        res = solve_ir(plan, o, nullptr);
    } else {
        other_probes -= ch.run->probe_seconds();
        res = ch.run->finish();
    }
    res.compile_seconds += ch.compile_seconds;
    res.solve_seconds += other_probes;
    res.choice = ch.why;
    res.probe_iterations = ch.probe_iterations;
    return res;
}

std::string describe_automatic(const std::function<std::optional<ir::Problem>(Algorithm)>& plan_for) {
    const AutomaticChoice ch = choose_automatic(plan_for, Options{}, nullptr);
    return ch.why + "\n" + describe_ir(ch.chosen_plan());
}

}  // namespace proxgen::detail
