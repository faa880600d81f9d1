// Hand-written Halide baseline for TV denoising (see handwritten_tv.hpp).
//
// Four JIT pipelines, compiled once in the constructor:
//   pc_dual    : y_new(i,j,c)              from x, x_prev, y
//   pc_primal  : x_new(i,j)                from x, y_new, b
//   ladmm_x    : x_new(i,j)                from x, z, u, b
//   ladmm_zu   : {z_new, u_new}(i,j,c)     from x_new, u      (one Func, Tuple value)
//
// Boundaries. Every neighbour access goes through a clamped (repeat-edge)
// view of its input, so no load ever leaves the input buffers. Clamping makes
// the forward difference vanish by itself in the last column / row
// (f(W-1+1) - f(W-1) = f(W-1) - f(W-1) = 0 exactly), so the gradient needs no
// select; the adjoint keeps explicit selects for its four boundary terms. Both
// the clamps and the selects carry likely() so that Halide partitions the
// loops and the steady state runs with dense vector loads and no blends.
//
// Schedules, for a 2-core x86 machine with AVX-512 (JIT target from the
// environment): every output is split into strips of rows that run in
// parallel, vectorised along i by 16 floats with TailStrategy::GuardWithIf
// (sizes such as 37, 17 or 1 do not divide by 16). The extrapolation
// x + theta (x - x_prev) and the gradient are inlined. grad x - z + u, which
// the L-ADMM adjoint reads at three positions, is computed per strip
// (compute_at). The per-pixel group norm (projection / shrink factor) is NOT:
// with the channel axis unrolled inside the vector loop it is computed once per
// pixel vector for both channels, which measured clearly faster than storing it
// per strip or per row and reading it back (numbers at the schedules).
// Times measured on the target VM (2 cores, AVX-512, Halide 14 / LLVM 14), on an
// idle machine, 2 threads, min / p10 over 400 calls of the pipeline alone, are noted
// beside each schedule. Whole iterations (bench_handwritten, median of 5 repetitions):
//   PC      512^2 0.134 ms   1024^2 0.63 ms
//   L-ADMM  512^2 0.219 ms   1024^2 1.40 ms
// Schedule alternatives were compared single-threaded (CPU time) because the VM
// was shared at the time; the ratios are quoted next to each choice.
#include "handwritten_tv.hpp"

#include <Halide.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace proxgen::bench {

namespace {

using Halide::Expr;
using Halide::Func;
using Halide::ImageParam;
using Halide::Param;
using Halide::TailStrategy;
using Halide::Var;

constexpr int kVec = 16;    // AVX-512: 16 floats per vector
constexpr int kStrip = 16;  // rows per parallel task (8: same within noise; 32: ~10% slower)

// All buffers come from this class: dense, mins 0, the same W x H (x 2). Telling
// Halide so (bounds relative to the first input, `ref`) lets the simplifier and
// the loop partitioner drop the clamps in the steady state, so the inner loops
// use dense vector loads instead of gathers.
void constrain(Halide::OutputImageParam p, const ImageParam& ref) {
    if (p.name() == ref.name()) {
        p.dim(0).set_min(0).set_stride(1);
        p.dim(1).set_min(0);
    } else {
        p.dim(0).set_bounds(0, ref.width()).set_stride(1);
        p.dim(1).set_bounds(0, ref.height());
    }
    if (p.dimensions() == 3) p.dim(2).set_bounds(0, 2);
}

// Repeat-edge view of a 2-D input over [0,W) x [0,H).
Func clamped2(const ImageParam& p, const Expr& W, const Expr& H, const char* name) {
    Var i("i"), j("j");
    Func f(name);
    f(i, j) = p(Halide::clamp(Halide::likely(i), 0, W - 1), Halide::clamp(Halide::likely(j), 0, H - 1));
    return f;
}

// grad^T p for a W x H x 2 field given through a (clamped) accessor:
//   (grad^T p)(i,j) = [i>0] p0(i-1,j) - [i<W-1] p0(i,j) + [j>0] p1(i,j-1) - [j<H-1] p1(i,j)
template <typename At>
Expr adjoint(At&& p, const Var& i, const Var& j, const Expr& W, const Expr& H) {
    using Halide::likely;
    using Halide::select;
    Expr im1 = Halide::max(likely(i - 1), 0);
    Expr jm1 = Halide::max(likely(j - 1), 0);
    Expr ax = select(i > 0, likely(p(im1, j, 0)), 0.0f) - select(i < W - 1, likely(p(i, j, 0)), 0.0f);
    Expr ay = select(j > 0, likely(p(i, jm1, 1)), 0.0f) - select(j < H - 1, likely(p(i, j, 1)), 0.0f);
    return ax + ay;
}

}  // namespace

