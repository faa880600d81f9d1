// Pock–Chambolle TV deconvolution with nonnegativity, by hand (baseline.hpp):
//   minimize ||k * x - b||^2 + alpha TV(x) + nonneg(x),  K = [grad; I] split off, the quadratic
//   absorbed by the x-update (diagonal in the DFT), as ProxGen plans it.
// One iteration:
//   1. one Halide pipeline (strips of rows, the TV dual recomputed per strip for its adjoint):
//        y' = proj_alpha(y + sigma grad xbar),  w' = min(w + sigma xbar, 0),
//        r  = x - tau (grad^T y' + w'),          xbar = x + theta (x - x_prev)
//   2. x' = argmin ||k * u - b||^2 + ||u - r||^2 / (2 tau) = F^-1[(F r + 2 tau conj(K) B) / (1 + 2 tau |K|^2)]:
//      FFTW real DFT of r (planned once, 2 threads, read straight from the padded plane), one Halide
//      pass S <- S D + C with D = 1 / (N (1 + 2 tau |K|^2)) and C = 2 tau conj(K) B D precomputed,
//      and the inverse DFT written straight into the next x plane.
// Bytes per iteration (the minimum such an iteration moves): the Halide step reads x, x_prev, y0,
// y1, w and writes y0, y1, w, r (9 planes); the solve reads r and writes x' (2), reads C and D
// (1.5 planes: H (W/2+1) complex and real) and sends the spectrum through memory once between the
// transform's passes (written and read, 2 planes): 14.5 planes of 4 W H bytes.
#include <stdexcept>

#include "baseline_fft.hpp"
#include "baseline_kinds.hpp"
#include "baseline_stencil.hpp"

namespace proxgen::bench::detail {

namespace {

/// S <- S D + C on a half spectrum seen as floats: S, C of 2 (W/2+1) x H, D of (W/2+1) x H.
JitFunction build_spectral_filter(const std::string& name) {
    ImageParam S(Halide::Float(32), 2, "spectrum"), D(Halide::Float(32), 2, "scale"),
        C(Halide::Float(32), 2, "offset");
    for (ImageParam* p : {&S, &D, &C}) constrain_input(*p);
    Var f("f"), r("r"), ro("ro"), ri("ri");
    Func out(name);
    out(f, r) = S(f, r) * D(f / 2, r) + C(f, r);
    out.split(r, ro, ri, 8, TailStrategy::GuardWithIf).vectorize(f, kVec, TailStrategy::GuardWithIf).parallel(ro);
    out.output_buffer().dim(0).set_stride(1);
    return JitFunction(Halide::Pipeline(out), {S, D, C}, name);
}

class PCDeconv final : public Baseline {
public:
    PCDeconv(const TVProblem& problem, const Steps& steps);
    [[nodiscard]] std::string name() const override { return "pc_deconv"; }
    void reset(const Halide::Runtime::Buffer<const float>& x0) override;
    void set_steps(const Steps& s) override;
    void run(int n) override;
    [[nodiscard]] Halide::Runtime::Buffer<const float> x_view() const override { return planes_.interior(x_); }
    [[nodiscard]] double bytes_per_iteration() const override { return 14.5 * 4.0 * width() * height(); }

private:
    // planes: 0..2 x (rotating), 3..5 and 6..8 two (y0, y1, w) sets, 9 the x-update's input r
    static constexpr int kR = 9;
    Layout layout_;
    PlaneSet planes_;
    std::vector<Halide::Runtime::Buffer<float>> padded_, written_;
    int x_ = 0, xp_ = 1, dual_set_ = 0;
    int W_, H_;
    float sigma_ = 0, tau_ = 0, theta_ = 1, alpha_ = 0;

    std::unique_ptr<RealDft> dft_;
    std::vector<std::complex<float>> kernel_hat_, b_hat_;
    FftwArray<float> scale_, offset_;  // D and C of the header comment
    Halide::Runtime::Buffer<float> spec_view_, scale_view_, offset_view_;

