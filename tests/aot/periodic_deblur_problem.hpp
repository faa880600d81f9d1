// TV deconvolution with periodic differences and nonnegativity: every operator is diagonal in the
// DFT basis, so ADMM's x-update is exact by FFT (with the default Neumann grad the convolution and
// the differences share no basis, and the x-update is CG). Its data are named (pg::input,
// pg::parameter): a generated solver's Data takes k, b and lambda.
#pragma once

#include <proxgen/proxgen.hpp>

inline auto periodic_deblur_problem(const proxgen::Image& k = proxgen::Image({9, 9}),
                                    const proxgen::Image& b = proxgen::Image({16, 16}), float lambda = 0.002f) {
    namespace pg = proxgen;
    auto x = pg::variable(b.width(), b.height());
    return pg::sum_squares(pg::conv(pg::input("k", k), x) - pg::input("b", b)) +
           pg::parameter("lambda", lambda) * pg::group_norm1(pg::grad(x, pg::periodic)) + pg::nonneg(x);
}