struct HandwrittenTV::Impl {
    int W = 0, H = 0;
    float alpha = 0.0f;

    // State and scratch. All allocated once; iterations swap, never copy.
    Halide::Buffer<float> b;       // W x H
    Halide::Buffer<float> x, xs;   // W x H: iterate, and x_prev (PC) / scratch (L-ADMM)
    Halide::Buffer<float> y, ys;   // W x H x 2: PC dual variable and its next value
    Halide::Buffer<float> z, zs;   // W x H x 2: L-ADMM split variable
    Halide::Buffer<float> u, us;   // W x H x 2: L-ADMM scaled dual

    // --- PC dual: y_new = proj_alpha(y + sigma grad(x + theta (x - x_prev)))
    ImageParam d_x{Halide::Float(32), 2, "d_x"}, d_xp{Halide::Float(32), 2, "d_xp"},
        d_y{Halide::Float(32), 3, "d_y"};
    Param<float> d_sigma{"d_sigma"}, d_theta{"d_theta"}, d_alpha{"d_alpha"};
    Halide::Pipeline p_dual;

    // --- PC primal: x_new = (x - tau grad^T y + 2 tau b) / (1 + 2 tau)
    ImageParam q_x{Halide::Float(32), 2, "q_x"}, q_y{Halide::Float(32), 3, "q_y"},
        q_b{Halide::Float(32), 2, "q_b"};
    Param<float> q_tau{"q_tau"};
    Halide::Pipeline p_primal;

    // --- L-ADMM x: x_new = (x - (mu/lambda) grad^T(grad x - z + u) + 2 mu b) / (1 + 2 mu)
    ImageParam l_x{Halide::Float(32), 2, "l_x"}, l_z{Halide::Float(32), 3, "l_z"},
        l_u{Halide::Float(32), 3, "l_u"}, l_b{Halide::Float(32), 2, "l_b"};
    Param<float> l_lambda{"l_lambda"}, l_mu{"l_mu"};
    Halide::Pipeline p_lx;

    // --- L-ADMM (z,u): v2 = grad x_new + u; z = shrink(v2, lambda alpha); u = v2 - z
    ImageParam s_x{Halide::Float(32), 2, "s_x"}, s_u{Halide::Float(32), 3, "s_u"};
    Param<float> s_k{"s_k"};  // lambda * alpha
    Halide::Pipeline p_zu;

    Impl(const Halide::Runtime::Buffer<float>& b_in, float alpha_);
    void build_pc_dual(const Halide::Target& t);
    void build_pc_primal(const Halide::Target& t);
    void build_ladmm_x(const Halide::Target& t);
    void build_ladmm_zu(const Halide::Target& t);
};

HandwrittenTV::Impl::Impl(const Halide::Runtime::Buffer<float>& b_in, float alpha_) : alpha(alpha_) {
    if (b_in.dimensions() != 2) throw std::invalid_argument("HandwrittenTV: b must be a 2-D buffer");
    W = b_in.dim(0).extent();
    H = b_in.dim(1).extent();
    if (W < 1 || H < 1) throw std::invalid_argument("HandwrittenTV: b must not be empty");
    if (!(alpha >= 0.0f)) throw std::invalid_argument("HandwrittenTV: alpha must be >= 0");

    b = Halide::Buffer<float>({W, H}, "b");
    x = Halide::Buffer<float>({W, H}, "x");
    xs = Halide::Buffer<float>({W, H}, "xs");
    y = Halide::Buffer<float>({W, H, 2}, "y");
    ys = Halide::Buffer<float>({W, H, 2}, "ys");
    z = Halide::Buffer<float>({W, H, 2}, "z");
    zs = Halide::Buffer<float>({W, H, 2}, "zs");
    u = Halide::Buffer<float>({W, H, 2}, "u");
    us = Halide::Buffer<float>({W, H, 2}, "us");

    const int i0 = b_in.dim(0).min(), j0 = b_in.dim(1).min();
    for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) b(i, j) = b_in(i0 + i, j0 + j);

    const Halide::Target t = Halide::get_jit_target_from_environment();
    build_pc_dual(t);
    build_pc_primal(t);
    build_ladmm_x(t);
    build_ladmm_zu(t);
}

