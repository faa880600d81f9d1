// TV deconvolution with nonnegativity and masked super-resolution, for the outside-project test:
// the problems of examples/node_graph/deblur.txt and tests/frontend/superres.txt written in C++,
// their data named as there (k, b, m, lambda), so that `proxgen solve` on those files is the JIT
// reference of the solvers generated from these. The images here are placeholders of the shapes the
// structure needs; a generated solver takes its data at init.
#pragma once

#include <proxgen/proxgen.hpp>

inline auto make_deconv_problem() {
    namespace pg = proxgen;
    pg::Image k({9, 9}), b({48, 48});
    auto x = pg::variable(b.width(), b.height());
    return pg::sum_squares(pg::conv(pg::input("k", k), x) - pg::input("b", b)) +
           pg::parameter("lambda", 0.002f) * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
}

inline auto make_superres_problem() {
    namespace pg = proxgen;
    pg::Image m({24, 24}), k({9, 9}), b({24, 24});
    auto x = pg::variable(2 * b.width(), 2 * b.height());
    return pg::sum_squares(pg::mul_elemwise(pg::input("m", m), pg::subsample(pg::conv(pg::input("k", k), x), 2, 2)) -
                           pg::input("b", b)) +
           pg::parameter("lambda", 0.01f) * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
}
