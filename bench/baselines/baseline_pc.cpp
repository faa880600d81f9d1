// Pock–Chambolle TV denoising by hand: one iteration, or four, per pipeline call (baseline.hpp).
//
// State planes (baseline_support.hpp's Layout): x, x_prev (iterate, previous iterate), y0, y1
// (the dual: the two gradient components), and b; each call writes [0, Wv) x [0, H) of new
// planes (x_prev <- x is a change of slot, no copy).
//
// Boundaries: the forward differences are masked (0 in the last column / row and outside the
// image). The dual therefore stays 0 wherever grad's last column / row and the margin are, and
// the adjoint needs no test of its own: grad^T y = y0(i-1,j) - y0(i,j) + y1(i,j-1) - y1(i,j)
// holds at every pixel because y0(-1,j), y0(W-1,j), y1(i,-1), y1(i,H-1) are 0. The masks are
// likely-tagged selects that the loop partitioner drops from interior loop iterations.
//
// One iteration = one call of
//   dual(i,j) = proj_alpha(y + sigma grad(x + theta (x - x_prev)))  per strip of rows, computed
//               for the strip and the row above it into a scratch buffer in L1/L2
//   x'(i,j)   = (x - tau grad^T dual + 2 tau b) / (1 + 2 tau)
// writing x' and dual. Bytes per iteration: reads x, x_prev, y0, y1, b, writes x', y0', y1':
// 8 planes * 4 * W * H.
//
// Four iterations = one call: levels 1..4 of the same step, each level's dual and x a Func over
// the whole plane, computed row by row with line buffers as a strip of output rows advances
// (sliding windows, storage folded to a few rows per Func): overlapping strips of rows whose
// first rows recompute the halo of the four levels' reach (about 8 rows). Outputs x4, x3 (the
// next call's x_prev) and y4. Bytes per iteration: (5 planes read + 4 written) * 4 * W * H / 4.
#include <stdexcept>
#include <string>

#include "baseline_kinds.hpp"
#include "baseline_stencil.hpp"

