// What several penalty cards share: the term constructors behind their by-name entries and the
// weighted_* variants (weight · f(w ⊙ e)).
#pragma once

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::penalties {

/// weighted_<name>(w, e)'s weight: non-empty, of weight_shape (e's shape, or e's without its group
/// axis for penalties that weigh groups).
inline void check_weight(const Image& w, const std::vector<int>& weight_shape, std::string_view op) {
    check::image(w, op, "weight");
    check::same_shape(op, "the weight", w.sizes(), "the expected weight shape", weight_shape);
}
inline ir::Term weighted(ir::Term t, const ImageArg& w, const std::vector<int>& weight_shape, std::string_view op) {
    check_weight(w.image, weight_shape, op);
    t.arg_weight = w.image;
    t.arg_weight_name = w.name;
    return t;
}

/// f at v (float64) for an indicator of v ≥ 0 where `keep` holds: 0 when satisfied up to a relative
/// 1e-4, +inf otherwise.
template <class Keep>
double nonneg_value(const Image& v, Keep keep) {
    const float* d = v.data();
    double worst = 0, scale = 1;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (keep(i)) worst = std::min(worst, double(d[i]));
        scale = std::max(scale, std::abs(double(d[i])));
    }
    return worst >= -1e-4 * scale ? 0.0 : INFINITY;
}

}  // namespace proxgen::catalogue::penalties
