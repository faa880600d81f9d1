// ADMM and HQS TV denoising by hand (baseline.hpp), penalty rho, from x = 0, z = u = 0:
//
//   ADMM (scaled form, Boyd et al. 2011):
//     x' = argmin ||x - b||^2 + (rho/2) ||grad x - z + u||^2,  i.e. (2 I + rho grad^T grad) x' = q,
//          q = 2 b + rho grad^T (z - u)
//     v  = grad x' + u,  z' = v max(0, 1 - (alpha/rho) / ||v_p||),  u' = v - z'
//   HQS (fixed rho; no momentum, no rho schedule):
//     x' = argmin ||x - b||^2 + (rho/2) ||grad x - z||^2,  q = 2 b + rho grad^T z
//     z' = shrink(grad x', alpha / rho)
//
// grad^T grad (Neumann, grad's convention) is diagonal in the DCT-II: the x-update is exact,
//   x' = DCT^-1[ DCT(q) / (2 + rho (2 - 2 cos(pi k / W) + 2 - 2 cos(pi l / H))) ]
// (NeumannSolver, baseline_dct.hpp: FFTW real DFTs with Makhoul's reordering for even sizes).
// Then one Halide pipeline per iteration computes the z/u
// update and the next q together: z' - u' (ADMM) or z' (HQS) is recomputed per strip of rows for
// the adjoint instead of being stored, so z itself is never written (u is ADMM's only dual state).
// Bytes per iteration (minimum): the DCT solve reads q and writes x' (2 planes) and sends the
// spectrum through memory once between the transform's passes (written and read, 2 planes; the
// divisors are computed, not read);
// the Halide step reads x', b (and ADMM: u0, u1) and writes q' (and ADMM: u0', u1'):
// ADMM 4 + 7 = 11 planes, HQS 4 + 3 = 7 planes of 4 W H bytes.
#include <cmath>
#include <stdexcept>

#include "baseline_dct.hpp"
#include "baseline_kinds.hpp"
#include "baseline_stencil.hpp"

namespace proxgen::bench::detail {

namespace {

class SplitDenoise final : public Baseline {
public:
    SplitDenoise(BaselineAlgorithm algorithm, const TVProblem& problem, const Steps& steps);
    [[nodiscard]] std::string name() const override { return admm_ ? "admm_denoise" : "hqs_denoise"; }
    void reset(const Halide::Runtime::Buffer<const float>& x0) override;
    void set_steps(const Steps& s) override;
    void run(int n) override;
    [[nodiscard]] Halide::Runtime::Buffer<const float> x_view() const override { return planes_.interior(kX); }
    [[nodiscard]] double bytes_per_iteration() const override {
        return (admm_ ? 11.0 : 7.0) * 4.0 * width() * height();
    }

private:
    // planes: 0 = b, 1 = q (the x-update's right-hand side), 2 = x, 3..6 two (u0, u1) pairs (ADMM)
    static constexpr int kB = 0, kQ = 1, kX = 2;
    void write_initial_q();

