// HandwrittenTV on top of the baselines (handwritten_tv.hpp).
#include "handwritten_tv.hpp"

#include "baseline.hpp"

namespace proxgen::bench {

struct HandwrittenTV::Impl {
    Halide::Runtime::Buffer<float> b;
    TVProblem problem;
    std::unique_ptr<Baseline> pc, ladmm;
    Baseline* last = nullptr;
    Halide::Runtime::Buffer<const float> x;
};

HandwrittenTV::HandwrittenTV(const Halide::Runtime::Buffer<float>& b, float alpha) : impl_(std::make_unique<Impl>()) {
    impl_->b = b.copy();
    impl_->problem.b = impl_->b;
    impl_->problem.alpha = alpha;
    Steps s;
    s.tau = s.sigma = s.lambda = s.mu = 1.0f;  // replaced by every call's steps
    impl_->pc = make_baseline(BaselineAlgorithm::pock_chambolle, impl_->problem, s);
    impl_->ladmm = make_baseline(BaselineAlgorithm::ladmm, impl_->problem, s);
    reset();
}

HandwrittenTV::~HandwrittenTV() = default;
HandwrittenTV::HandwrittenTV(HandwrittenTV&&) noexcept = default;
HandwrittenTV& HandwrittenTV::operator=(HandwrittenTV&&) noexcept = default;

void HandwrittenTV::reset() {
    impl_->pc->reset();
    impl_->ladmm->reset();
    impl_->last = impl_->pc.get();
    impl_->x = impl_->last->x_view();
}

void HandwrittenTV::pc_iteration(float sigma, float tau, float theta) {
    Steps s;
    s.sigma = sigma, s.tau = tau, s.theta = theta;
    impl_->pc->set_steps(s);
    impl_->pc->run(1);
    impl_->last = impl_->pc.get();
    impl_->x = impl_->last->x_view();
}

void HandwrittenTV::ladmm_iteration(float lambda, float mu) {
    Steps s;
    s.lambda = lambda, s.mu = mu;
    impl_->ladmm->set_steps(s);
    impl_->ladmm->run(1);
    impl_->last = impl_->ladmm.get();
    impl_->x = impl_->last->x_view();
}

const Halide::Runtime::Buffer<const float>& HandwrittenTV::x() const { return impl_->x; }
double HandwrittenTV::objective() const { return tv_objective(impl_->problem, impl_->x); }
int HandwrittenTV::width() const { return impl_->b.dim(0).extent(); }
int HandwrittenTV::height() const { return impl_->b.dim(1).extent(); }
float HandwrittenTV::alpha() const { return impl_->problem.alpha; }

}  // namespace proxgen::bench
