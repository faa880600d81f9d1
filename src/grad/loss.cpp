// The losses of proxgen/grad.hpp, the names of the gradient modes and steps, and the image helpers
// the steppers share (steppers.hpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "../check/inputs.hpp"
#include "../solve/algorithm_rows.hpp"
#include "proxgen/error.hpp"
#include "proxgen/grad.hpp"
#include "steppers.hpp"

namespace proxgen {

const char* name(GradientMode m) { return m == GradientMode::unrolled ? "unrolled" : "implicit"; }

std::vector<std::string> step_names(Algorithm a) {
    if (a == Algorithm::automatic) fail("step_names: automatic chooses an algorithm when solving; name one");
    std::vector<std::string> names;
    for (std::string_view n : detail::algorithm_row(a).step_names)
        if (!n.empty()) names.emplace_back(n);
    return names;
}

// ---- losses ----------------------------------------------------------------------------------------

Loss Loss::sum_squares(Image reference) {
    if (reference.empty()) fail("Loss::sum_squares: the reference image is empty");
    check::finite(reference, "Loss::sum_squares: the reference image");
    Loss l;
    l.kind_ = Kind::sum_squares;
    l.image_ = std::move(reference);
    return l;
}
Loss Loss::psnr(Image reference, double peak) {
    if (reference.empty()) fail("Loss::psnr: the reference image is empty");
    if (!(peak > 0 && std::isfinite(peak))) fail("Loss::psnr: the peak must be finite and > 0, got {}", peak);
    check::finite(reference, "Loss::psnr: the reference image");
    Loss l;
    l.kind_ = Kind::psnr;
    l.image_ = std::move(reference);
    l.peak_ = peak;
    return l;
}
Loss Loss::gradient(Image dloss_dx) {
    if (dloss_dx.empty()) fail("Loss::gradient: dL/dx is empty");
    check::finite(dloss_dx, "Loss::gradient: dL/dx");
    Loss l;
    l.kind_ = Kind::given;
    l.image_ = std::move(dloss_dx);
    return l;
}
const char* Loss::kind() const {
    return kind_ == Kind::sum_squares ? "sum_squares" : kind_ == Kind::psnr ? "psnr" : "given dL/dx";
}
void Loss::check(const Image& x) const {
    if (x.sizes() != image_.sizes())
        fail("gradient: {} is {} but the variable is {}", kind_ == Kind::given ? "dL/dx" : "the loss's reference",
             image_.shape_string(), x.shape_string());
}
double Loss::value(const Image& x) const {
    check(x);
    if (kind_ == Kind::given) return std::numeric_limits<double>::quiet_NaN();
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double d = double(x.data()[i]) - image_.data()[i];
        s += d * d;
    }
    if (kind_ == Kind::sum_squares) return s;
    const double mse = s / double(x.size());
    return 10.0 * std::log10(peak_ * peak_ / mse);
}
Image Loss::gradient_at(const Image& x) const {
    check(x);
    if (kind_ == Kind::given) return image_.copy();
    Image g(x.sizes());
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double d = double(x.data()[i]) - image_.data()[i];
        s += d * d;
    }
    // PSNR = 10 log10(peak²) − 10 log10(s/n): dPSNR/dx = −(10/ln 10) · 2 (x − ref)/s
    const double f = kind_ == Kind::sum_squares ? 2.0 : -20.0 / (std::log(10.0) * std::max(s, 1e-300));
    for (std::size_t i = 0; i < x.size(); ++i) g.data()[i] = float(f * (double(x.data()[i]) - image_.data()[i]));
    return g;
}

namespace gradients {

void copy_into(const Image& src, Image& dst) {
    PROXGEN_INTERNAL_ASSERT(src.size() == dst.size());
    std::copy(src.data(), src.data() + src.size(), dst.data());
}
void scale_into(const Image& src, double s, Image& dst) {
    PROXGEN_INTERNAL_ASSERT(src.size() == dst.size());
    const float f = float(s);
    for (std::size_t i = 0; i < src.size(); ++i) dst.data()[i] = src.data()[i] * f;
}
double dot(const Image& a, const Image& b) {
    PROXGEN_INTERNAL_ASSERT(a.size() == b.size());
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += double(a.data()[i]) * b.data()[i];
    return s;
}

}  // namespace gradients
}  // namespace proxgen
