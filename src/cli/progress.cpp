#include "progress.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

namespace proxgen::cli {

namespace {
std::string seconds(double s) {
    if (s < 60) return fmt::format("{:.1f} s", s);
    return fmt::format("{}m{:02d}s", int(s / 60), int(std::fmod(s, 60.0)));
}
}  // namespace

Progress::Progress(std::FILE* out, bool terminal, int max_iters, bool objective)
    : out_(out), terminal_(terminal), objective_(objective), max_iters_(max_iters) {}

bool Progress::operator()(const IterationInfo& info) {
    const Clock::time_point now = Clock::now();
    if (!started_) {  // the first iteration ends after the JIT compilation: time from here
        started_ = true;
        start_ = now;
        last_draw_ = now - std::chrono::seconds(1);
    }
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const bool checked = !std::isnan(info.primal_residual);
    if (checked) last_check_ = info;
    if (!terminal_) {
        if (checked) row(info, elapsed);
        return true;
    }
    // at most ten redraws a second, and every residual check
    if (checked || now - last_draw_ > std::chrono::milliseconds(100) || info.iteration == max_iters_) {
        last_draw_ = now;
        line(info, elapsed);
    }
    return true;
}

void Progress::line(const IterationInfo& info, double elapsed) {
    std::string s = fmt::format("iter {}/{}", info.iteration, max_iters_);
    if (last_check_.iteration > 0) {
        s += fmt::format("  primal {:.2e} (tol {:.1e})  dual {:.2e} (tol {:.1e})", last_check_.primal_residual,
                         last_check_.eps_primal, last_check_.dual_residual, last_check_.eps_dual);
        if (objective_ && !std::isnan(last_check_.objective)) s += fmt::format("  objective {:.6g}", last_check_.objective);
    }
    s += "  " + seconds(elapsed);
    if (info.iteration > 1 && info.iteration < max_iters_) {
        // iterations so far timed from the end of the first; an upper bound: it may converge sooner
        const double per_iteration = elapsed / double(info.iteration - 1);
        s += "  ETA <= " + seconds(per_iteration * double(max_iters_ - info.iteration));
    }
    fmt::print(out_, "\r{}\x1b[K", s);
    std::fflush(out_);
}

void Progress::row(const IterationInfo& info, double elapsed) {
    if (!header_) {
        header_ = true;
        fmt::print(out_, "{:>6} {:>11} {:>11} {:>11} {:>11}{} {:>9}\n", "iter", "r_primal", "eps_primal", "r_dual",
                   "eps_dual", objective_ ? fmt::format(" {:>15}", "objective") : "", "time[s]");
    }
    fmt::print(out_, "{:>6} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e}{} {:>9.3f}\n", info.iteration,
               info.primal_residual, info.eps_primal, info.dual_residual, info.eps_dual,
               objective_ ? fmt::format(" {:>15.8g}", info.objective) : "", elapsed);
}

void Progress::finish() {
    if (terminal_ && started_) fmt::print(out_, "\n");
    started_ = false;
    std::fflush(out_);
}

}  // namespace proxgen::cli
