// TV denoising with a non-negativity constraint, for the outside-project test. The data are named:
// the generated solvers' Data take b and lambda as written here.
#pragma once

#include <proxgen/proxgen.hpp>

inline auto make_tv_problem() {
    namespace pg = proxgen;
    pg::Image b({8, 8});
    auto x = pg::variable(b.width(), b.height());
    return pg::sum_squares(x - pg::input("b", b)) + pg::parameter("lambda", 0.1f) * pg::group_norm1(pg::grad(x)) +
           pg::nonneg(x);
}