    JitFunction dual_step_, filter_;
    std::vector<const void*> dual_args_, filter_args_;
};

PCDeconv::PCDeconv(const TVProblem& problem, const Steps& steps)
    : Baseline(problem.b.dim(0).extent(), problem.b.dim(1).extent()), layout_(width(), height(), 32),
      planes_(layout_, 10), W_(width()), H_(height()), alpha_(problem.alpha) {
    for (int k = 0; k < 10; ++k) {
        padded_.push_back(planes_.padded(k));
        written_.push_back(planes_.written(k));
    }
    const int hw = W_ / 2 + 1;
    // Plan before any plane holds data (FFTW_MEASURE writes into the arrays it plans on).
    dft_ = std::make_unique<RealDft>(layout_, planes_.origin(kR), fft_threads(W_, H_));
    kernel_hat_ = kernel_spectrum(problem.kernel, W_, H_);
    b_hat_ = image_spectrum(problem.b);
    scale_ = FftwArray<float>(std::size_t(hw) * H_);
    offset_ = FftwArray<float>(std::size_t(2 * hw) * H_);
    spec_view_ = Halide::Runtime::Buffer<float>(reinterpret_cast<float*>(dft_->spectrum()), 2 * hw, H_);
    scale_view_ = Halide::Runtime::Buffer<float>(scale_.get(), hw, H_);
    offset_view_ = Halide::Runtime::Buffer<float>(offset_.get(), 2 * hw, H_);
    set_steps(steps);

    // The fused dual step.
    Param<int> W = size_param("W"), H = size_param("H");
    Param<float> sigma{"sigma"}, tau{"tau"}, theta{"theta"}, alpha{"alpha"};
    ImageParam x{Halide::Float(32), 2, "x"}, xp{Halide::Float(32), 2, "x_prev"}, y0{Halide::Float(32), 2, "y0"},
        y1{Halide::Float(32), 2, "y1"}, w{Halide::Float(32), 2, "w"};
    for (ImageParam* q : {&x, &xp, &y0, &y1, &w}) constrain_input(*q);
    Var i("i"), j("j"), jo("jo"), ji("ji");
    const Func fx = wrap_plane(x), fxp = wrap_plane(xp);
    Func fy("y_in");
    fy(i, j) = Tuple(y0(i, j), y1(i, j));
    Func dual = tv_dual(fx, fxp, fy, sigma, theta, alpha, W, H, "dual");
    Expr wn = Halide::min(w(i, j) + sigma * (x(i, j) + theta * (x(i, j) - xp(i, j))), 0.0f);
    Expr r = x(i, j) - tau * (grad_adjoint(dual, i, j) + wn);
    Func out("pc_deconv_dual");
    out(i, j) = Tuple(dual(i, j)[0], dual(i, j)[1], wn, r);
    out.split(j, jo, ji, schedule_knob("PG_PCD_STRIP", 16), TailStrategy::GuardWithIf)
        .vectorize(i, kVec, TailStrategy::RoundUp)
        .parallel(jo);
    dual.compute_at(out, jo).align_bounds(i, kVec).vectorize(i, kVec, TailStrategy::RoundUp);
    constrain_written(out);
    dual_step_ = JitFunction(Halide::Pipeline(out), {x, xp, y0, y1, w, W, H, sigma, tau, theta, alpha}, "pc_deconv_dual");
    dual_args_ = dual_step_.make_args();
    const void* scalars[] = {&W_, &H_, &sigma_, &tau_, &theta_, &alpha_};
    for (int k = 0; k < 6; ++k) dual_args_[6 + k] = scalars[k];

    filter_ = build_spectral_filter("pc_deconv_filter");
    filter_args_ = filter_.make_args();
    filter_args_[1] = spec_view_.raw_buffer();
    filter_args_[2] = scale_view_.raw_buffer();
    filter_args_[3] = offset_view_.raw_buffer();
    filter_args_[4] = spec_view_.raw_buffer();  // in place
    reset({});
}

void PCDeconv::set_steps(const Steps& s) {
    if (!(s.tau > 0 && s.sigma > 0)) throw std::invalid_argument("pc_deconv: tau and sigma must be > 0");
    sigma_ = s.sigma, theta_ = s.theta;
    if (s.tau == tau_) return;
    tau_ = s.tau;
    const double n = double(W_) * H_;
    for (std::size_t k = 0; k < kernel_hat_.size(); ++k) {
        const std::complex<double> K = kernel_hat_[k], B = b_hat_[k];
        const double d = 1.0 / (n * (1.0 + 2.0 * tau_ * std::norm(K)));
        const std::complex<double> c = 2.0 * tau_ * std::conj(K) * B * d;
        scale_.get()[k] = float(d);
        offset_.get()[2 * k] = float(c.real());
        offset_.get()[2 * k + 1] = float(c.imag());
    }
}

void PCDeconv::reset(const Halide::Runtime::Buffer<const float>& x0) {
    for (int k = 0; k < 10; ++k) planes_.zero(k);
    x_ = 0, xp_ = 1, dual_set_ = 0;
    if (x0.data() != nullptr) {
        planes_.load(x_, x0);
        planes_.load(xp_, x0);
    }
}

void PCDeconv::run(int n) {
    if (n < 0) throw std::invalid_argument("pc_deconv: negative iteration count");
    for (; n > 0; --n) {
        const int in = 3 + 3 * dual_set_, out = 3 + 3 * (1 - dual_set_), xn = 3 - x_ - xp_;
        dual_args_[1] = padded_[x_].raw_buffer();
        dual_args_[2] = padded_[xp_].raw_buffer();
        for (int c = 0; c < 3; ++c) {
            dual_args_[std::size_t(3 + c)] = padded_[in + c].raw_buffer();
            dual_args_[std::size_t(12 + c)] = written_[out + c].raw_buffer();
        }
        dual_args_[15] = written_[kR].raw_buffer();
        dual_step_.call(dual_args_);
        dft_->forward(planes_.origin(kR));
        filter_.call(filter_args_);
        dft_->inverse(planes_.origin(xn));
        xp_ = x_, x_ = xn, dual_set_ = 1 - dual_set_;
    }
}

}  // namespace

std::unique_ptr<Baseline> make_pc_deconv(const TVProblem& problem, const Steps& steps) {
    return std::make_unique<PCDeconv>(problem, steps);
}

}  // namespace proxgen::bench::detail
