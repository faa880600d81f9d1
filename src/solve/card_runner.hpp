// Internal: what the JIT's runners of the algorithm cards (proxgen/algorithms/) share: the card's
// options from a solve's, and a check's verdict from the Monitor.
#pragma once

#include <algorithm>

#include "engine.hpp"
#include "proxgen/algorithms/loop.hpp"

namespace proxgen::detail {

/// The largest magnitude of the problem's data in the split terms' space (algorithms::term_data_peak
/// over the planned terms with an offset; an arg_weight that weighs groups is left out).
inline double data_peak(const ir::Problem& p) {
    double peak = 0;
    for (const auto* terms : {&p.psi, &p.omega})
        for (const ir::Term& t : *terms)
            if (!t.offset.empty()) {
                const bool elementwise = t.arg_weight.size() == t.offset.size();
                peak = std::max(peak, algorithms::term_data_peak(t.offset.data(), t.offset.size(),
                                                                 elementwise ? t.arg_weight.data() : nullptr, t.beta));
            }
    return peak;
}

/// The loop options of a solve: its cadence (a first check when nothing is split: the x-update
/// alone may solve the problem), tolerances and their unit.
inline algorithms::LoopOptions loop_options(const ir::Problem& p, const Options& opt) {
    algorithms::LoopOptions o;
    o.cadence = {opt.check_every, opt.max_iters, p.psi.empty()};
    o.eps_abs = opt.eps_abs;
    o.eps_rel = opt.eps_rel;
    o.data_unit = algorithms::data_unit(data_peak(p));
    return o;
}

/// A check recorded by the Monitor (history, verbose table, divergence as an exception naming
/// `other_step` or the x-update, constraints met before converged, infeasibility): the card's
/// verdict.
inline algorithms::Verdict monitor_verdict(Monitor& mon, int it, const algorithms::Residuals& r, const Image& x,
                                           const char* other_step) {
    if (mon.record(it, r, x, other_step)) return algorithms::Verdict::converged;
    return mon.likely_infeasible() ? algorithms::Verdict::stop : algorithms::Verdict::go_on;
}

/// HQS's stage_ended (proxgen/algorithms/hqs.hpp): false where x drifts to −∞ — the penalty's
/// growth shrinks every step of such a drift (so the residuals never stall as
/// Monitor::likely_infeasible waits for), the ray of this stage's steps tells; else the next stage
/// starts at x.
inline bool hqs_stage_ended(Monitor& mon, const Image& x, Image& x_stage, int it) {
    Image step(x.sizes());
    for (std::size_t i = 0; i < x.size(); ++i) step.data()[i] = x.data()[i] - x_stage.data()[i];
    if (mon.unbounded_along(x, step, it)) return false;
    std::copy(x.data(), x.data() + x.size(), x_stage.data());
    return true;
}

}  // namespace proxgen::detail
