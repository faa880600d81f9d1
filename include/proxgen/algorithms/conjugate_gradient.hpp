// The conjugate gradient card: ADMM's and HQS's inexact x-update G x = rhs (G symmetric positive
// semi-definite), warm-started at the current x and optionally preconditioned, written once over a
// runner of its vector operations — the JIT's C++ loops over its kernels (src/solve/admm.cpp) and a
// generated solver's over its ahead-of-time pipelines (proxgen/aot/admm.hpp).
//
// A Runner provides (r, s, d: its residual, preconditioned residual and direction; x its iterate):
//   bool residual()                 r = rhs − G x at the warm start
//   bool precondition()             s = M⁻¹ r (nothing to do where s is r itself)
//   bool preconditioned() const     whether s is another vector than r
//   bool start_direction()          d = s
//   bool gram()                     G d, for the next calls
//   double dot_r_s(), dot_r_r(), dot_d_gd()   float64 inner products
//   double update(float step)       x += step d, r −= step G d; returns ‖r‖² after the update
//   bool direction(float beta)      d = s + beta d
// Each bool is false on a failure the runner keeps; the card then stops and returns false.
#pragma once

namespace proxgen::algorithms {

struct ConjugateGradientOptions {
    /// Stop when ‖r‖ fell by this factor from the warm start's residual — not relative to ‖rhs‖:
    /// once ρ is large, ‖rhs‖ is dominated by ρKᵀz and a tolerance on it would freeze x (HQS
    /// stalled that way).
    double tol = 1e-3;
    int max_iters = 50;
};

/// Runs CG from the runner's x; adds the iterations it ran to `iterations`. False when a runner
/// operation failed.
template <class Runner>
bool conjugate_gradient(Runner& run, const ConjugateGradientOptions& o, int& iterations) {
    if (!run.residual() || !run.precondition() || !run.start_direction()) return false;
    double rs = run.dot_r_s();
    const double r0 = run.preconditioned() ? run.dot_r_r() : rs, stop = o.tol * o.tol * r0;
    double rr = r0;
    for (int k = 0; k < o.max_iters && r0 > 0 && rr > stop; ++k) {
        if (!run.gram()) return false;
        const double dgd = run.dot_d_gd();
        if (!(dgd > 0) || !(rs > 0)) break;  // G is positive semi-definite: d is in its null space
        rr = run.update(float(rs / dgd));
        if (!run.precondition()) return false;
        const double rs_next = run.preconditioned() ? run.dot_r_s() : rr;
        if (!run.direction(float(rs_next / rs))) return false;
        rs = rs_next;
        ++iterations;
    }
    return true;
}

}  // namespace proxgen::algorithms