void HandwrittenTV::Impl::build_pc_dual(const Halide::Target& t) {
    using Halide::select;
    for (ImageParam* p : {&d_x, &d_xp, &d_y}) constrain(*p, d_x);
    Var i("i"), j("j"), c("c"), jo("jo"), ji("ji"), io("io"), ii("ii");
    Expr Wd = d_x.width(), Hd = d_x.height();

    Func xc = clamped2(d_x, Wd, Hd, "xc"), xpc = clamped2(d_xp, Wd, Hd, "xpc");
    Func xbar("xbar");  // inlined
    xbar(i, j) = xc(i, j) + d_theta * (xc(i, j) - xpc(i, j));
    Func v("v");  // y + sigma grad xbar, inlined
    v(i, j, c) = d_y(i, j, c) + d_sigma * select(c == 0, xbar(i + 1, j) - xbar(i, j), xbar(i, j + 1) - xbar(i, j));
    // Projection factor alpha / max(alpha, ||v_p||), written so that alpha = 0 is safe.
    Func scale("scale");
    Expr n = Halide::sqrt(v(i, j, 0) * v(i, j, 0) + v(i, j, 1) * v(i, j, 1));
    scale(i, j) = select(n > d_alpha, d_alpha / n, 1.0f);
    Func out("y_new");
    out(i, j, c) = v(i, j, c) * scale(i, j);

    // Schedule: strips of kStrip rows in parallel; per row, 16-wide vectors along i with
    // both channels unrolled inside the vector loop, so one pass over the row computes
    // v for the pixel, its norm once, and stores both channels. The projection factor
    // stays inline: computing it per strip (scale.compute_at(out, jo)) or per row
    // (compute_at(out, ji)) and re-reading it made the PC iteration 1.7-1.9x slower
    // (1 thread: 512^2 0.31 vs 0.17 ms, 1024^2 1.7 vs 1.0 ms).
    // Measured, dual alone: 512^2 0.077-0.080 ms, 1024^2 0.33-0.35 ms.
    out.bound(c, 0, 2)
        .split(j, jo, ji, kStrip, TailStrategy::GuardWithIf)
        .split(i, io, ii, kVec, TailStrategy::GuardWithIf)
        .reorder(ii, c, io, ji, jo)
        .unroll(c)
        .vectorize(ii)
        .parallel(jo);

    constrain(out.output_buffer(), d_x);
    p_dual = Halide::Pipeline(out);
    p_dual.compile_jit(t);
}

void HandwrittenTV::Impl::build_pc_primal(const Halide::Target& t) {
    for (ImageParam* p : {&q_x, &q_y, &q_b}) constrain(*p, q_x);
    Var i("i"), j("j"), jo("jo"), ji("ji");
    Expr Wd = q_x.width(), Hd = q_x.height();
    auto yat = [&](const Expr& a, const Expr& bb, int ch) { return q_y(a, bb, ch); };
    Expr at = adjoint(yat, i, j, Wd, Hd);
    Expr inv = 1.0f / (1.0f + 2.0f * q_tau);
    Func out("x_new");
    out(i, j) = (q_x(i, j) - q_tau * at + 2.0f * q_tau * q_b(i, j)) * inv;

    // Schedule: a single stage, everything inline (the adjoint reads y at (i,j), (i-1,j)
    // and (i,j-1): dense unaligned vector loads once the loop is partitioned).
    // Measured: 512^2 0.039-0.041 ms, 1024^2 0.17-0.18 ms.
    out.split(j, jo, ji, kStrip, TailStrategy::GuardWithIf)
        .vectorize(i, kVec, TailStrategy::GuardWithIf)
        .parallel(jo);

    constrain(out.output_buffer(), q_x);
    p_primal = Halide::Pipeline(out);
    p_primal.compile_jit(t);
}

