// Linearized-ADMM TV denoising by hand: one iteration, or four, per pipeline call (baseline.hpp).
//
// State planes (baseline_support.hpp's Layout): x, z0, z1, u0, u1 (z = the split of grad x, u its
// scaled dual) and b; each call writes [0, Wv) x [0, H) of new planes.
//
// Boundaries as in baseline_pc.cpp: masked forward differences; z and u stay 0 in grad's last
// column / row and outside the image, so r = grad x - z + u is 0 there and grad^T r is the plain
// four-point stencil everywhere.
//
// One iteration = one call of
//   r(i,j)   = grad x - z + u                                    inlined into the x-update
//   x'(i,j)  = (x - (mu/lambda) grad^T r + 2 mu b) / (1 + 2 mu)  per strip of rows, for the strip
//              and the row below it, into a scratch buffer (the (z, u)-update reads x' at three
//              positions)
//   v        = grad x' + u,  z' = v max(0, 1 - lambda alpha / ||v_p||),  u' = v - z'
// writing x', z', u'. Bytes per iteration: reads x, z0, z1, u0, u1, b, writes x', z0', z1', u0',
// u1': 11 planes * 4 * W * H.
//
// Four iterations = one call, as PC's: levels 1..4 with line buffers per strip of rows.
// Outputs x4, z4, u4. Bytes per iteration: (6 planes read + 5 written) * 4 * W * H / 4.
#include <stdexcept>
#include <string>

#include "baseline_kinds.hpp"
#include "baseline_stencil.hpp"

