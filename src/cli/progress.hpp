// The solve's progress on stderr, through Options::callback: on a terminal one line rewritten in
// place (iteration, residuals against their tolerances, objective, elapsed time, an ETA bound);
// otherwise (a log file, CI) a plain table with one row per residual check.
#pragma once

#include <chrono>
#include <cstdio>

#include <proxgen/solve/options.hpp>

namespace proxgen::cli {

class Progress {
public:
    /// `terminal`: rewrite one line; otherwise print table rows. `objective`: the objective column.
    Progress(std::FILE* out, bool terminal, int max_iters, bool objective);
    ~Progress() { finish(); }
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    /// The callback: shows info, returns true (never stops the solve).
    bool operator()(const IterationInfo& info);
    /// Ends the line (terminal mode); once.
    void finish();

private:
    using Clock = std::chrono::steady_clock;
    void line(const IterationInfo& info, double elapsed);
    void row(const IterationInfo& info, double elapsed);

    std::FILE* out_;
    bool terminal_, objective_;
    int max_iters_;
    bool started_ = false, header_ = false;
    Clock::time_point start_, last_draw_;
    IterationInfo last_check_;
};

}  // namespace proxgen::cli
