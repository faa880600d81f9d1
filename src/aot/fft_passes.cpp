// The passes of the ahead-of-time FFT. A 2-D transform of a run-time size cannot be one Halide
// pipeline (Halide's own apps/fft fixes N when the pipeline is defined), so each pass is a
// pipeline of its own whose sizes are buffer extents and strides, and the header-only driver
// (include/proxgen/aot/fft.hpp) chains them for the factorization of each size.
//
// Layout: complex arrays are float buffers with the real and imaginary parts interleaved (dim 0,
// extent 2, stride 1). Every transform runs down the columns of such an array (along dim 2) and is
// vectorized across them (dim 1), so that every load and store is dense; the 2-D transform
// transforms the columns, transposes, and transforms the columns again.
//
// A radix-R pass is one Stockham step (autosorting, out of place): with p the product of the
// radices already applied and N the transform length, element (x, k + b·p + q·N/R) of the input
// (k < p, b < N/(pR), q < R) is multiplied by the twiddle e^{sign·2πi·qk/(pR)}, the R-point DFT of
// those R values is taken, and its output j goes to (x, k + j·p + b·p·R). The driver passes the
// input as the 5-D view (c, x, k, b, q) and the output as (c, x, k, j, b) of the same memory, so
// the pipeline only sees affine buffers; p and N are their extents.
//
// Argument orders (the driver's contract; "(2, a, b)" is an interleaved complex a × b array):
//   radix<R>        in (c, x, k, b, q), tw (2, p, R) = e^{+2πi·qk/(pR)}, sign (float ±1) → out (c, x, k, j, b)
//   transpose       in → out with its two spatial axes swapped: (x, y) → (y, x) as 64-bit units
//                   (a complex value) on CPU targets (dense loads, 8 x 8 tiles), (2, x, y) →
//                   (2, y, x) floats on GPU targets (some GPU APIs lack 64-bit types)
//   copy            in (2, a, b) → out (2, a', b'), a' ≤ a, b' ≤ b (a crop)
//   r2c_post        z (2, H, M), tw (2, M+1) = e^{−2πik/W} → out (2, H, M+1)      [W = 2M]
//   c2r_pre         f (2, H, M+1), tw (2, M) = e^{+2πik/W}, scale → out (2, H, M)
//   c2r_pre_gain    f, gain (H, M+1), tw, scale → out (2, H, M)
//   widen           in (W, H) → out (2, W, H)
//   narrow          in (2, W, H) → out (W, H)                                       [real part]
//   hermitian       f (2, H, W/2+1), scale → out (2, H, W)                          [odd W]
//   hermitian_gain  f, gain (H, W/2+1), scale → out (2, H, W)
//   chirp           in (2, a, ≥ min(n, n_in) rows), t (2, ≥ min(n, n_in)), n_in (int) → out (2, a, n):
//                   out(x, r) = in(x, r)·t(r) for r < n_in, else 0
//   dct_reorder     in (W, H) → out (W, H)                     [Makhoul's order on both axes]
//   dct_restore     in (W, H) → out (W, H)                     [its inverse]
//   dct_post        v (2, H, W/2+1), ta (2, H), tb (2, W/2+1), width → out (H, W)
//   dct_pre         y (H, W), ta, tb, scale → out (2, H, W/2+1)
//   dct_pre_gain    y, gain (H, W), ta, tb, scale → out (2, H, W/2+1)
// with ta(k2) = e^{−iπ·k2/2H}, tb(k1) = e^{−iπ·k1/2W}. The spectra are transposed with respect to
// FFTW's (the row frequency ky is the fast axis): the last transform runs along x, and a transpose
// back would cost a pass.
#include "fft_passes.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>

#include <fmt/format.h>

#include "../lower/lowering.hpp"
#include "proxgen/aot/fft_kernels.hpp"
#include "proxgen/error.hpp"