void HandwrittenTV::Impl::build_ladmm_x(const Halide::Target& t) {
    using Halide::select;
    for (ImageParam* p : {&l_x, &l_z, &l_u, &l_b}) constrain(*p, l_x);
    Var i("i"), j("j"), c("c"), jo("jo"), ji("ji");
    Expr Wd = l_x.width(), Hd = l_x.height();

    Func xc = clamped2(l_x, Wd, Hd, "xc");
    Func r("r");  // grad x - z + u, computed per strip, read by the adjoint
    r(i, j, c) = select(c == 0, xc(i + 1, j) - xc(i, j), xc(i, j + 1) - xc(i, j)) - l_z(i, j, c) + l_u(i, j, c);
    auto rat = [&](const Expr& a, const Expr& bb, int ch) { return r(a, bb, ch); };
    Expr at = adjoint(rat, i, j, Wd, Hd);
    Expr inv = 1.0f / (1.0f + 2.0f * l_mu);
    Func out("x_new");
    out(i, j) = (l_x(i, j) - (l_mu / l_lambda) * at + 2.0f * l_mu * l_b(i, j)) * inv;

    out.split(j, jo, ji, kStrip, TailStrategy::GuardWithIf)
        .vectorize(i, kVec, TailStrategy::GuardWithIf)
        .parallel(jo);
    // r = grad x - z + u is read at three positions by the adjoint ((i,j), (i-1,j),
    // (i,j-1)), so it is computed once per strip (plus the halo row above) into a
    // small scratch buffer that stays in L2, channels unrolled, 16-wide vectors.
    // Whole L-ADMM iteration, 1 thread, 1024^2: per strip 1.6 ms; per output row
    // (compute_at(out, ji), recomputing the halo row) 1.9 ms; sliding window (store_at
    // jo, compute_at ji) no better; r fully inline within noise of per strip.
    // Measured, x-update alone: 512^2 0.098-0.101 ms, 1024^2 0.53-0.56 ms.
    r.compute_at(out, jo)
        .reorder(i, c, j)
        .unroll(c)
        .vectorize(i, kVec, TailStrategy::GuardWithIf);

    constrain(out.output_buffer(), l_x);
    p_lx = Halide::Pipeline(out);
    p_lx.compile_jit(t);
}

void HandwrittenTV::Impl::build_ladmm_zu(const Halide::Target& t) {
    using Halide::select;
    for (ImageParam* p : {&s_x, &s_u}) constrain(*p, s_x);
    Var i("i"), j("j"), c("c"), jo("jo"), ji("ji"), io("io"), ii("ii");
    Expr Wd = s_x.width(), Hd = s_x.height();

    Func xc = clamped2(s_x, Wd, Hd, "xc");
    Func v("v2");  // grad x_new + u, inlined
    v(i, j, c) = select(c == 0, xc(i + 1, j) - xc(i, j), xc(i, j + 1) - xc(i, j)) + s_u(i, j, c);
    Func shrink("shrink");  // max(0, 1 - k/||v_p||), 0 where ||v_p|| <= k (incl. v_p = 0)
    Expr n = Halide::sqrt(v(i, j, 0) * v(i, j, 0) + v(i, j, 1) * v(i, j, 1));
    shrink(i, j) = select(n > s_k, 1.0f - s_k / n, 0.0f);
    Func out("zu_new");
    Expr zv = v(i, j, c) * shrink(i, j);
    out(i, j, c) = Halide::Tuple(zv, v(i, j, c) - zv);

    // Schedule: as the PC dual. Strips of rows in parallel, 16-wide vectors along i,
    // channel unrolled inside the vector loop, the shrink factor inline (computed once
    // per pixel for both channels and both outputs). shrink.compute_at(out, jo) was
    // ~1.4x slower for the whole L-ADMM iteration (1 thread, 512^2: 0.36 vs 0.26 ms).
    // Measured, (z,u)-update alone: 512^2 0.057-0.059 ms, 1024^2 0.34-0.36 ms.
    out.bound(c, 0, 2)
        .split(j, jo, ji, kStrip, TailStrategy::GuardWithIf)
        .split(i, io, ii, kVec, TailStrategy::GuardWithIf)
        .reorder(ii, c, io, ji, jo)
        .unroll(c)
        .vectorize(ii)
        .parallel(jo);

    // Only the first output of a Tuple may be constrained (the second has the same bounds).
    constrain(out.output_buffers()[0], s_x);
    out.output_buffers()[1].dim(0).set_stride(1);
    p_zu = Halide::Pipeline(out);
    p_zu.compile_jit(t);
}

