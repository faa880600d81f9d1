// Internal: the unrolled reverse pass's states and their checkpointing (gradient.cpp). A state is
// the list of images one iteration maps (steppers.hpp); reversing iteration j needs the states
// before and after it, which the forward sweep keeps at the schedule's checkpoints and the reverse
// pass recomputes from the nearest one (binomial checkpointing, Griewank's revolve).
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <vector>

#include "steppers.hpp"

namespace proxgen::gradients {

using State = std::vector<Image>;

inline State zeros(const std::vector<std::vector<int>>& shapes) {
    State s;
    for (const auto& sh : shapes) s.emplace_back(sh);
    return s;
}
inline void copy_state(const State& a, State& b) {
    for (std::size_t i = 0; i < a.size(); ++i) copy_into(a[i], b[i]);
}
inline std::size_t bytes_of(const std::vector<std::vector<int>>& shapes) {
    std::size_t n = 0;
    for (const auto& s : shapes) {
        std::size_t k = sizeof(float);
        for (int d : s) k *= std::size_t(d);
        n += k;
    }
    return n;
}

// ---- checkpointing ----------------------------------------------------------------------------------

/// Forward steps the reverse pass of n iterations spends with s free state slots, the boundary
/// states held (c), and along the forward sweep, whose advances are free (f); split: the best first
/// advance. Reversing iteration j needs states j and j + 1.
class Schedule {
public:
    Schedule(int n, int s) : n_(n), s_(std::max(0, std::min(s, n))) {
        c_.assign(std::size_t(s_ + 1), std::vector<double>(std::size_t(n_ + 1), 0.0));
        cm_ = c_;
        f_ = c_;
        fm_ = c_;
        for (int k = 0; k <= s_; ++k)
            for (int m = 1; m <= n_; ++m) {
                if (m == 1) continue;
                if (k == 0) {
                    c_[k][m] = f_[k][m] = double(m) * (m - 1) / 2.0 + (m - 1);
                    continue;
                }
                double best = 1e300, fbest = 1e300;
                int arg = 1, farg = 1;
                for (int a = 1; a < m; ++a) {
                    const double c = a + c_[k - 1][m - a] + c_[k - 1][a];
                    if (c < best) best = c, arg = a;
                    const double f = f_[k - 1][m - a] + c_[k - 1][a];
                    if (f < fbest) fbest = f, farg = a;
                }
                c_[k][m] = best;
                cm_[k][m] = arg;
                f_[k][m] = fbest;
                fm_[k][m] = farg;
            }
    }
    int split(int n, int s, bool sweep) const { return int((sweep ? fm_ : cm_)[std::size_t(s)][std::size_t(n)]); }
    double cost() const { return f_[std::size_t(s_)][std::size_t(n_)]; }
    int slots() const { return s_; }

private:
    int n_, s_;
    std::vector<std::vector<double>> c_, cm_, f_, fm_;
};

class Engine {
public:
    Engine(Stepper& st, const std::vector<std::vector<double>>& steps, const std::vector<std::vector<int>>& shapes)
        : S_(st), steps_(steps), shapes_(shapes) {}

    const double* steps(int k) const { return steps_[std::size_t(k)].data(); }
    const double* previous(int k) const { return steps_[std::size_t(k > 0 ? k - 1 : 0)].data(); }

    /// state ← state advanced from iteration `from` to `to`.
    void advance(State& state, int from, int to) {
        if (from == to) return;
        if (tmp_.empty()) tmp_ = alloc();
        for (int k = from; k < to; ++k) {
            S_.forward(state, tmp_, steps(k), previous(k));
            std::swap(state, tmp_);
            ++forward_steps;
        }
    }
    State alloc() {
        ++live_;
        peak_ = std::max(peak_, live_);
        return zeros(shapes_);
    }
    void release(State& s) {
        if (s.empty()) return;
        --live_;
        s.clear();
    }

    std::function<void(int, const State&, const State&)> reverse_step;

    /// Reverses iterations a..b−1 given the states at a and b (held by the caller), with s slots.
    void reverse(int a, int b, const State& sa, const State& sb, int s, const Schedule& sched, bool sweep,
                 std::map<int, State>* sweep_states) {
        const int n = b - a;
        if (n == 1) {
            reverse_step(a, sa, sb);
            return;
        }
        if (s == 0) {  // no slot: recompute from a for every iteration
            State w1 = alloc(), w2 = alloc();
            for (int j = b - 1; j >= a; --j) {
                copy_state(sa, w1);
                advance(w1, a, j);
                if (j + 1 == b) {
                    reverse_step(j, w1, sb);
                } else {
                    S_.forward(w1, w2, steps(j), previous(j));
                    ++forward_steps;
                    reverse_step(j, w1, w2);
                }
            }
            release(w1);
            release(w2);
            return;
        }
        const int m = a + sched.split(n, s, sweep);
        State sm;
        if (sweep && sweep_states && sweep_states->count(m)) {
            sm = std::move((*sweep_states)[m]);
            sweep_states->erase(m);
        } else {
            sm = alloc();
            copy_state(sa, sm);
            advance(sm, a, m);
        }
        reverse(m, b, sm, sb, s - 1, sched, sweep, sweep_states);
        reverse(a, m, sa, sm, s - 1, sched, false, nullptr);
        release(sm);
    }

    /// The spine the reverse pass starts with: where the forward sweep keeps states.
    std::vector<int> spine(int n, int s, const Schedule& sched) const {
        std::vector<int> out;
        int a = 0;
        while (n - a > 1 && s > 0) {
            const int m = a + sched.split(n - a, s, true);
            out.push_back(m);
            a = m;
            --s;
        }
        return out;
    }

    int forward_steps = 0;
    int live_ = 0, peak_ = 0;

private:
    Stepper& S_;
    const std::vector<std::vector<double>>& steps_;
    std::vector<std::vector<int>> shapes_;
    State tmp_;
};

}  // namespace proxgen::gradients
