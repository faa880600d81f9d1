// The half-quadratic splitting card: ADMM's steps without the dual (u = 0), the penalty ρ growing
// in stages:
//   x⁺ = argmin Ω(x) + ρ/2 Σ‖K_i x − z_i‖²,   z⁺ = prox_{Ψ/ρ}(K x̂⁺)
// with x̂ = x⁺ + m (x⁺ − x) (momentum m = (k−1)/(k+2), only while ρ grows), and a continuation
// that knows when the penalized problem's O(1/ρ) bias is within the tolerance. Written once over a
// runner of the steps.
//
// A Runner provides:
//   bool run_step(double rho, double momentum, bool measure)
//        the x-update at ρ, then the z-step at x̂ (x itself for momentum 0); with `measure`, the
//        residual sums (the implicit multiplier ρ(Kx − z) as u)
//   bool sums(SplitSums& s)
//   Verdict record(int it, const Residuals& r, bool met)
//   double objective()                      the objective of what a solve stopped now returns
//   bool stage_ended(int it)                at the end of a stage that grew ρ: false when the
//                                           stage's steps show the problem unbounded (stop)
//   bool after_iteration(int it)
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "proxgen/algorithms/split.hpp"

namespace proxgen::algorithms {

/// Whether the objective along a ray looks unbounded below: f0 at x, f1 and f2 at 100 and 1000
/// times max(1, ‖x‖) out along the step the last stage took. Convexity makes the slope from x grow
/// outwards, so a fall ten times as far out that is at least nine tenths of ten times the nearer
/// fall is one that goes on (a bounded objective turns up long before). The runners' stage_ended
/// asks it: the penalty's growth shrinks every step of a drift to −inf, so the residuals never
/// stall as an infeasible problem's do.
inline bool falls_without_bound(double f0, double f1, double f2) {
    const double fall = f0 - f1;
    return std::isfinite(f0) && fall > 1e-6 * std::max(1.0, std::abs(f0)) && f0 - f2 >= 9 * fall;
}

/// The ray test at a stage's end, over a runner's objective: `objective_along(t)` is the objective
/// at x + t·step (t = 0: x itself), asked at x and at 100 and 1000 times max(1, ‖x‖) out (t that
/// distance over ‖step‖); `values` receives the three. False without asking where the step is 0.
template <class ObjectiveAlong>
bool unbounded_along(double x_norm, double step_norm, ObjectiveAlong&& objective_along, std::array<double, 3>& values) {
    if (!(step_norm > 0)) return false;
    const double reach = std::max(1.0, x_norm);
    values = {objective_along(0.0), objective_along(100 * reach / step_norm), objective_along(1000 * reach / step_norm)};
    return falls_without_bound(values[0], values[1], values[2]);
}

/// ρ's schedule: ρ₀, its cap, the growth factor and the iterations per stage.
struct HQSRule {
    double rho = 1, rho_max = 1e4, growth = 2;
    int every = 10;
};

/// HQS's continuation. ρ grows by `growth` every `every` iterations while the primal residual
/// ‖Kx − z‖ (the penalty's bias: ‖y‖/ρ for the multiplier y = ρ(Kx − z)) misses its tolerance, and
/// is held once it meets it, so that the alternation solves the problem at that ρ: growing ρ on
/// regardless made the dual residual ρ‖Kᵀ(z − z_prev)‖ grow faster than the alternation shrank it
/// (a 256² TV deblurring met no tolerance in 1000 iterations). A check meeting both tolerances has
/// solved the penalized problem, whose minimiser is still O(1/ρ) from the optimum in objective (a
/// weight-1e6 norm1 made that 15 times the optimum): it is converged only when its objective and
/// the previous such check's, at a smaller ρ, extrapolate to a bias within the tolerance;
/// otherwise ρ grows at once.
/// A stage that grew ρ and ended with a higher objective than the last such stage shows ρ growing
/// faster than the alternation follows (the iterates lag further behind the penalized problem's
/// minimiser at every growth): ρ then waits, without momentum, until the objective stalls (falls by
/// less than kStall · ε_rel |f| per iteration; the default ε_rel where none was asked for) and
/// grows again. Without tolerances (ε = 0: run max_iters) nothing else holds ρ: growing every
/// stage reached ρ₀·hqs_max_ratio by iteration ~600 on 3-D TV denoising at 64², where the
/// alternation crawls, and stayed 2e-4 from the optimum after 3000 iterations (1e-4 after 530 with
/// the wait; the suite's gaps after 3000 fell 1.7–22×: docs/performance.md). While it waits, x̂
/// carries a momentum of its own, counted from the wait's start (momentum()).
class Continuation {
public:
    Continuation() = default;
    /// A waiting ρ grows once its objective falls by less than this fraction of the objective
    /// tolerance (ε_rel |f|, LoopOptions' default ε_rel where none was asked for) per iteration.
    static constexpr double kStall = 1e-5;

