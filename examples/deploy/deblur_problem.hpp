// The problem of the deployment example, written once: deblurring with isotropic TV and a
// non-negativity constraint,
//     sum_squares(conv(k, x) - b) + lambda * group_norm1(grad(x)) + nonneg(x).
// The generator calls deblur_problem() with placeholder data (only the structure is compiled;
// sizes, k, b and lambda are run-time inputs of the generated solver); the JIT reference
// (tests/aot/jit_reference.cpp) calls it with the real data. The data are named (pg::input,
// pg::parameter): the generated solver's Data has the fields k, b and lambda, which take them as
// written here (its init makes the offset −b itself).
#pragma once

#include <proxgen/proxgen.hpp>

inline auto deblur_problem(const proxgen::Image& k = proxgen::Image({9, 9}),
                           const proxgen::Image& b = proxgen::Image({16, 16}), float lambda = 0.002f) {
    namespace pg = proxgen;
    auto x = pg::variable(b.width(), b.height());
    return pg::sum_squares(pg::conv(pg::input("k", k), x) - pg::input("b", b)) +
           pg::parameter("lambda", lambda) * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
}
