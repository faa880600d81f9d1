// A generated solver with a card that has no node type of its own: denoising under a wavelet
// sparsity prior, sum_squares(x - b) + lambda * norm1(haar(x, 3)).
#pragma once

#include <proxgen/proxgen.hpp>

inline auto wavelet_problem(const proxgen::Image& b = proxgen::Image({16, 16}), float lambda = 0.05f) {
    namespace pg = proxgen;
    auto x = pg::variable(b.width(), b.height());
    return pg::sum_squares(x - b) + lambda * pg::norm1(pg::haar(x, 3));
}