    Continuation(const HQSRule& rule, double eps_abs, double eps_rel)
        : rule_(rule), rho_(std::min(rule.rho, rule.rho_max)), eps_abs_(eps_abs), eps_rel_(eps_rel),
          stall_(kStall * (eps_rel > 0 ? eps_rel : LoopOptions{}.eps_rel)) {}
    double rho() const { return rho_; }
    bool growing() const { return !hold_ && !waiting_ && rho_ < rule_.rho_max; }
    /// The momentum m of iteration `it` (x̂ = x⁺ + m (x⁺ − x)): (it − 1)/(it + 2) while ρ grows.
    /// While ρ waits, the alternation at that ρ is proximal gradient on z (x is affine in z), and
    /// Nesterov's momentum counted from the wait's start and capped at kWaitMomentum speeds its
    /// crawl (a check whose objective did not fall ends the wait, as before): the suite's gaps
    /// after 3000 iterations fell from 3.7e-5 to 0 (denoise), 3.8e-5 to 1.1e-5 (superres), 3.2e-5
    /// to 9.7e-6 (inpaint); volume reached 1e-4 in 450 iterations instead of 530, poisson in 400
    /// instead of 390 (docs/performance.md; capped at 0.5 or 0.75 it did less). At a held ρ none:
    /// the default stop's primal tolerance is met there and plain alternation is monotone.
    double momentum(int it) {
        if (growing()) return it > 1 ? double(it - 1) / (it + 2) : 0.0;
        if (!waiting_ || hold_) return 0.0;
        if (wait_from_ == 0) wait_from_ = it;
        const int j = it - wait_from_;
        return j > 1 ? std::min(kWaitMomentum, double(j - 1) / (j + 2)) : 0.0;
    }
    static constexpr double kWaitMomentum = 0.9;
    /// After a check: its residuals met the tolerances (met) or the primal one alone (primal_met)
    /// or the dual one alone (dual_met); f() gives the returned objective. True when the solve has
    /// converged. A check whose dual residual is within its tolerance while the primal one is not
    /// ends the stage at once: z has stopped moving, so the alternation has solved the problem at
    /// this ρ and what is left of ‖Kx − z‖ is the penalty's bias, which only a larger ρ shrinks
    /// (ProxImaL's inner loop ends there too; waiting out the stage held the iterates still, and a
    /// residual that long unchanged reads as an infeasible problem).
    /// `it`: the iteration of this check (a waiting ρ's objective's fall is per iteration).
    template <class Objective>
    bool checked(int it, bool met, bool primal_met, bool dual_met, const Objective& f) {
        hold_ = primal_met;
        settled_ = !met && dual_met && !primal_met;
        if (!met) {
            if (waiting_ && !hold_ && rho_ < rule_.rho_max) {
                const double value = f();
                if (wait_it_ > 0 && !(wait_f_ - value > stall_ * std::abs(value) * (it - wait_it_)))
                    settled_ = true, waiting_ = false;
                wait_f_ = value, wait_it_ = it;
            }
            return false;
        }
        const double value = f();
        if (rho_ref_ > 0 && rho_ref_ < rho_) {
            // f(ρ) ≈ f* + c/ρ: the difference across ρ_ref → ρ is c/ρ · (ρ/ρ_ref − 1)
            bias_ = std::abs(value - f_ref_) / (rho_ / rho_ref_ - 1);
            if (bias_ <= eps_rel_ * std::abs(value) + eps_abs_) return true;
        }
        if (rho_ < rule_.rho_max) {
            f_ref_ = value, rho_ref_ = rho_;
            grow();
        } else {
            capped_ = true;
        }
        return false;
    }
    /// After each iteration; true at the end of a stage (`every` iterations at one ρ, or a settled
    /// check), where ρ grows unless held (piecewise constant, so spectral Gram matrices are rebuilt
    /// only there).
    template <class Objective>
    bool after_iteration(const Objective& f) {
        const bool settled = std::exchange(settled_, false);
        if (++since_growth_ < rule_.every && !settled) return false;
        if (!settled && !hold_ && !waiting_ && rho_ < rule_.rho_max) {
            // a stage that grew ρ and raised the objective: ρ outran the alternation
            const double value = f();
            if (grown_f_ < value) {
                waiting_ = true, wait_from_ = 0;
                if (value - grown_f_ <= kNearRise * std::abs(value)) grow_slower();
            }
            grown_f_ = value;
        }
        if ((hold_ || waiting_) && !settled) {
            since_growth_ = 0;
            grown_f_ = std::numeric_limits<double>::infinity();  // compare growing stages in a row only
        } else {
            grow();
        }
        return true;
    }
    /// ρ₀ and the cap scaled by f (tighter norms arrived after the run started on the planner's
    /// bounds): ρ moves with them; the objectives compared across stages were made at the old ρ's,
    /// so the comparisons start again.
    void rescale(double f) {
        rule_.rho *= f;
        rule_.rho_max *= f;
        rho_ *= f;
        rho_ref_ = 0;
        bias_ = std::numeric_limits<double>::quiet_NaN();
        grown_f_ = std::numeric_limits<double>::infinity();
        wait_it_ = 0;
    }
    /// Why a solve that ran out of iterations at the largest ρ is not converged; empty otherwise.
    std::string why_not_converged() const {
        if (!capped_) return {};
        if (!std::isfinite(bias_))
            return "not converged: the residuals met their tolerances only at the largest penalty rho = " + g(rho_) +
                   " (rho_0 * hqs_max_ratio), with no smaller rho to compare its objective with, so how far the "
                   "penalty's O(1/rho) bias leaves it from the optimum is unknown; a larger hqs_max_ratio lets the "
                   "continuation measure it";
        return "not converged: the residuals met their tolerances at the largest penalty rho = " + g(rho_) +
               " (rho_0 * hqs_max_ratio), but the objective still moved as rho grew: its distance from the optimum "
               "extrapolates to " + g(bias_, 3) + ", above the tolerance; a larger hqs_max_ratio (or another "
               "algorithm) reaches it";
    }

private:
    static std::string g(double v, int digits = 4) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        return buf;
    }
    /// A wait whose rise was this small, relative (a few float32 roundings of the objective),
    /// comes where the alternation has caught up with the penalized minimiser and growing ρ at the
    /// full rate only outruns it again: from there ρ grows by half as much per stage (1.5 → 1.25 →
    /// 1.125 → 1.1). The suite's gaps after 3000 iterations (ε = 0) fell on superres (1.1e-5 →
    /// 5.4e-6), multi (1.1e-5 → 8.5e-6), color, deconv, svb, huber_box, with the same iterations
    /// to 1e-4 everywhere; at 1e-5 an early wait on poisson slowed all its later growth (400 → 1270
    /// iterations to 1e-4), at 1e-7 superres and multi kept theirs (docs/performance.md).
    static constexpr double kNearRise = 1e-6, kSlowestGrowth = 1.1;
    void grow_slower() {
        if (rule_.growth > kSlowestGrowth) rule_.growth = std::max(kSlowestGrowth, 1 + (rule_.growth - 1) / 2);
    }
    void grow() {
        rho_ = std::min(rho_ * rule_.growth, rule_.rho_max);
        since_growth_ = 0;
        hold_ = false;
        wait_it_ = 0;
    }
    HQSRule rule_;
    double rho_ = 1, eps_abs_ = 0, eps_rel_ = 0;
    double stall_ = 0;  // a waiting ρ's objective falling less per iteration, relative, has stalled
    int since_growth_ = 0, wait_it_ = 0;
    int wait_from_ = 0;  // the iteration a waiting ρ's momentum counts from (0: the next one)
    double wait_f_ = 0;  // the objective at the last check of a waiting ρ (wait_it_ > 0)
    double grown_f_ = std::numeric_limits<double>::infinity();  // at the end of the last stage that grew ρ
    // ρ held because growing it raised the objective, until the objective stalls at this ρ
    bool waiting_ = false;
    bool hold_ = false, capped_ = false, settled_ = false;
    double f_ref_ = 0, rho_ref_ = 0, bias_ = std::numeric_limits<double>::quiet_NaN();
};

