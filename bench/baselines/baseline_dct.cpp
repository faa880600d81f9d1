// See baseline_dct.hpp. Makhoul (1980), per axis of length N with v[n] = q[2n], v[N-1-n] = q[2n+1]:
//   DCT-II  X[k] = sum_m q[m] cos(pi k (2m+1) / 2N) = Re(w_k V[k]),  V = DFT(v), w_k = e^{-i pi k / 2N}
//   inverse V'[k] = conj(w_k) (Y[k] - i Y[N-k]) (Y[N] = 0), v' = IDFT(V').
// In 2-D, with U the DFT of the reordered plane, A = U[k, l], B = U[k, H-l] (l = 0: B = A):
//   P = (w_l A + conj(w_l) B) / 2,  Q = i (w_l A - conj(w_l) B) / 2,  R = w_k P,  S = w_k Q,
//   X[k,l] = Re R, X[W-k,l] = -Im R, X[k,H-l] = Re S, X[W-k,H-l] = -Im S   (Hermitian symmetry of U)
// and the inverse of Y = X / (c + rho lambda), at the stored half k <= W/2:
//   U'[k,l] = conj(w_k w_l) ((Y[k,l] - Y[W-k,H-l]) - i (Y[W-k,l] + Y[k,H-l])) / (W H),
// with Y at index W or H taken as 0. All of it is one pass over the half spectrum.
#include "baseline_dct.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "baseline_stencil.hpp"

namespace proxgen::bench::detail {

namespace {

/// 2 - 2 cos(pi k / n): the Neumann grad^T grad eigenvalue along one axis.
double neumann_eigenvalue(int k, int n) { return 2.0 - 2.0 * std::cos(std::acos(-1.0) * k / n); }

}  // namespace

struct NeumannSolver::Impl {
    Layout layout;
    float c, rho = 0;
    bool makhoul;
    PlaneSet scratch;  // 0: the reordered plane v; 1: the fallback's divisors
    std::vector<Halide::Runtime::Buffer<float>> padded, written;
    // Makhoul path
    std::unique_ptr<RealDft> dft;
    FftwArray<fftwf_complex> spectrum2;
    Halide::Runtime::Buffer<float> u_view, u2_view, ta, tb, v_halves, x_pairs;
    JitFunction reorder, spectral, restore;
    std::vector<const void*> reorder_args, spectral_args, restore_args;
    // fallback
    std::unique_ptr<RealDct> dct;
    JitFunction divide;
    std::vector<const void*> divide_args;