namespace proxgen::aot::fft {

namespace {

using namespace Halide;

struct Cx {
    Expr re, im;
};
Cx operator+(const Cx& a, const Cx& b) { return {a.re + b.re, a.im + b.im}; }
Cx operator-(const Cx& a, const Cx& b) { return {a.re - b.re, a.im - b.im}; }
Cx operator*(const Cx& a, const Cx& b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
Cx operator*(const Cx& a, Expr s) { return {a.re * s, a.im * s}; }
Cx conj(const Cx& a) { return {a.re, -a.im}; }
Cx times_i(const Cx& a) { return {-a.im, a.re}; }

/// a · e^{sign·iθ} for a constant angle θ and a run-time sign (±1), without multiplying by the
/// parts of e^{iθ} that are 0 or ±1.
Cx rotate(const Cx& a, double theta, const Expr& sign) {
    const double c = std::cos(theta), s = std::sin(theta), eps = 1e-12;
    if (std::abs(s) < eps) return c > 0 ? a : Cx{-a.re, -a.im};
    const Expr ss = sign * float(s);  // a scalar: hoisted out of the vector loops
    if (std::abs(c) < eps) return {-a.im * ss, a.re * ss};
    return {a.re * float(c) - a.im * ss, a.re * ss + a.im * float(c)};
}

/// Values of a butterfly materialized as one Tuple Func (2 elements per complex value), read back
/// as Cx. Halide does not share subexpressions between the elements of a Tuple, so the DFT is
/// built in stages, each a Func of small expressions over the previous one (one expression tree
/// per output would repeat the whole R-point sum R times: R² work and minutes of code generation).
class Stages {
public:
    Stages(std::vector<Var> vars, std::string prefix) : vars_(std::move(vars)), prefix_(std::move(prefix)) {}
    std::vector<Cx> operator()(const std::vector<Cx>& values) {
        std::vector<Expr> parts;
        for (const Cx& v : values) {
            parts.push_back(v.re);
            parts.push_back(v.im);
        }
        Func f(prefix_ + std::to_string(funcs.size()));
        f(vars_) = Tuple(parts);
        funcs.push_back(f);
        std::vector<Expr> at(vars_.begin(), vars_.end());
        std::vector<Cx> out;
        for (std::size_t i = 0; i < values.size(); ++i) out.push_back({f(at)[2 * i], f(at)[2 * i + 1]});
        return out;
    }
    std::vector<Func> funcs;

private:
    std::vector<Var> vars_;
    std::string prefix_;
};

/// The R-point DFT X_j = Σ_q a_q e^{sign·2πi·jq/R}, each level a stage. Powers of two: iterative
/// radix-2 decimation in time (bit-reversed inputs, log2 R levels of butterflies). Odd R: the
/// symmetric pairs q, R − q (sums and differences, then a real cosine and sine sum per pair of
/// outputs j, R − j).
std::vector<Cx> small_dft(std::vector<Cx> a, const Expr& sign, Stages& stage) {
    const int R = int(a.size());
    const double tau = 2 * std::numbers::pi;
    if ((R & (R - 1)) == 0) {
        int bits = 0;
        while ((1 << bits) < R) ++bits;
        std::vector<Cx> A(R);
        for (int i = 0; i < R; ++i) {
            int rev = 0;
            for (int b = 0; b < bits; ++b) rev |= ((i >> b) & 1) << (bits - 1 - b);
            A[rev] = a[i];
        }
        for (int h = 1; h < R; h *= 2) {
            std::vector<Cx> B(R);
            for (int block = 0; block < R; block += 2 * h)
                for (int j = 0; j < h; ++j) {
                    const Cx u = A[block + j], v = rotate(A[block + j + h], tau * j / (2 * h), sign);
                    B[block + j] = u + v;
                    B[block + j + h] = u - v;
                }
            A = stage(B);
        }
        return A;
    }
    const int h = (R - 1) / 2;
    std::vector<Cx> pairs{a[0]};  // a_0, then sum_q, diff_q for q = 1..h
    for (int q = 1; q <= h; ++q) {
        pairs.push_back(a[q] + a[R - q]);
        pairs.push_back(a[q] - a[R - q]);
    }
    pairs = stage(pairs);
    std::vector<Cx> X(R);
    X[0] = pairs[0];
    for (int q = 1; q <= h; ++q) X[0] = X[0] + pairs[2 * q - 1];
    for (int j = 1; j <= h; ++j) {
        Cx c = pairs[0], s{0.0f, 0.0f};
        for (int q = 1; q <= h; ++q) {
            const float cs = float(std::cos(tau * j * q / R)), sn = float(std::sin(tau * j * q / R));
            c = c + pairs[2 * q - 1] * Expr(cs);
            s = s + pairs[2 * q] * (sign * sn);
        }
        X[j] = c + times_i(s);
        X[R - j] = c - times_i(s);
    }
    return stage(X);
}

struct Schedule {
    Target target;
    bool gpu = false;
    int vec = 8;
};

Schedule current_schedule() {
    Schedule s;
    s.target = lower::schedule_target();
    s.gpu = lower::schedule_kind() == lower::ScheduleKind::gpu;
    s.vec = s.target.natural_vector_size<float>();
    return s;
}

/// An interleaved complex input: (2, a, b...), dense pairs.
ImageParam complex_input(int dims, const std::string& name) {
    ImageParam p(Float(32), dims, name);
    p.dim(0).set_bounds(0, 2).set_stride(1);
    p.dim(1).set_stride(2);
    return p;
}

void complex_output(Func out) {
    out.output_buffer().dim(0).set_bounds(0, 2).set_stride(1);
    out.output_buffer().dim(1).set_stride(2);
}

Cx load(ImageParam& p, const std::vector<Expr>& at) {
    std::vector<Expr> re{0}, im{1};
    re.insert(re.end(), at.begin(), at.end());
    im.insert(im.end(), at.begin(), at.end());
    return {p(re), p(im)};
}

/// The index H − l for l ≥ 1 and 0 for l = 0 (the conjugate partner of frequency l), written so
/// that Halide's loop partitioning leaves a dense reversed load in the steady state (l ≥ 1).
Expr mirror(const Expr& l, const Expr& n) { return select(l == 0, 0, min(likely(n - l), n - 1)); }

/// An elementwise pass over out(c, i, r) (complex) or out(i, r) (real): rows in parallel, vectors
/// along i (the two parts of a complex value unrolled, so stores stay dense); one GPU kernel.
void schedule_rows(Func out, bool complex, const Schedule& s) {
    std::vector<Var> v = out.args();
    Var c = v[0], i = complex ? v[1] : v[0], r = complex ? v[2] : v[1];
    if (complex) out.bound(c, 0, 2).unroll(c);
    Var io("io"), ii("ii"), ro("ro"), ri("ri");
    if (s.gpu) {
        out.gpu_tile(i, r, io, ro, ii, ri, 32, 8, TailStrategy::GuardWithIf);
        return;
    }
    out.split(i, io, ii, s.vec, TailStrategy::GuardWithIf).vectorize(ii);
    out.split(r, ro, ri, 4, TailStrategy::GuardWithIf).parallel(ro);
}

PassPipeline radix_pass(int R, const Schedule& s) {
    ImageParam in = complex_input(5, "in");
    ImageParam tw(Float(32), 3, "tw");
    tw.dim(0).set_bounds(0, 2).set_stride(1);
    Param<float> sign("sign");
    Var c("c"), x("x"), k("k"), j("j"), b("b");
    Stages stage({x, k, b}, "butterfly" + std::to_string(R) + "_");
    std::vector<Cx> a(R);
    for (int q = 0; q < R; ++q) {
        a[q] = load(in, {x, k, b, q});
        if (q > 0) a[q] = a[q] * Cx{tw(0, k, q), sign * tw(1, k, q)};
    }
    const auto X = small_dft(stage(a), sign, stage);
    std::vector<Expr> re, im;
    for (const Cx& v : X) {
        re.push_back(v.re);
        im.push_back(v.im);
    }
    Func out("radix" + std::to_string(R));
    out(c, x, k, j, b) = select(c == 0, mux(j, re), mux(j, im));
    complex_output(out);
    out.output_buffer().dim(3).set_bounds(0, R);
    out.bound(c, 0, 2).bound(j, 0, R);
    Var xo("xo"), xi("xi"), kb("kb");
    if (s.gpu) {
        Var bx("bx"), bkb("bkb"), tx("tx"), tkb("tkb");
        out.reorder(c, j, x, k, b).unroll(c).unroll(j).fuse(k, b, kb);
        out.gpu_tile(x, kb, bx, bkb, tx, tkb, 32, 4, TailStrategy::GuardWithIf);
        for (Func f : stage.funcs) f.compute_at(out, tx);
    } else {
        // per butterfly group (k, b) and vector of columns: the R twiddled loads, the DFT's
        // levels in registers, R dense stores; groups in parallel
        out.split(x, xo, xi, s.vec, TailStrategy::GuardWithIf)
            .reorder(c, xi, j, xo, k, b)
            .unroll(c)
            .vectorize(xi)
            .unroll(j)
            .fuse(k, b, kb)
            .parallel(kb);
        for (Func f : stage.funcs) f.compute_at(out, xo).vectorize(x, s.vec, TailStrategy::GuardWithIf);
    }
    return {"radix" + std::to_string(R), Pipeline(out), {in, tw, sign}};
}

PassPipeline transpose_pass(const Schedule& s) {
    Var c("c"), x("x"), y("y");
    Func out("transpose");
    if (s.gpu) {
        ImageParam in = complex_input(3, "in");
        out(c, y, x) = in(c, x, y);
        complex_output(out);
        schedule_rows(out, true, s);
        return {"transpose", Pipeline(out), {in}};
    }
    // a complex value as one 64-bit unit: 8 x 8 tiles, each row of a tile one vector
    ImageParam in(UInt(64), 2, "in");
    out(y, x) = in(x, y);
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    out.tile(y, x, yo, xo, yi, xi, 8, 8, TailStrategy::GuardWithIf).vectorize(yi).unroll(xi).parallel(xo);
    return {"transpose", Pipeline(out), {in}};
}

PassPipeline copy_pass(const Schedule& s) {
    ImageParam in = complex_input(3, "in");
    Var c("c"), x("x"), y("y");
    Func out("copy");
    out(c, x, y) = in(c, x, y);
    complex_output(out);
    schedule_rows(out, true, s);
    return {"copy", Pipeline(out), {in}};
}

PassPipeline r2c_post_pass(const Schedule& s) {
    ImageParam z = complex_input(3, "z"), tw = complex_input(2, "tw");
    Var c("c"), l("l"), k("k");
    const Expr H = z.dim(1).extent(), M = z.dim(2).extent();
    // Z = DFT(even samples) + i DFT(odd samples); both are Hermitian, so with B = conj Z(−l, −k):
    // F = (Z + B)/2 + e^{−2πik/W} (Z − B)/2i
    const Expr ka = select(k < M, min(k, M - 1), 0), kb = select(k == 0, 0, clamp(M - k, 0, M - 1));
    const Cx A = load(z, {l, ka}), B = conj(load(z, {mirror(l, H), kb}));
    const Cx even = (A + B) * 0.5f, d = (A - B) * 0.5f, odd{d.im, -d.re};
    const Cx F = even + Cx{tw(0, k), tw(1, k)} * odd;
    Func out("r2c_post");
    out(c, l, k) = select(c == 0, F.re, F.im);
    complex_output(out);
    schedule_rows(out, true, s);
    return {"r2c_post", Pipeline(out), {z, tw}};
}

/// c2r_pre and c2r_pre_gain: the even and odd half-spectra of the packed signal from F and its
/// conjugate partner, recombined as Z = (E + i O)·scale (FFTW's unnormalized c2r scale: 2·E).
PassPipeline c2r_pre_pass(bool gain, const Schedule& s) {
    ImageParam f = complex_input(3, "f"), tw = complex_input(2, "tw");
    ImageParam g(Float(32), 2, "gain");
    Param<float> scale("scale");
    Var c("c"), l("l"), k("k");
    const Expr H = f.dim(1).extent(), M = f.dim(2).extent() - 1;
    const Expr lm = mirror(l, H), km = clamp(M - k, 1, M);
    Cx A = load(f, {l, k}), B = conj(load(f, {lm, km}));
    if (gain) {
        A = A * g(l, k);
        B = B * g(lm, km);
    }
    const Cx even = A + B, odd = (A - B) * Cx{tw(0, k), tw(1, k)};
    const Cx Z = (even + times_i(odd)) * scale;
    Func out(gain ? "c2r_pre_gain" : "c2r_pre");
    out(c, l, k) = select(c == 0, Z.re, Z.im);
    complex_output(out);
    schedule_rows(out, true, s);
    std::vector<Argument> args{f};
    if (gain) args.push_back(g);
    args.push_back(tw);
    args.push_back(scale);
    return {out.name(), Pipeline(out), args};
}

PassPipeline widen_pass(const Schedule& s) {
    ImageParam in(Float(32), 2, "in");
    Var c("c"), x("x"), y("y");
    Func out("widen");
    out(c, x, y) = select(c == 0, in(x, y), 0.0f);
    complex_output(out);
    schedule_rows(out, true, s);
    return {"widen", Pipeline(out), {in}};
}

PassPipeline narrow_pass(const Schedule& s) {
    ImageParam in = complex_input(3, "in");
    Var x("x"), y("y");
    Func out("narrow");
    out(x, y) = in(0, x, y);
    schedule_rows(out, false, s);
    return {"narrow", Pipeline(out), {in}};
}

/// The full spectrum of an odd-width real image from its half: G(l, k) = conj F(−l, W − k) for
/// k > W/2.
PassPipeline hermitian_pass(bool gain, const Schedule& s) {
    ImageParam f = complex_input(3, "f");
    ImageParam g(Float(32), 2, "gain");
    Param<float> scale("scale");
    Var c("c"), l("l"), k("k");
    const Expr H = f.dim(1).extent(), half = f.dim(2).extent() - 1, W = 2 * half + 1;
    const Expr lm = mirror(l, H), ka = min(k, half), km = clamp(W - k, 0, half);
    Cx A = load(f, {l, ka}), B = conj(load(f, {lm, km}));
    if (gain) {
        A = A * g(l, ka);
        B = B * g(lm, km);
    }
    const Expr low = k <= half;
    Func out(gain ? "hermitian_gain" : "hermitian");
    out(c, l, k) = select(c == 0, select(low, A.re, B.re), select(low, A.im, B.im)) * scale;
    complex_output(out);
    schedule_rows(out, true, s);
    std::vector<Argument> args{f};
    if (gain) args.push_back(g);
    args.push_back(scale);
    return {out.name(), Pipeline(out), args};
}

PassPipeline chirp_pass(const Schedule& s) {
    ImageParam in = complex_input(3, "in"), t = complex_input(2, "t");
    Param<int> n_in("n_in");
    Var c("c"), x("x"), r("r");
    const Expr row = min(r, n_in - 1);  // rows from n_in on are 0: read nothing there
    const Cx v = load(in, {x, row}) * Cx{t(0, row), t(1, row)};
    Func out("chirp");
    out(c, x, r) = select(r < n_in, select(c == 0, v.re, v.im), 0.0f);
    complex_output(out);
    schedule_rows(out, true, s);
    return {"chirp", Pipeline(out), {in, t, n_in}};
}

/// Makhoul's order along an axis of n samples: even samples ascending, then odd ones descending.
Expr makhoul(const Expr& i, const Expr& n) { return select(2 * i < n, min(2 * i, n - 1), clamp(2 * (n - i) - 1, 0, n - 1)); }
/// Its inverse: sample i sits at i/2 (even) or n − 1 − i/2 (odd).
Expr makhoul_inverse(const Expr& i, const Expr& n) { return select(i % 2 == 0, i / 2, clamp(n - 1 - i / 2, 0, n - 1)); }

PassPipeline dct_permute_pass(bool restore, const Schedule& s) {
    ImageParam in(Float(32), 2, "in");
    Var x("x"), y("y");
    const Expr W = in.dim(0).extent(), H = in.dim(1).extent();
    Func out(restore ? "dct_restore" : "dct_reorder");
    if (restore) out(x, y) = in(makhoul_inverse(x, W), makhoul_inverse(y, H));
    else out(x, y) = in(makhoul(x, W), makhoul(y, H));
    schedule_rows(out, false, s);
    return {out.name(), Pipeline(out), {in}};
}

/// From the r2c spectrum V of the reordered image (transposed: (2, H, W/2+1)) to the DCT-II
/// coefficients X (FFTW's REDFT10 in 2-D), stored transposed, (H, W): with Q = a V(k1, k2) +
/// ā V(k1, −k2), a = ta(k2), and z = tb(k1) Q, X(k1, k2) = 2 Re z and X(W − k1, k2) = −2 Im z.
PassPipeline dct_post_pass(const Schedule& s) {
    ImageParam v = complex_input(3, "v"), ta = complex_input(2, "ta"), tb = complex_input(2, "tb");
    Param<int> width("width");
    Var k2("k2"), k1("k1");
    const Expr H = v.dim(1).extent(), half = v.dim(2).extent() - 1;
    const Expr low = k1 <= half, row = select(low, min(k1, half), clamp(width - k1, 0, half));
    const Cx a{ta(0, k2), ta(1, k2)};
    const Cx Q = a * load(v, {k2, row}) + conj(a) * load(v, {mirror(k2, H), row});
    const Cx z = Cx{tb(0, row), tb(1, row)} * Q;
    Func out("dct_post");
    out(k2, k1) = select(low, 2.0f * z.re, -2.0f * z.im);
    schedule_rows(out, false, s);
    return {"dct_post", Pipeline(out), {v, ta, tb, width}};
}

/// The inverse (FFTW's REDFT01 in 2-D, i.e. 4·W·H times the inverse of dct_post's transform):
/// Q'(k1, k2) = conj(tb(k1)) (Y(k1, k2) − i Y(W − k1, k2)) with Y(W, ·) = 0, then
/// V'(k1, k2) = conj(ta(k2)) (Q'(k1, k2) − i Q'(k1, H − k2)) with Q'(·, H) = 0, times scale.
PassPipeline dct_pre_pass(bool gain, const Schedule& s) {
    ImageParam y(Float(32), 2, "y"), g(Float(32), 2, "gain");
    ImageParam ta = complex_input(2, "ta"), tb = complex_input(2, "tb");
    Param<float> scale("scale");
    Var c("c"), k2("k2"), k1("k1");
    const Expr H = y.dim(0).extent(), W = y.dim(1).extent();
    const Expr k2m = mirror(k2, H), k1m = clamp(W - k1, 0, W - 1);
    auto at = [&](const Expr& i2, const Expr& i1) { return gain ? y(i2, i1) * g(i2, i1) : y(i2, i1); };
    // Q' at (k1, k2) and at (k1, H − k2)
    auto q = [&](const Expr& i2) {
        const Expr im = select(k1 == 0, 0.0f, at(i2, k1m));
        return conj(Cx{tb(0, k1), tb(1, k1)}) * Cx{at(i2, k1), -im};
    };
    const Cx q0 = q(k2), q1raw = q(k2m);
    const Cx q1{select(k2 == 0, 0.0f, q1raw.re), select(k2 == 0, 0.0f, q1raw.im)};
    const Cx V = conj(Cx{ta(0, k2), ta(1, k2)}) * (q0 - times_i(q1)) * scale;
    Func out(gain ? "dct_pre_gain" : "dct_pre");
    out(c, k2, k1) = select(c == 0, V.re, V.im);
    complex_output(out);
    schedule_rows(out, true, s);
    std::vector<Argument> args{y};
    if (gain) args.push_back(g);
    args.push_back(ta);
    args.push_back(tb);
    args.push_back(scale);
    return {out.name(), Pipeline(out), args};
}

}  // namespace

std::vector<PassPipeline> pass_pipelines() {
    const Schedule s = current_schedule();
    std::vector<PassPipeline> p;
    for (int r : kRadices) p.push_back(radix_pass(r, s));
    p.push_back(transpose_pass(s));
    p.push_back(copy_pass(s));
    p.push_back(r2c_post_pass(s));
    p.push_back(c2r_pre_pass(false, s));
    p.push_back(c2r_pre_pass(true, s));
    p.push_back(widen_pass(s));
    p.push_back(narrow_pass(s));
    p.push_back(hermitian_pass(false, s));
    p.push_back(hermitian_pass(true, s));
    p.push_back(chirp_pass(s));
    p.push_back(dct_permute_pass(false, s));
    p.push_back(dct_permute_pass(true, s));
    p.push_back(dct_post_pass(s));
    p.push_back(dct_pre_pass(false, s));
    p.push_back(dct_pre_pass(true, s));
    // a pass is named after its output Func, which Halide makes unique in the process ("name$1"
    // where a Func of that name was made before, e.g. by an earlier call): the entry points keep
    // the plain name the driver's header expects
    for (PassPipeline& pass : p) pass.name = pass.name.substr(0, pass.name.find('$'));
    return p;
}

std::vector<Halide::Module> pass_modules(const std::string& prefix, const Halide::Target& target) {
    std::vector<Halide::Module> modules;
    for (auto& pass : pass_pipelines())
        modules.push_back(pass.pipeline.compile_to_module(pass.arguments, prefix + "_" + pass.name, target));
    return modules;
}

std::string kernels_header(const std::string& prefix, const std::string& pipelines_header,
                           const Halide::Target& target) {
    std::string radix;
    for (std::size_t i = 0; i < std::size(kRadices); ++i)
        radix += fmt::format("    k.radix[{}] = &{}_radix{}_argv;\n", i, prefix, kRadices[i]);
    std::string entries;
    for (const char* e : {"transpose", "copy", "r2c_post", "c2r_pre", "c2r_pre_gain", "widen", "narrow", "hermitian",
                          "hermitian_gain", "chirp", "dct_reorder", "dct_restore", "dct_post", "dct_pre",
                          "dct_pre_gain"})
        entries += fmt::format("    k.{} = &{}_{}_argv;\n", e, prefix, e);
    const bool gpu = target.has_gpu_feature();
    return fmt::format(R"(// Generated by ProxGen for {target}: the FFT / DCT passes of lib {prefix}.a for the driver
// proxgen::aot::fft::Plan (proxgen/aot/fft.hpp). Needs the Halide runtime only.
#pragma once

#include "{pipelines}"
#include <proxgen/aot/fft.hpp>

inline proxgen::aot::fft::Kernels {prefix}_kernels() {{
    proxgen::aot::fft::Kernels k;
    k.version = proxgen::aot::fft::kKernelsVersion;
    k.gpu = {gpu};
{radix}{entries}    return k;
}}
)",
                       fmt::arg("target", target.to_string()), fmt::arg("prefix", prefix),
                       fmt::arg("pipelines", pipelines_header), fmt::arg("gpu", gpu ? "true" : "false"),
                       fmt::arg("radix", radix), fmt::arg("entries", entries));
}

void emit_library(const std::string& dir, const std::string& prefix, const Halide::Target& target) {
    lower::ScheduleScope scope(target, false);
    const std::string stem = dir + "/" + prefix;
    const auto modules = pass_modules(prefix, target);
    // One object per pass: a GPU module keeps its kernels in a buffer named after the GPU API
    // alone ("cuda_gpu_source_kernels"), so modules merged into one would share the first one's.
    std::vector<std::string> objects;
    for (const auto& m : modules) {
        objects.push_back(dir + "/" + m.name() + (target.os == Halide::Target::Windows ? ".obj" : ".o"));
        m.compile({{Halide::OutputFileType::object, objects.back()}});
    }
    Halide::create_static_library(objects, target, stem + ".a");
    for (const auto& o : objects) std::remove(o.c_str());
    // the declarations of every entry point, from a module holding them all (no code generated)
    Halide::Module all = modules.front();
    for (std::size_t i = 1; i < modules.size(); ++i)
        for (const auto& f : modules[i].functions()) all.append(f);
    all.compile({{Halide::OutputFileType::c_header, stem + "_pipelines.h"}});
    std::ofstream h(stem + ".h");
    h << kernels_header(prefix, prefix + "_pipelines.h", target);
    if (!h) fail("fft: cannot write {}.h", stem);
}

}  // namespace proxgen::aot::fft