namespace proxgen::bench::detail {

namespace {

struct LADMMParams {
    Param<int> W = size_param("W"), H = size_param("H");
    Param<float> lambda{"lambda"}, mu{"mu"}, alpha{"alpha"};
};

/// One linearized-ADMM step as Funcs over the whole plane.
struct LADMMLevel {
    Func x;   // the new iterate
    Func zu;  // Tuple {z0, z1, u0, u1}: the new split variable and scaled dual
};

/// `zu`: the previous level's Tuple {z0, z1, u0, u1}.
LADMMLevel ladmm_level(const Func& x, const Func& zu, const Func& b, const LADMMParams& p, const std::string& tag) {
    Var i("i"), j("j");
    auto gx = [&](const Func& f, const Expr& a, const Expr& c) { return masked_difference(a, p.W, f(a + 1, c) - f(a, c)); };
    auto gy = [&](const Func& f, const Expr& a, const Expr& c) { return masked_difference(c, p.H, f(a, c + 1) - f(a, c)); };
    Func r("r" + tag);  // grad x - z + u, inlined
    r(i, j) = Tuple(gx(x, i, j) - zu(i, j)[0] + zu(i, j)[2], gy(x, i, j) - zu(i, j)[1] + zu(i, j)[3]);
    Expr div = r(i - 1, j)[0] - r(i, j)[0] + r(i, j - 1)[1] - r(i, j)[1];
    Expr c = 1.0f / (1.0f + 2.0f * p.mu);
    LADMMLevel L;
    L.x = Func("x" + tag);
    L.x(i, j) = (x(i, j) - (p.mu / p.lambda) * div + 2.0f * p.mu * b(i, j)) * c;
    Expr v0 = gx(L.x, i, j) + zu(i, j)[2];
    Expr v1 = gy(L.x, i, j) + zu(i, j)[3];
    Expr n = Halide::sqrt(v0 * v0 + v1 * v1), k = p.lambda * p.alpha;
    Expr s = Halide::select(n > k, 1.0f - k / n, 0.0f);  // 0 where ||v|| <= k, v = 0 included
    Expr z0 = v0 * s, z1 = v1 * s;
    L.zu = Func("zu" + tag);
    L.zu(i, j) = Tuple(z0, z1, v0 - z0, v1 - z1);
    return L;
}

class LADMMDenoise final : public StencilBaseline {
public:
    LADMMDenoise(const TVProblem& problem, const Steps& steps, int per_call);
    void set_steps(const Steps& s) override {
        if (!(s.lambda > 0 && s.mu > 0)) throw std::invalid_argument("ladmm_denoise: lambda and mu must be > 0");
        lambda_ = s.lambda, mu_ = s.mu;
    }

private:
    int W_, H_;
    float lambda_ = 0, mu_ = 0, alpha_ = 0;
};

// Slots: 0 = x, 1 = z0, 2 = z1, 3 = u0, 4 = u1.
LADMMDenoise::LADMMDenoise(const TVProblem& problem, const Steps& steps, int per_call)
    : StencilBaseline(problem, per_call == 4 ? "ladmm_denoise_x4" : "ladmm_denoise", 5, {0}, 5,
                      per_call == 4 ? schedule_knob("PG_LA4_MARGIN", 80) : 32),
      W_(width()), H_(height()), alpha_(problem.alpha) {
    set_steps(steps);
    LADMMParams p;
    ImageParam x{Halide::Float(32), 2, "x"}, z0{Halide::Float(32), 2, "z0"}, z1{Halide::Float(32), 2, "z1"},
        u0{Halide::Float(32), 2, "u0"}, u1{Halide::Float(32), 2, "u1"}, b{Halide::Float(32), 2, "b"};
    for (ImageParam* q : {&x, &z0, &z1, &u0, &u1, &b}) constrain_input(*q);
    set_inputs({x, z0, z1, u0, u1}, b, {p.W, p.H, p.lambda, p.mu, p.alpha}, {&W_, &H_, &lambda_, &mu_, &alpha_});
    const Func fb = wrap_plane(b), fx = wrap_plane(x);
    Func fzu("zu_in");
    Var i("i"), j("j"), jo("jo"), ji("ji");
    fzu(i, j) = Tuple(z0(i, j), z1(i, j), u0(i, j), u1(i, j));
    {
        LADMMLevel L = ladmm_level(fx, fzu, fb, p, "");
        Func out("ladmm_step");
        out(i, j) = Tuple(L.x(i, j), L.zu(i, j)[0], L.zu(i, j)[1], L.zu(i, j)[2], L.zu(i, j)[3]);
        out.split(j, jo, ji, schedule_knob("PG_LA_STRIP", 16), TailStrategy::GuardWithIf)
            .vectorize(i, kVec, TailStrategy::RoundUp)
            .parallel(jo);
        if (schedule_knob("PG_LA_SLIDE", 0)) L.x.store_at(out, jo).compute_at(out, ji);
        else L.x.compute_at(out, jo);
        L.x.align_bounds(i, kVec).vectorize(i, kVec, TailStrategy::RoundUp);
        add_kernel(out, 1, {0, 1, 2, 3, 4}, "ladmm_denoise_step");
    }
    if (per_call == 4) {
        LADMMLevel L1 = ladmm_level(fx, fzu, fb, p, "1");
        LADMMLevel L2 = ladmm_level(L1.x, L1.zu, fb, p, "2");
        LADMMLevel L3 = ladmm_level(L2.x, L2.zu, fb, p, "3");
        LADMMLevel L4 = ladmm_level(L3.x, L3.zu, fb, p, "4");
        Func out("ladmm_step4");
        out(i, j) = Tuple(L4.x(i, j), L4.zu(i, j)[0], L4.zu(i, j)[1], L4.zu(i, j)[2], L4.zu(i, j)[3]);
        out.split(j, jo, ji, schedule_knob("PG_LA4_STRIP", 64), TailStrategy::GuardWithIf)
            .vectorize(i, kVec, TailStrategy::RoundUp)
            .parallel(jo);
        const int fold = schedule_knob("PG_LA4_FOLD", 8);
        std::vector<Func> line_buffered{L1.x, L1.zu, L2.x, L2.zu, L3.x, L3.zu, L4.x};
        for (Func& f : line_buffered) {
            f.store_at(out, jo).compute_at(out, ji).align_bounds(i, kVec).vectorize(i, kVec, TailStrategy::RoundUp);
            if (fold) f.fold_storage(f.args()[1], fold);
        }
        add_kernel(out, 4, {0, 1, 2, 3, 4}, "ladmm_denoise_step4");
    }
    reset({});
}

}  // namespace

std::unique_ptr<Baseline> make_ladmm_denoise(const TVProblem& problem, const Steps& steps, int iterations_per_call) {
    return std::make_unique<LADMMDenoise>(problem, steps, iterations_per_call);
}

}  // namespace proxgen::bench::detail