    Impl(const Layout& l, float c_);
    void build_makhoul();
    void build_fallback();
    void fill_tables();
};

NeumannSolver::Impl::Impl(const Layout& l, float c_)
    : layout(l), c(c_), makhoul(l.W % 2 == 0 && l.H % 2 == 0), scratch(l, 2) {
    for (int k = 0; k < 2; ++k) {
        padded.push_back(scratch.padded(k));
        written.push_back(scratch.written(k));
    }
    if (makhoul) build_makhoul();
    else build_fallback();
}

void NeumannSolver::Impl::build_makhoul() {
    const int W = layout.W, H = layout.H, hw = W / 2 + 1;
    dft = std::make_unique<RealDft>(layout, scratch.origin(0), fft_threads(W, H));
    spectrum2 = FftwArray<fftwf_complex>(std::size_t(hw) * H);
    halide_dimension_t sd[3] = {{0, 2, 1, 0}, {0, hw, 2, 0}, {0, H, 2 * hw, 0}};
    u_view = Halide::Runtime::Buffer<float>(reinterpret_cast<float*>(dft->spectrum()), 3, sd);
    u2_view = Halide::Runtime::Buffer<float>(reinterpret_cast<float*>(spectrum2.get()), 3, sd);
    ta = Halide::Runtime::Buffer<float>(4, hw);
    tb = Halide::Runtime::Buffer<float>(4, H);
    // v seen as (n, half, row): v[n] and v[W/2 + n]; x seen as (parity, n, row): x[2n + parity].
    halide_dimension_t vd[3] = {{0, W / 2, 1, 0}, {0, 2, W / 2, 0}, {0, H, layout.stride(), 0}};
    v_halves = Halide::Runtime::Buffer<float>(scratch.origin(0), 3, vd);

    Param<int> Wp = size_param("W"), Hp = size_param("H");
    Var n("n"), h("h"), j("j"), jo("jo"), ji("ji"), m("m");
    // q (natural) -> v (Makhoul order): rows reordered by index, columns by stride-2 loads of q
    // and of its reversed row (a per-row scratch: reversed loads are dense, stride -2 ones are not).
    {
        ImageParam q(Halide::Float(32), 2, "q");
        constrain_input(q);
        // clamp: a no-op per row that keeps Halide's bounds of the select (both branches) in the image
        Expr src_row = Halide::clamp(Halide::select(j < Hp / 2, 2 * j, 2 * Hp - 1 - 2 * j), 0, Hp - 1);
        Func reversed("reversed_row");
        reversed(m, j) = q(Wp - 1 - m, src_row);
        Func out("makhoul_reorder");
        out(n, h, j) = Halide::select(h == 0, q(2 * n, src_row), reversed(2 * n, j));
        out.bound(h, 0, 2).reorder(h, n, j).unroll(h);
        out.split(j, jo, ji, 16, TailStrategy::GuardWithIf).vectorize(n, kVec, TailStrategy::GuardWithIf).parallel(jo);
        reversed.compute_at(out, ji).vectorize(m, kVec, TailStrategy::GuardWithIf);
        out.output_buffer().dim(0).set_stride(1);
        reorder = JitFunction(Halide::Pipeline(out), {q, Wp, Hp}, "makhoul_reorder");
        reorder_args = reorder.make_args();
        reorder_args[2] = &layout.W;
        reorder_args[3] = &layout.H;
        reorder_args[4] = v_halves.raw_buffer();
    }
    // The spectral pass (file comment).
    {
        ImageParam U(Halide::Float(32), 3, "U"), A(Halide::Float(32), 2, "ta"), B(Halide::Float(32), 2, "tb");
        Param<float> cp("c"), rp("rho"), inv_n("inv_n");
        Var e("e"), k("k"), l("l"), lo("lo"), li("li");
        for (ImageParam* p : {&U}) p->dim(0).set_stride(1).set_bounds(0, 2);
        A.dim(0).set_stride(1), B.dim(0).set_stride(1);
        Expr lm = Halide::clamp(Halide::select(l == 0, 0, Hp - l), 0, Hp - 1);  // H - l, 0 for l = 0
        Expr ar = U(0, k, l), ai = U(1, k, l), br = U(0, k, lm), bi = U(1, k, lm);
        Expr ca = A(0, k), sa = A(1, k), cb = B(0, l), sb = B(1, l);
        // w_l A and conj(w_l) B, w = cos - i sin
        Expr war = cb * ar + sb * ai, wai = cb * ai - sb * ar;
        Expr wbr = cb * br - sb * bi, wbi = cb * bi + sb * br;
        Expr pr = 0.5f * (war + wbr), pi = 0.5f * (wai + wbi);
        Expr tr = 0.5f * (war - wbr), ti = 0.5f * (wai - wbi);
        Expr qr = -ti, qi = tr;  // Q = i T
        Expr rr = ca * pr + sa * pi, ri = ca * pi - sa * pr;
        Expr s_r = ca * qr + sa * qi, s_i = ca * qi - sa * qr;
        Expr kin = k > 0, lin = l > 0;
        Expr d1 = 1.0f / (cp + rp * (A(2, k) + B(2, l)));
        Expr d2 = Halide::select(kin, 1.0f / (cp + rp * (A(3, k) + B(2, l))), 0.0f);
        Expr d3 = Halide::select(lin, 1.0f / (cp + rp * (A(2, k) + B(3, l))), 0.0f);
        Expr d4 = Halide::select(kin && lin, 1.0f / (cp + rp * (A(3, k) + B(3, l))), 0.0f);
        Expr y1 = d1 * rr, y2 = -d2 * ri, y3 = d3 * s_r, y4 = -d4 * s_i;
        Expr gr = y1 - y4, gi = -(y2 + y3);
        // conj(w_k w_l) = (ca + i sa)(cb + i sb)
        Expr cr = ca * cb - sa * sb, ci = ca * sb + sa * cb;
        Func out("makhoul_spectral");
        out(e, k, l) = Halide::select(e == 0, cr * gr - ci * gi, cr * gi + ci * gr) * inv_n;
        out.bound(e, 0, 2).reorder(e, k, l).unroll(e);
        out.split(l, lo, li, 8, TailStrategy::GuardWithIf).vectorize(k, kVec, TailStrategy::GuardWithIf).parallel(lo);
        out.output_buffer().dim(0).set_stride(1).set_bounds(0, 2);
        spectral = JitFunction(Halide::Pipeline(out), {U, A, B, Hp, cp, rp, inv_n}, "makhoul_spectral");
        spectral_args = spectral.make_args();
        spectral_args[1] = u_view.raw_buffer();
        spectral_args[2] = ta.raw_buffer();
        spectral_args[3] = tb.raw_buffer();
        spectral_args[4] = &layout.H;
        spectral_args[5] = &c;
        spectral_args[6] = &rho;
        spectral_args[8] = u2_view.raw_buffer();
    }
    // v' (Makhoul order) -> x (natural): x[2n] = v'[n], x[2n+1] = v'[W-1-n] (a reversed, dense
    // load); the two parities unrolled so the stores interleave into dense ones.
    {
        ImageParam v(Halide::Float(32), 2, "v");
        constrain_input(v);
        Var p("p");
        Expr src_row = Halide::clamp(Halide::select(j % 2 == 0, j / 2, Hp - 1 - j / 2), 0, Hp - 1);
        Func out("makhoul_restore");
        out(p, n, j) = Halide::select(p == 0, v(n, src_row), v(Wp - 1 - n, src_row));
        out.bound(p, 0, 2).reorder(p, n, j).unroll(p);
        out.split(j, jo, ji, 16, TailStrategy::GuardWithIf).vectorize(n, kVec, TailStrategy::GuardWithIf).parallel(jo);
        out.output_buffer().dim(0).set_stride(1).set_bounds(0, 2);
        out.output_buffer().dim(1).set_stride(2);
        restore = JitFunction(Halide::Pipeline(out), {v, Wp, Hp}, "makhoul_restore");
        restore_args = restore.make_args();
        restore_args[1] = padded[0].raw_buffer();
        restore_args[2] = &layout.W;
        restore_args[3] = &layout.H;
    }
    fill_tables();
}

void NeumannSolver::Impl::fill_tables() {
    const int W = layout.W, H = layout.H, hw = W / 2 + 1;
    const double pi = std::acos(-1.0);
    for (int k = 0; k < hw; ++k) {
        ta(0, k) = float(std::cos(pi * k / (2.0 * W)));
        ta(1, k) = float(std::sin(pi * k / (2.0 * W)));
        ta(2, k) = float(neumann_eigenvalue(k, W));
        ta(3, k) = float(neumann_eigenvalue(W - k, W));
    }
    for (int l = 0; l < H; ++l) {
        tb(0, l) = float(std::cos(pi * l / (2.0 * H)));
        tb(1, l) = float(std::sin(pi * l / (2.0 * H)));
        tb(2, l) = float(neumann_eigenvalue(l, H));
        tb(3, l) = float(neumann_eigenvalue(H - l, H));
    }
}

void NeumannSolver::Impl::build_fallback() {
    dct = std::make_unique<RealDct>(layout, scratch.origin(0), fft_threads(layout.W, layout.H));
    ImageParam cf(Halide::Float(32), 2, "coefficients"), d(Halide::Float(32), 2, "divisors");
    constrain_input(cf), constrain_input(d);
    Var i("i"), j("j"), jo("jo"), ji("ji");
    Func out("dct_divide");
    out(i, j) = cf(i, j) * d(i, j);
    out.split(j, jo, ji, 16, TailStrategy::GuardWithIf).vectorize(i, kVec, TailStrategy::RoundUp).parallel(jo);
    constrain_written(out);
    divide = JitFunction(Halide::Pipeline(out), {cf, d}, "dct_divide");
    divide_args = divide.make_args();
    divide_args[2] = padded[1].raw_buffer();
}

NeumannSolver::NeumannSolver(const Layout& layout, float c) : impl_(std::make_unique<Impl>(layout, c)) {}
NeumannSolver::~NeumannSolver() = default;

void NeumannSolver::set_rho(float rho) {
    Impl& m = *impl_;
    m.rho = rho;
    if (m.makhoul) return;  // the spectral pass computes its divisors
    Halide::Runtime::Buffer<float> d = m.scratch.interior(1);
    const double n = 4.0 * m.layout.W * m.layout.H;  // REDFT01(REDFT10(x)) = 4 W H x
    for (int l = 0; l < m.layout.H; ++l)
        for (int k = 0; k < m.layout.W; ++k)
            d(k, l) = float(
                1.0 / (n * (m.c + rho * (neumann_eigenvalue(k, m.layout.W) + neumann_eigenvalue(l, m.layout.H)))));
}

void NeumannSolver::solve(const PlaneSet& planes, int q, int x) {
    Impl& m = *impl_;
    const Halide::Runtime::Buffer<float> qp = planes.padded(q);
    if (m.makhoul) {
        m.reorder_args[1] = qp.raw_buffer();
        m.reorder.call(m.reorder_args);
        m.dft->forward(m.scratch.origin(0));
        float inv_n = 1.0f / (float(m.layout.W) * float(m.layout.H));
        m.spectral_args[7] = &inv_n;
        m.spectral.call(m.spectral_args);
        m.dft->inverse(reinterpret_cast<std::complex<float>*>(m.spectrum2.get()), m.scratch.origin(0));
        halide_dimension_t xd[3] = {{0, 2, 1, 0}, {0, m.layout.W / 2, 2, 0}, {0, m.layout.H, m.layout.stride(), 0}};
        Halide::Runtime::Buffer<float> x_pairs(planes.origin(x), 3, xd);
        m.restore_args[4] = x_pairs.raw_buffer();
        m.restore.call(m.restore_args);
        return;
    }
    // Fallback: x <- q, then the DCTs in place on x.
    if (q != x)
        for (int j = 0; j < m.layout.H; ++j)
            std::memcpy(planes.origin(x) + std::size_t(j) * m.layout.stride(),
                        planes.origin(q) + std::size_t(j) * m.layout.stride(), sizeof(float) * std::size_t(m.layout.W));
    m.dct->forward(planes.origin(x));
    const Halide::Runtime::Buffer<float> xp = planes.padded(x), xw = planes.written(x);
    m.divide_args[1] = xp.raw_buffer();
    m.divide_args[3] = xw.raw_buffer();
    m.divide.call(m.divide_args);
    m.dct->inverse(planes.origin(x));
}

}  // namespace proxgen::bench::detail
