// A problem with no minimum, Σ x over a 16x16 variable: a generated HQS solver reports it as
// Status::unbounded at a stage's end, as pg::solve reports Status::unbounded.
#pragma once

#include <proxgen/proxgen.hpp>

inline auto unbounded_problem() {
    namespace pg = proxgen;
    auto x = pg::variable(16, 16);
    return pg::sum_entries(x);
}
