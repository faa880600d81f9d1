// ADMM and HQS TV deconvolution with nonnegativity by hand (baseline.hpp), penalty rho:
//   minimize ||k * x - b||^2 + alpha TV(x) + nonneg(x), split z1 = grad x, z2 = x.
// One iteration (ADMM; HQS: u = 0 and no dual update), from x = 0, z = u = 0:
//   x' = argmin ||k*x - b||^2 + (rho/2) ||grad x - z1 + u1||^2 + (rho/2) ||x - z2 + u2||^2, i.e.
//        A x' = q,  A = 2 K^T K + rho (grad^T grad + I),  q = 2 K^T b + rho (grad^T (z1 - u1) + z2 - u2)
//   z1' = shrink(grad x' + u1, alpha/rho), z2' = max(x' + u2, 0), u' = u + K x' - z'
// The x-update is ProxGen's: preconditioned conjugate gradients from the previous x, preconditioner
// P = A with grad made periodic (circulant: one real FFT pair solves it), stopped once
// ||r|| <= cg_tol ||r_0|| or after cg_max_iters steps (Steps; 1e-3 and 50 by default, as ProxGen's
// Options). Written as an expert would:
//  - A = P + E with E = rho (grad^T grad - periodic grad^T grad), nonzero on the border only:
//    (E v)(0, j) = rho (v(W-1, j) - v(0, j)), (E v)(W-1, j) = rho (v(0, j) - v(W-1, j)), and the
//    same along columns. PCG's A p is P p + E p, and P p follows the recurrence
//    P p' = r' + beta P p (p' = P^-1 r' + beta p), so each CG step needs ONE FFT pair (P^-1 r)
//    instead of two; P x is kept beside x the same way (x += a p, P x += a P p).
//  - p . A p = p . P p - rho (sum_j (p(W-1,j) - p(0,j))^2 + sum_i (p(i,H-1) - p(i,0))^2).
//  - The z/u-update, q and r_0 = q - P x - E x are one Halide pipeline (z is never stored); CG's
//    vector steps are Halide pipelines (x, P x, r updated together; p, P p together) and dot
//    products are Halide reductions in float64 over strips of rows.
// Bytes per iteration (minimum, m = CG steps of the last iteration, planes of 4 W H bytes): the
// z/u pass reads x, P x, 2 K^T b (and ADMM u: 3) and writes r_0 (and u: 3); each CG step reads
// r and writes z (the spectrum: one round trip, 2 planes; the divisors, 0.5), updates p, P p from
// z, r (6 planes), x, P x, r from p, P p (8 planes): ADMM 10 + 16.5 m, HQS 4 + 16.5 m.
#include <cmath>
#include <stdexcept>

#include "baseline_fft.hpp"
#include "baseline_kinds.hpp"
#include "baseline_stencil.hpp"

namespace proxgen::bench::detail {

namespace {

using Halide::RDom;

constexpr int kStrip = 16;

ImageParam plane(const char* name) {
    ImageParam p(Halide::Float(32), 2, name);
    constrain_input(p);
    return p;
}

/// Strips of rows in parallel, 16-wide vectors, over the written region.
void schedule_rows(Func& out) {
    Var i = out.args()[0], j = out.args()[1], jo("jo"), ji("ji");
    out.split(j, jo, ji, kStrip, TailStrategy::GuardWithIf).vectorize(i, kVec, TailStrategy::RoundUp).parallel(jo);
    constrain_written(out);
}

class SplitDeconv final : public Baseline {
public:
    SplitDeconv(BaselineAlgorithm algorithm, const TVProblem& problem, const Steps& steps);
    [[nodiscard]] std::string name() const override { return admm_ ? "admm_deconv" : "hqs_deconv"; }
    void reset(const Halide::Runtime::Buffer<const float>& x0) override;
    void set_steps(const Steps& s) override;
    void run(int n) override;
    [[nodiscard]] Halide::Runtime::Buffer<const float> x_view() const override { return planes_.interior(kX); }
    [[nodiscard]] double cg_steps_per_iteration() const override {
        return iterations_ > 0 ? double(cg_steps_) / iterations_ : 0.0;
    }
    [[nodiscard]] double bytes_per_iteration() const override {
        return ((admm_ ? 10.0 : 4.0) + 16.5 * last_cg_steps_) * 4.0 * width() * height();
    }

private:
    // planes
    static constexpr int kX = 0, kPx = 1, kKtb = 2, kR = 3, kZ = 4, kP = 5, kPp = 6, kU = 7;  // kU..kU+5: two u sets
    void iteration();
    void precondition();            // z = P^-1 r
    double dot(int a, int b);       // sum over the interior, float64
    double border_term(int p);      // p . E p
    void apply_p_to_x();            // P x from x (reset with x0)