namespace proxgen::bench::detail {

namespace {

struct PCParams {
    Param<int> W = size_param("W"), H = size_param("H");
    Param<float> sigma{"sigma"}, tau{"tau"}, theta{"theta"}, alpha{"alpha"};
};

/// One Pock–Chambolle step as Funcs over the whole plane.
struct PCLevel {
    Func dual;  // Tuple {y0, y1}: the new dual
    Func x;     // the new iterate
};

PCLevel pc_level(const Func& x, const Func& xp, const Func& y, const Func& b, const PCParams& p,
                 const std::string& tag) {
    Var i("i"), j("j");
    PCLevel L;
    L.dual = tv_dual(x, xp, y, p.sigma, p.theta, p.alpha, p.W, p.H, "dual" + tag);
    Expr c = 1.0f / (1.0f + 2.0f * p.tau);
    L.x = Func("x" + tag);
    L.x(i, j) = (x(i, j) - p.tau * grad_adjoint(L.dual, i, j) + 2.0f * p.tau * b(i, j)) * c;
    return L;
}

class PCDenoise final : public StencilBaseline {
public:
    PCDenoise(const TVProblem& problem, const Steps& steps, int per_call);
    void set_steps(const Steps& s) override {
        if (!(s.tau > 0 && s.sigma > 0)) throw std::invalid_argument("pc_denoise: tau and sigma must be > 0");
        sigma_ = s.sigma, tau_ = s.tau, theta_ = s.theta;
    }

private:
    int W_, H_;
    float sigma_ = 0, tau_ = 0, theta_ = 1, alpha_ = 0;
};

// Slots: 0 = x, 1 = x_prev, 2 = y0, 3 = y1.
PCDenoise::PCDenoise(const TVProblem& problem, const Steps& steps, int per_call)
    : StencilBaseline(problem, per_call == 4 ? "pc_denoise_x4" : "pc_denoise", 4, {0, 1}, per_call == 4 ? 4 : 3,
                      per_call == 4 ? schedule_knob("PG_PC4_MARGIN", 80) : 16),
      W_(width()), H_(height()), alpha_(problem.alpha) {
    set_steps(steps);
    PCParams p;
    ImageParam x{Halide::Float(32), 2, "x"}, xp{Halide::Float(32), 2, "x_prev"}, y0{Halide::Float(32), 2, "y0"},
        y1{Halide::Float(32), 2, "y1"}, b{Halide::Float(32), 2, "b"};
    for (ImageParam* q : {&x, &xp, &y0, &y1, &b}) constrain_input(*q);
    set_inputs({x, xp, y0, y1}, b, {p.W, p.H, p.sigma, p.tau, p.theta, p.alpha},
               {&W_, &H_, &sigma_, &tau_, &theta_, &alpha_});
    const Func fb = wrap_plane(b), fx = wrap_plane(x), fxp = wrap_plane(xp);
    Func fy("y_in");
    Var i("i"), j("j"), jo("jo"), ji("ji");
    fy(i, j) = Tuple(y0(i, j), y1(i, j));
    {
        PCLevel L = pc_level(fx, fxp, fy, fb, p, "");
        Func out("pc_step");
        out(i, j) = Tuple(L.x(i, j), L.dual(i, j)[0], L.dual(i, j)[1]);
        out.split(j, jo, ji, schedule_knob("PG_PC_STRIP", 16), TailStrategy::GuardWithIf)
            .vectorize(i, kVec, TailStrategy::RoundUp)
            .parallel(jo);
        if (schedule_knob("PG_PC_SLIDE", 0)) L.dual.store_at(out, jo).compute_at(out, ji);
        else L.dual.compute_at(out, jo);
        L.dual.align_bounds(i, kVec).vectorize(i, kVec, TailStrategy::RoundUp);
        add_kernel(out, 1, {0, -1, 1, 2}, "pc_denoise_step");
    }
    if (per_call == 4) {
        PCLevel L1 = pc_level(fx, fxp, fy, fb, p, "1");
        PCLevel L2 = pc_level(L1.x, fx, L1.dual, fb, p, "2");
        PCLevel L3 = pc_level(L2.x, L1.x, L2.dual, fb, p, "3");
        PCLevel L4 = pc_level(L3.x, L2.x, L3.dual, fb, p, "4");
        Func out("pc_step4");
        out(i, j) = Tuple(L4.x(i, j), L3.x(i, j), L4.dual(i, j)[0], L4.dual(i, j)[1]);
        out.split(j, jo, ji, schedule_knob("PG_PC4_STRIP", 64), TailStrategy::GuardWithIf)
            .vectorize(i, kVec, TailStrategy::RoundUp)
            .parallel(jo);
        // Line buffers: every level's Funcs are computed row by row as the strip advances, in
        // storage folded to 8 rows (a power of two: the fold is a mask).
        const int fold = schedule_knob("PG_PC4_FOLD", 8), align = schedule_knob("PG_PC4_ALIGN", 1);
        for (PCLevel* L : {&L1, &L2, &L3, &L4}) {
            L->dual.store_at(out, jo).compute_at(out, ji);
            if (align) L->dual.align_bounds(i, kVec).vectorize(i, kVec, TailStrategy::RoundUp);
            else L->dual.vectorize(i, kVec, TailStrategy::ShiftInwards);
            if (fold) L->dual.fold_storage(L->dual.args()[1], fold);
            if (L == &L4) continue;
            L->x.store_at(out, jo).compute_at(out, ji);
            if (align) L->x.align_bounds(i, kVec).vectorize(i, kVec, TailStrategy::RoundUp);
            else L->x.vectorize(i, kVec, TailStrategy::ShiftInwards);
            if (fold) L->x.fold_storage(L->x.args()[1], fold);
        }
        add_kernel(out, 4, {0, 1, 2, 3}, "pc_denoise_step4");
    }
    reset({});
}

}  // namespace

std::unique_ptr<Baseline> make_pc_denoise(const TVProblem& problem, const Steps& steps, int iterations_per_call) {
    return std::make_unique<PCDenoise>(problem, steps, iterations_per_call);
}

}  // namespace proxgen::bench::detail
