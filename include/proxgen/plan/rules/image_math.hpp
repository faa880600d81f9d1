// Elementwise image arithmetic the rewrite rules need when they fold data into prox parameters.
#pragma once

#include "proxgen/error.hpp"
#include "proxgen/image.hpp"

namespace proxgen::plan::rules {

/// acc + s · (w ⊙ b) as a new image (acc and w may be empty: 0 and 1).
inline Image axpy(const Image& acc, float s, const Image& w, const Image& b) {
    Image out(b.sizes());
    for (std::size_t i = 0; i < b.size(); ++i)
        out.data()[i] = (acc.empty() ? 0.0f : acc.data()[i]) + s * (w.empty() ? 1.0f : w.data()[i]) * b.data()[i];
    return out;
}

/// a ⊙ b as a new image (a may be empty: 1).
inline Image product(const Image& a, const Image& b) {
    Image out(b.sizes());
    for (std::size_t i = 0; i < b.size(); ++i) out.data()[i] = (a.empty() ? 1.0f : a.data()[i]) * b.data()[i];
    return out;
}

}  // namespace proxgen::plan::rules