    bool admm_;
    Layout layout_;
    PlaneSet planes_;
    std::vector<Halide::Runtime::Buffer<float>> padded_, written_;
    int u_ = 0;
    int W_, H_;
    float rho_ = 0, alpha_ = 0;
    std::unique_ptr<NeumannSolver> solver_;
    JitFunction step_;
    std::vector<const void*> step_args_;
};

SplitDenoise::SplitDenoise(BaselineAlgorithm algorithm, const TVProblem& problem, const Steps& steps)
    : Baseline(problem.b.dim(0).extent(), problem.b.dim(1).extent()), admm_(algorithm == BaselineAlgorithm::admm),
      layout_(width(), height(), 32), planes_(layout_, 7), W_(width()), H_(height()), alpha_(problem.alpha) {
    for (int k = 0; k < 7; ++k) {
        padded_.push_back(planes_.padded(k));
        written_.push_back(planes_.written(k));
    }
    solver_ = std::make_unique<NeumannSolver>(layout_, 2.0f);
    // (z, u)-update and the next q, fused.
    {
        Param<int> W = size_param("W"), H = size_param("H");
        Param<float> rho{"rho"}, alpha{"alpha"};
        ImageParam x{Halide::Float(32), 2, "x"}, b{Halide::Float(32), 2, "b"}, u0{Halide::Float(32), 2, "u0"},
            u1{Halide::Float(32), 2, "u1"};
        for (ImageParam* p : {&x, &b, &u0, &u1}) constrain_input(*p);
        Var i("i"), j("j"), jo("jo"), ji("ji");
        Expr gx = masked_difference(i, W, x(i + 1, j) - x(i, j)), gy = masked_difference(j, H, x(i, j + 1) - x(i, j));
        Expr v0 = admm_ ? gx + u0(i, j) : gx, v1 = admm_ ? gy + u1(i, j) : gy;
        Expr n = Halide::sqrt(v0 * v0 + v1 * v1), k = alpha / rho;
        Expr s = Halide::select(n > k, 1.0f - k / n, 0.0f);
        // What grad^T reads: ADMM z' - u' = 2 z' - v, HQS z'. Both 0 where grad is masked
        // (v = u there, and u stays 0 in grad's last column / row and outside the image).
        Func zu("zu");
        if (admm_) zu(i, j) = Tuple(v0 * s, v1 * s, 2.0f * v0 * s - v0, 2.0f * v1 * s - v1);
        else zu(i, j) = Tuple(v0 * s, v1 * s);
        const int d = admm_ ? 2 : 0;  // the Tuple elements grad^T reads
        Expr adj = zu(i - 1, j)[d] - zu(i, j)[d] + zu(i, j - 1)[d + 1] - zu(i, j)[d + 1];
        Expr q = 2.0f * b(i, j) + rho * adj;
        Func out(admm_ ? "admm_step" : "hqs_step");
        if (admm_) out(i, j) = Tuple(q, v0 - zu(i, j)[0], v1 - zu(i, j)[1]);
        else out(i, j) = q;
        out.split(j, jo, ji, schedule_knob("PG_SPLIT_STRIP", 16), TailStrategy::GuardWithIf)
            .vectorize(i, kVec, TailStrategy::RoundUp)
            .parallel(jo);
        zu.compute_at(out, jo).align_bounds(i, kVec).vectorize(i, kVec, TailStrategy::RoundUp);
        constrain_written(out);
        std::vector<Halide::Argument> args{x, b};
        if (admm_) args.insert(args.end(), {u0, u1});
        args.insert(args.end(), {W, H, rho, alpha});
        step_ = JitFunction(Halide::Pipeline(out), args, out.name());
        step_args_ = step_.make_args();
        const std::size_t s0 = admm_ ? 5 : 3;
        const void* scalars[] = {&W_, &H_, &rho_, &alpha_};
        for (std::size_t k2 = 0; k2 < 4; ++k2) step_args_[s0 + k2] = scalars[k2];
        step_args_[2] = padded_[kB].raw_buffer();
    }
    planes_.load(kB, problem.b);
    set_steps(steps);
    reset({});
}

void SplitDenoise::set_steps(const Steps& s) {
    if (!(s.rho > 0)) throw std::invalid_argument(name() + ": rho must be > 0");
    rho_ = s.rho;
    solver_->set_rho(rho_);
}

void SplitDenoise::write_initial_q() {
    // q = 2 b + rho grad^T (z - u) with z = u = 0.
    Halide::Runtime::Buffer<float> q = planes_.interior(kQ), b = planes_.interior(kB);
    for (int j = 0; j < H_; ++j)
        for (int i = 0; i < W_; ++i) q(i, j) = 2.0f * b(i, j);
}

void SplitDenoise::reset(const Halide::Runtime::Buffer<const float>& x0) {
    for (int k = 1; k < 7; ++k) planes_.zero(k);
    u_ = 0;
    // The first x-update does not read x: an initial x0 only shows until the first iteration.
    if (x0.data() != nullptr) planes_.load(kX, x0);
    write_initial_q();
}

void SplitDenoise::run(int n) {
    if (n < 0) throw std::invalid_argument(name() + ": negative iteration count");
    for (; n > 0; --n) {
        solver_->solve(planes_, kQ, kX);
        // (z, u)-update and the next q.
        step_args_[1] = padded_[kX].raw_buffer();
        const std::size_t out0 = admm_ ? 9 : 7;
        step_args_[out0] = written_[kQ].raw_buffer();
        if (admm_) {
            const int in = 3 + 2 * u_, next = 3 + 2 * (1 - u_);
            step_args_[3] = padded_[in].raw_buffer();
            step_args_[4] = padded_[in + 1].raw_buffer();
            step_args_[out0 + 1] = written_[next].raw_buffer();
            step_args_[out0 + 2] = written_[next + 1].raw_buffer();
            u_ = 1 - u_;
        }
        step_.call(step_args_);
    }
}

}  // namespace

std::unique_ptr<Baseline> make_admm_hqs(BaselineAlgorithm algorithm, const TVProblem& problem, const Steps& steps) {
    if (problem.deconvolution()) return make_split_deconv(algorithm, problem, steps);
    return std::make_unique<SplitDenoise>(algorithm, problem, steps);
}

}  // namespace proxgen::bench::detail