class HQS : public Loop<HQS> {
public:
    HQS() = default;
    /// `split`: the problem has Ψ terms (with none, the x-update is the answer and the
    /// continuation is not consulted).
    HQS(const HQSRule& rule, bool split, const LoopOptions& options) : Loop(options), rule_(rule), split_(split) {
        restart();
    }

    void restart() { restart(rule_.rho); }
    /// From ρ (a warm start's), the cap kept.
    void restart(double rho) {
        HQSRule r = rule_;
        r.rho = rho;
        continuation_ = Continuation(r, options_.eps_abs, options_.eps_rel);
        reset_progress();
    }

    /// One iteration with its check.
    template <class Runner>
    bool advance(Runner& runner, int /*allowed*/) {
        const int it = progress_.iterations + 1;
        const bool measure = measured(it);
        // momentum while ρ grows (restarts at each growth of ρ, or adaptive ones, measured slower
        // there) and, counted from the wait's start, while it waits; none at a held ρ
        const double momentum = continuation_.momentum(it);
        if (!runner.run_step(continuation_.rho(), momentum, measure)) return false;
        progress_.iterations = it;
        if (measure) {
            SplitSums s;
            if (!runner.sums(s)) return false;
            const Residuals r = split_residuals(s, continuation_.rho(), options_.eps_abs, options_.eps_rel,
                                                     options_.data_unit).residuals;
            Verdict v;
            if (!checked(runner, it, r, v)) return false;
            // with nothing split the x-update is the answer. (Zero residuals alone are no proof: at a
            // large ρ a drift of 1/ρ per iteration rounds away in float32.)
            if (v != Verdict::stop && split_)
                progress_.converged = continuation_.checked(it, progress_.converged, r.primal <= r.eps_primal,
                                                            r.dual <= r.eps_dual, [&] { return runner.objective(); });
        }
        if (!progress_.stopped && continuation_.after_iteration([&] { return runner.objective(); }) &&
            !progress_.converged && !runner.stage_ended(it))
            progress_.stopped = true;
        ended(runner, it);
        return true;
    }

    /// ρ₀ made from tighter norms than this one's (estimates that arrived after the run had started
    /// on the planner's bounds): ρ, the cap and the continuation move by the same factor (HQS has
    /// no dual to rescale).
    template <class Runner>
    void retune(Runner& /*runner*/, double rho0) {
        const double f = rule_.rho > 0 ? rho0 / rule_.rho : 1;
        rule_.rho = rho0;
        rule_.rho_max *= f;
        continuation_.rescale(f);
    }

    double rho() const { return continuation_.rho(); }
    /// Why a solve that ran out of iterations is not converged (the continuation's sentence), or "".
    std::string why_not_converged() const {
        return progress_.converged || progress_.stopped ? std::string() : continuation_.why_not_converged();
    }

private:
    HQSRule rule_;
    bool split_ = true;
    Continuation continuation_;
};

}  // namespace proxgen::algorithms
