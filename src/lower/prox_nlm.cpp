// The plug-and-play prior patch_nlm: its "prox" is a non-local means denoiser (Buades et al.
// 2005) whose noise level is σ = √(α/ρ), the standard deviation a Gaussian prior's prox would
// assume. Search window 7 × 7, patches 3 × 3, distances averaged over channels; weights
// exp(−max(d² − 2σ², 0)/h²) with h = σ (the 2σ² discounts the noise every patch distance has).
#include "card_lowering.hpp"

namespace proxgen::lower {

using namespace Halide;

namespace {
constexpr int search = 3;  // window radius
constexpr int patch = 1;   // patch radius
}  // namespace

Expr Back::nlm_denoise(const Func& t, const std::vector<Expr>& extents, Expr sigma) const {
    const auto& ax = axes();
    const int r = int(extents.size());
    const Var x = ax[0], y = ax[1], o = ax[3];  // o: the offset within the search window
    Region bounds{{0, extents[0]}, {0, extents[1]}};
    for (int d = 2; d < r; ++d) bounds.push_back(Range());
    Func v = BoundaryConditions::repeat_edge(t, bounds);
    const int side = 2 * search + 1;
    Expr dx = o % side - search, dy = o / side - search;
    auto at_c = [&](Expr xx, Expr yy, Expr c) {
        std::vector<Expr> a{xx, yy};
        if (r == 3) a.push_back(c);
        return v(a);
    };
    // squared difference per pixel and offset, summed over channels
    Func diff("nlm_diff");
    if (r == 3) {
        RDom c(0, extents[2], "channel");
        diff(x, y, o) = sum(pow(at_c(x, y, c) - at_c(x + dx, y + dy, c), 2));
    } else {
        diff(x, y, o) = pow(at_c(x, y, 0) - at_c(x + dx, y + dy, 0), 2);
    }
    st.add(diff);
    Expr channels = r == 3 ? cast<float>(extents[2]) : Expr(1.0f);
    Expr d2 = 0.0f;
    for (int j = -patch; j <= patch; ++j)
        for (int i = -patch; i <= patch; ++i) d2 += diff(x + i, y + j, o);
    d2 /= float((2 * patch + 1) * (2 * patch + 1)) * channels;
    Expr s2 = max(sigma * sigma, 1e-20f);
    Func weight("nlm_weight");
    weight(x, y, o) = exp(-max(d2 - 2.0f * s2, 0.0f) / s2);
    st.add(weight);
    RDom k(0, side * side, "offset");
    Expr ox = k % side - search, oy = k / side - search;
    auto c = r == 3 ? Expr(ax[2]) : Expr(0);
    Expr num = sum(weight(x, y, k) * at_c(x + ox, y + oy, c));
    Expr den = sum(weight(x, y, k));
    // σ = 0: no smoothing at all (the identity), not the limit of the weights
    return select(sigma > 0.0f, num / den, t(args(r)));
}

}  // namespace proxgen::lower
