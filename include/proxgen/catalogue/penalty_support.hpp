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

/// The objective's summand of an indicator of t ≥ 0 where `keep` holds (an Expr at t's pure axes):
/// +inf where a kept value is below −1e-4 · max(1, max |t|) (satisfied up to a relative 1e-4), 0
/// elsewhere.
inline auto nonneg_summand(auto& h, const auto& t, const auto& extents, auto keep) {
    const auto v = h.to_double(t(h.args(int(extents.size()))));
    return h.select(keep && v < h.f64(-1e-4) * h.magnitude(t, extents), h.infinity(), h.f64(0));
}

}  // namespace proxgen::catalogue::penalties
