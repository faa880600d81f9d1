// The frame of the baselines' check programs (no test framework): failed checks are counted and
// named, main returns 0 only when none failed and nothing threw.
#pragma once

#include <cstdio>
#include <exception>
#include <string>

namespace proxgen::bench::checks {

inline int& failures() {
    static int n = 0;
    return n;
}

inline void check(bool ok, const std::string& what) {
    if (!ok) {
        ++failures();
        std::printf("  FAIL: %s\n", what.c_str());
    }
}

/// Runs `body`, prints the summary, returns main's exit status.
template <typename Body>
int run(Body&& body) {
    try {
        body();
    } catch (const std::exception& e) {
        std::printf("exception: %s\n", e.what());
        return 1;
    }
    if (failures() != 0) {
        std::printf("%d check(s) FAILED\n", failures());
        return 1;
    }
    std::printf("all checks passed\n");
    return 0;
}

}  // namespace proxgen::bench::checks