    bool admm_;
    Layout layout_;
    PlaneSet planes_;
    std::vector<Halide::Runtime::Buffer<float>> padded_, written_;
    int u_ = 0;
    int W_, H_;
    float rho_ = 0, alpha_ = 0, cg_a_ = 0, cg_b_ = 0;
    double cg_tol_ = 1e-3;
    int cg_max_iters_ = 50;
    int last_cg_steps_ = 0;
    long cg_steps_ = 0, iterations_ = 0;  // since the last reset

    std::unique_ptr<RealDft> dft_;
    std::vector<std::complex<float>> kernel_hat_;
    FftwArray<float> inverse_, forward_;  // 1 / (N P^) and P^ / N, H x (W/2 + 1)
    Halide::Runtime::Buffer<float> spec_view_, inverse_view_, forward_view_;
    std::vector<double> partial_sums_;
    Halide::Runtime::Buffer<double> partial_view_;

    JitFunction zu_, dot_, step_, direction_, scale_;
    std::vector<const void*> zu_args_, dot_args_, step_args_, direction_args_, scale_args_;
};

SplitDeconv::SplitDeconv(BaselineAlgorithm algorithm, const TVProblem& problem, const Steps& steps)
    : Baseline(problem.b.dim(0).extent(), problem.b.dim(1).extent()), admm_(algorithm == BaselineAlgorithm::admm),
      layout_(width(), height(), 32), planes_(layout_, 13), W_(width()), H_(height()), alpha_(problem.alpha) {
    for (int k = 0; k < 13; ++k) {
        padded_.push_back(planes_.padded(k));
        written_.push_back(planes_.written(k));
    }
    const int hw = W_ / 2 + 1;
    dft_ = std::make_unique<RealDft>(layout_, planes_.origin(kR), fft_threads(W_, H_));  // before any data
    kernel_hat_ = kernel_spectrum(problem.kernel, W_, H_);
    inverse_ = FftwArray<float>(std::size_t(hw) * H_);
    forward_ = FftwArray<float>(std::size_t(hw) * H_);
    spec_view_ = Halide::Runtime::Buffer<float>(reinterpret_cast<float*>(dft_->spectrum()), 2 * hw, H_);
    inverse_view_ = Halide::Runtime::Buffer<float>(inverse_.get(), hw, H_);
    forward_view_ = Halide::Runtime::Buffer<float>(forward_.get(), hw, H_);
    const int strips = (H_ + kStrip - 1) / kStrip;
    partial_sums_.assign(std::size_t(kVec) * strips, 0.0);
    partial_view_ = Halide::Runtime::Buffer<double>(partial_sums_.data(), kVec, strips);

    Param<int> W = size_param("W"), H = size_param("H");
    Param<float> rho{"rho"}, alpha{"alpha"}, a{"a"}, beta{"beta"};
    Var i("i"), j("j"), jo("jo"), ji("ji");
    // E v at (i, j): the border correction of the periodic Laplacian (header comment).
    auto border = [&](const ImageParam& v) {
        Expr col = Halide::select(i == 0, v(W - 1, j) - v(0, j), i == W - 1, v(0, j) - v(W - 1, j), 0.0f);
        Expr row = Halide::select(j == 0, v(i, H - 1) - v(i, 0), j == H - 1, v(i, 0) - v(i, H - 1), 0.0f);
        return rho * (col + row);
    };
    // --- z/u-update, q and r0 = q - P x - E x
    {
        ImageParam x = plane("x"), px = plane("px"), ktb = plane("ktb2"), u0 = plane("u0"), u1 = plane("u1"),
                   u2 = plane("u2");
        Expr gx = masked_difference(i, W, x(i + 1, j) - x(i, j)), gy = masked_difference(j, H, x(i, j + 1) - x(i, j));
        Expr v0 = admm_ ? gx + u0(i, j) : gx, v1 = admm_ ? gy + u1(i, j) : gy, v2 = admm_ ? x(i, j) + u2(i, j) : x(i, j);
        Expr n = Halide::sqrt(v0 * v0 + v1 * v1), k = alpha / rho;
        Expr s = Halide::select(n > k, 1.0f - k / n, 0.0f);
        Expr z2 = Halide::max(v2, 0.0f);
        Func d("d");  // z - u (ADMM: 2 z - v) or z (HQS): what q's adjoint reads
        if (admm_) d(i, j) = Tuple(2.0f * v0 * s - v0, 2.0f * v1 * s - v1, 2.0f * z2 - v2);
        else d(i, j) = Tuple(v0 * s, v1 * s, z2);
        Expr q = ktb(i, j) + rho * (grad_adjoint(d, i, j) + d(i, j)[2]);
        Expr r0 = q - px(i, j) - border(x);
        Func out(admm_ ? "admm_deconv_zu" : "hqs_deconv_zu");
        if (admm_) out(i, j) = Tuple(r0, v0 - v0 * s, v1 - v1 * s, v2 - z2);
        else out(i, j) = r0;
        schedule_rows(out);
        d.compute_at(out, Var("jo")).align_bounds(i, kVec).vectorize(i, kVec, TailStrategy::RoundUp);
        std::vector<Halide::Argument> args{x, px, ktb};
        if (admm_) args.insert(args.end(), {u0, u1, u2});
        args.insert(args.end(), {W, H, rho, alpha});
        zu_ = JitFunction(Halide::Pipeline(out), args, out.name());
        zu_args_ = zu_.make_args();
    }
    // --- dot products: float64 partial sums per lane and strip of rows
    {
        ImageParam p = plane("a"), q = plane("b");
        Var l("l"), s("s");
        RDom r(0, (W + kVec - 1) / kVec, 0, kStrip, "r");
        Func dot("dot");
        Expr col = r.x * kVec + l, row = s * kStrip + r.y;
        dot(l, s) = Halide::cast<double>(0);
        // Rows past H and columns past W contribute nothing (both are read in bounds: the
        // margin and the written region's last columns are allocated).
        Expr in = col < W && row < H;
        dot(l, s) += Halide::select(in, Halide::cast<double>(p(col, Halide::min(row, H - 1))) *
                                            Halide::cast<double>(q(col, Halide::min(row, H - 1))),
                                    Halide::cast<double>(0));
        dot.bound(l, 0, kVec).vectorize(l).parallel(s);
        dot.update(0).vectorize(l).parallel(s);
        dot_ = JitFunction(Halide::Pipeline(dot), {p, q, W, H}, "split_deconv_dot");
        dot_args_ = dot_.make_args();
    }
    // --- x += a p, P x += a P p, r -= a (P p + E p)
    {
        ImageParam x = plane("x"), px = plane("px"), r = plane("r"), p = plane("p"), pp = plane("pp");
        Func out("cg_step");
        out(i, j) = Tuple(x(i, j) + a * p(i, j), px(i, j) + a * pp(i, j), r(i, j) - a * (pp(i, j) + border(p)));
        schedule_rows(out);
        step_ = JitFunction(Halide::Pipeline(out), {x, px, r, p, pp, W, H, rho, a}, "split_deconv_cg_step");
        step_args_ = step_.make_args();
    }
    // --- p = z + beta p, P p = r + beta P p
    {
        ImageParam z = plane("z"), r = plane("r"), p = plane("p"), pp = plane("pp");
        Func out("cg_direction");
        out(i, j) = Tuple(z(i, j) + beta * p(i, j), r(i, j) + beta * pp(i, j));
        schedule_rows(out);
        direction_ = JitFunction(Halide::Pipeline(out), {z, r, p, pp, beta}, "split_deconv_cg_direction");
        direction_args_ = direction_.make_args();
    }
    // --- spectrum *= real factor (P^-1 or P)
    {
        ImageParam S(Halide::Float(32), 2, "spectrum"), D(Halide::Float(32), 2, "factor");
        constrain_input(S), constrain_input(D);
        Var f("f"), r("r"), ro("ro"), ri("ri");
        Func out("spectral_scale");
        out(f, r) = S(f, r) * D(f / 2, r);
        out.split(r, ro, ri, 8, TailStrategy::GuardWithIf).vectorize(f, kVec, TailStrategy::GuardWithIf).parallel(ro);
        out.output_buffer().dim(0).set_stride(1);
        scale_ = JitFunction(Halide::Pipeline(out), {S, D}, "spectral_scale");
        scale_args_ = scale_.make_args();
        scale_args_[1] = spec_view_.raw_buffer();
        scale_args_[3] = spec_view_.raw_buffer();  // in place
    }
    // 2 K^T b, once.
    {
        std::vector<std::complex<float>> bh = image_spectrum(problem.b);
        const double inv_n = 1.0 / (double(W_) * H_);
        for (std::size_t k = 0; k < bh.size(); ++k)
            dft_->spectrum()[k] = std::complex<float>(2.0 * inv_n * std::conj(std::complex<double>(kernel_hat_[k])) *
                                                      std::complex<double>(bh[k]));
        dft_->inverse(planes_.origin(kKtb));
    }
    set_steps(steps);
    reset({});
}

void SplitDeconv::set_steps(const Steps& s) {
    if (!(s.rho > 0)) throw std::invalid_argument(name() + ": rho must be > 0");
    if (!(s.cg_tol > 0) || s.cg_max_iters < 1)
        throw std::invalid_argument(name() + ": cg_tol must be > 0 and cg_max_iters >= 1");
    cg_tol_ = s.cg_tol, cg_max_iters_ = s.cg_max_iters;
    if (s.rho == rho_) return;
    rho_ = s.rho;
    const int hw = W_ / 2 + 1;
    const double two_pi = 2 * std::acos(-1.0), n = double(W_) * H_;
    for (int l = 0; l < H_; ++l)
        for (int k = 0; k < hw; ++k) {
            const std::size_t e = std::size_t(l) * hw + k;
            const double lap = 4.0 - 2.0 * std::cos(two_pi * k / W_) - 2.0 * std::cos(two_pi * l / H_);
            const double p = 2.0 * std::norm(std::complex<double>(kernel_hat_[e])) + rho_ * (lap + 1.0);
            inverse_.get()[e] = float(1.0 / (n * p));
            forward_.get()[e] = float(p / n);
        }
    // P x changes with rho: recompute it from x.
    apply_p_to_x();
}

void SplitDeconv::apply_p_to_x() {
    dft_->forward(planes_.origin(kX));
    scale_args_[2] = forward_view_.raw_buffer();
    scale_.call(scale_args_);
    dft_->inverse(planes_.origin(kPx));
}

void SplitDeconv::reset(const Halide::Runtime::Buffer<const float>& x0) {
    for (int k = 0; k < 13; ++k)
        if (k != kKtb) planes_.zero(k);
    u_ = 0;
    cg_steps_ = iterations_ = 0;
    if (x0.data() != nullptr) {
        planes_.load(kX, x0);
        apply_p_to_x();
    }
}

void SplitDeconv::precondition() {
    dft_->forward(planes_.origin(kR));
    scale_args_[2] = inverse_view_.raw_buffer();
    scale_.call(scale_args_);
    dft_->inverse(planes_.origin(kZ));
}

double SplitDeconv::dot(int a, int b) {
    dot_args_[1] = padded_[a].raw_buffer();
    dot_args_[2] = padded_[b].raw_buffer();
    dot_args_[3] = &W_;
    dot_args_[4] = &H_;
    dot_args_[5] = partial_view_.raw_buffer();
    dot_.call(dot_args_);
    double s = 0;
    for (double v : partial_sums_) s += v;
    return s;
}

double SplitDeconv::border_term(int p) {
    const Halide::Runtime::Buffer<float> v = planes_.interior(p);
    double s = 0;
    for (int j = 0; j < H_; ++j) s += std::pow(double(v(W_ - 1, j)) - v(0, j), 2);
    for (int i = 0; i < W_; ++i) s += std::pow(double(v(i, H_ - 1)) - v(i, 0), 2);
    return -double(rho_) * s;
}

void SplitDeconv::iteration() {
    // z/u-update and r0.
    std::size_t k = 1;
    for (int p : {kX, kPx, kKtb}) zu_args_[k++] = padded_[p].raw_buffer();
    const int u_in = kU + 3 * u_, u_out = kU + 3 * (1 - u_);
    if (admm_)
        for (int c = 0; c < 3; ++c) zu_args_[k++] = padded_[u_in + c].raw_buffer();
    for (const void* s : {static_cast<const void*>(&W_), static_cast<const void*>(&H_), static_cast<const void*>(&rho_),
                          static_cast<const void*>(&alpha_)})
        zu_args_[k++] = s;
    zu_args_[k++] = written_[kR].raw_buffer();
    if (admm_) {
        for (int c = 0; c < 3; ++c) zu_args_[k++] = written_[u_out + c].raw_buffer();
        u_ = 1 - u_;
    }
    zu_.call(zu_args_);
    // Preconditioned CG on A x = q from the current x (warm start).
    const double r0 = dot(kR, kR), stop = cg_tol_ * cg_tol_ * r0;
    double rr = r0, rz = 0;
    last_cg_steps_ = 0;
    for (int step = 0; step < cg_max_iters_ && r0 > 0 && rr > stop; ++step) {
        precondition();
        const double rz_next = dot(kR, kZ);
        cg_b_ = step == 0 ? 0.0f : float(rz_next / rz);
        rz = rz_next;
        direction_args_[1] = padded_[kZ].raw_buffer();
        direction_args_[2] = padded_[kR].raw_buffer();
        direction_args_[3] = padded_[kP].raw_buffer();
        direction_args_[4] = padded_[kPp].raw_buffer();
        direction_args_[5] = &cg_b_;
        direction_args_[6] = written_[kP].raw_buffer();
        direction_args_[7] = written_[kPp].raw_buffer();
        direction_.call(direction_args_);
        const double pap = dot(kP, kPp) + border_term(kP);
        if (!(pap > 0) || !(rz > 0)) break;
        cg_a_ = float(rz / pap);
        const int in[] = {kX, kPx, kR, kP, kPp};
        for (int c = 0; c < 5; ++c) step_args_[std::size_t(1 + c)] = padded_[in[c]].raw_buffer();
        step_args_[6] = &W_;
        step_args_[7] = &H_;
        step_args_[8] = &rho_;
        step_args_[9] = &cg_a_;
        step_args_[10] = written_[kX].raw_buffer();
        step_args_[11] = written_[kPx].raw_buffer();
        step_args_[12] = written_[kR].raw_buffer();
        step_.call(step_args_);
        rr = dot(kR, kR);
        ++last_cg_steps_;
    }
    cg_steps_ += last_cg_steps_;
    ++iterations_;
}

void SplitDeconv::run(int n) {
    if (n < 0) throw std::invalid_argument(name() + ": negative iteration count");
    for (; n > 0; --n) iteration();
}

}  // namespace

std::unique_ptr<Baseline> make_split_deconv(BaselineAlgorithm algorithm, const TVProblem& problem, const Steps& steps) {
    return std::make_unique<SplitDeconv>(algorithm, problem, steps);
}

}  // namespace proxgen::bench::detail