HandwrittenTV::HandwrittenTV(const Halide::Runtime::Buffer<float>& b, float alpha)
    : impl_(std::make_unique<Impl>(b, alpha)) {
    reset();
}

HandwrittenTV::~HandwrittenTV() = default;
HandwrittenTV::HandwrittenTV(HandwrittenTV&&) noexcept = default;
HandwrittenTV& HandwrittenTV::operator=(HandwrittenTV&&) noexcept = default;

void HandwrittenTV::reset() {
    Impl& m = *impl_;
    for (Halide::Buffer<float>* buf : {&m.x, &m.xs, &m.y, &m.ys, &m.z, &m.zs, &m.u, &m.us}) buf->fill(0.0f);
}

void HandwrittenTV::pc_iteration(float sigma, float tau, float theta) {
    Impl& m = *impl_;
    // Dual: ys <- proj(y + sigma grad(x + theta (x - x_prev))), x_prev lives in xs.
    m.d_x.set(m.x);
    m.d_xp.set(m.xs);
    m.d_y.set(m.y);
    m.d_sigma.set(sigma);
    m.d_theta.set(theta);
    m.d_alpha.set(m.alpha);
    m.p_dual.realize(m.ys);
    std::swap(m.y, m.ys);
    // Primal: x_prev is no longer needed, so x_new overwrites it; then x_prev <- x, x <- x_new.
    m.q_x.set(m.x);
    m.q_y.set(m.y);
    m.q_b.set(m.b);
    m.q_tau.set(tau);
    m.p_primal.realize(m.xs);
    std::swap(m.x, m.xs);
}

void HandwrittenTV::ladmm_iteration(float lambda, float mu) {
    Impl& m = *impl_;
    m.l_x.set(m.x);
    m.l_z.set(m.z);
    m.l_u.set(m.u);
    m.l_b.set(m.b);
    m.l_lambda.set(lambda);
    m.l_mu.set(mu);
    m.p_lx.realize(m.xs);
    std::swap(m.x, m.xs);

    m.s_x.set(m.x);
    m.s_u.set(m.u);
    m.s_k.set(lambda * m.alpha);
    Halide::Realization zu(m.zs, m.us);
    m.p_zu.realize(zu);
    std::swap(m.z, m.zs);
    std::swap(m.u, m.us);
}

const Halide::Runtime::Buffer<float>& HandwrittenTV::x() const { return *impl_->x.get(); }

double HandwrittenTV::objective() const {
    const Impl& m = *impl_;
    const Halide::Runtime::Buffer<float>& xv = *m.x.get();
    const Halide::Runtime::Buffer<float>& bv = *m.b.get();
    double fid = 0.0, tv = 0.0;
    for (int j = 0; j < m.H; ++j) {
        for (int i = 0; i < m.W; ++i) {
            const double xi = xv(i, j);
            const double d = xi - static_cast<double>(bv(i, j));
            fid += d * d;
            const double gx = i + 1 < m.W ? static_cast<double>(xv(i + 1, j)) - xi : 0.0;
            const double gy = j + 1 < m.H ? static_cast<double>(xv(i, j + 1)) - xi : 0.0;
            tv += std::sqrt(gx * gx + gy * gy);
        }
    }
    return fid + static_cast<double>(m.alpha) * tv;
}

int HandwrittenTV::width() const { return impl_->W; }
int HandwrittenTV::height() const { return impl_->H; }
float HandwrittenTV::alpha() const { return impl_->alpha; }

}  // namespace proxgen::bench
