// See baseline_fft.hpp.
#include "baseline_fft.hpp"

#include <mutex>
#include <stdexcept>

namespace proxgen::bench::detail {

namespace {

// fftwf_init_threads once per process (ProxGen's own spectral solver calls it too; both calls
// are harmless). Plans are made from one thread at a time: the planner is not thread-safe.
std::mutex& planner_mutex() {
    static std::mutex m;
    static std::once_flag once;
    std::call_once(once, [] {
        if (fftwf_init_threads() == 0) throw std::runtime_error("baseline: fftwf_init_threads failed");
    });
    return m;
}

void check(fftwf_plan p, const char* what) {
    if (p == nullptr) throw std::runtime_error(std::string("baseline: FFTW could not plan the ") + what);
}

}  // namespace

template <typename T>
FftwArray<T>::FftwArray(std::size_t n) : data(static_cast<T*>(fftwf_malloc(n * sizeof(T)))), size(n) {
    if (!data) throw std::bad_alloc();
}
template struct FftwArray<float>;
template struct FftwArray<fftwf_complex>;

int fft_threads(int W, int H) { return long(W) * H >= 128L * 128 ? 2 : 1; }

RealDft::RealDft(const Layout& layout, float* plane_origin, int threads)
    : W_(layout.W), H_(layout.H), spec_(std::size_t(layout.H) * (layout.W / 2 + 1)) {
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftwf_plan_with_nthreads(threads);
    const int n[2] = {H_, W_};
    const int real_embed[2] = {H_, layout.stride()};  // rows of the padded plane
    // FFTW_MEASURE overwrites the arrays while planning: callers plan before filling them.
    fwd_ = fftwf_plan_many_dft_r2c(2, n, 1, plane_origin, real_embed, 1, 0, spec_.get(), nullptr, 1, 0, FFTW_MEASURE);
    check(fwd_, "forward real DFT");
    inv_ = fftwf_plan_many_dft_c2r(2, n, 1, spec_.get(), nullptr, 1, 0, plane_origin, real_embed, 1, 0, FFTW_MEASURE);
    check(inv_, "inverse real DFT");
}

RealDft::~RealDft() {
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftwf_destroy_plan(fwd_);
    fftwf_destroy_plan(inv_);
}

// New-array execution: every plane has the plan's strides and alignment (Layout rows are 64-byte
// aligned, planes are whole multiples of 64 bytes apart).
void RealDft::forward(const float* plane_origin) {
    fftwf_execute_dft_r2c(fwd_, const_cast<float*>(plane_origin), spec_.get());
}
void RealDft::inverse(float* plane_origin) { fftwf_execute_dft_c2r(inv_, spec_.get(), plane_origin); }
void RealDft::inverse(std::complex<float>* spectrum, float* plane_origin) {
    fftwf_execute_dft_c2r(inv_, reinterpret_cast<fftwf_complex*>(spectrum), plane_origin);
}

RealDct::RealDct(const Layout& layout, float* plane_origin, int threads) {
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftwf_plan_with_nthreads(threads);
    const int n[2] = {layout.H, layout.W};
    const int embed[2] = {layout.H, layout.stride()};
    const fftwf_r2r_kind fk[2] = {FFTW_REDFT10, FFTW_REDFT10}, ik[2] = {FFTW_REDFT01, FFTW_REDFT01};
    fwd_ = fftwf_plan_many_r2r(2, n, 1, plane_origin, embed, 1, 0, plane_origin, embed, 1, 0, fk, FFTW_MEASURE);
    check(fwd_, "forward DCT");
    inv_ = fftwf_plan_many_r2r(2, n, 1, plane_origin, embed, 1, 0, plane_origin, embed, 1, 0, ik, FFTW_MEASURE);
    check(inv_, "inverse DCT");
}

RealDct::~RealDct() {
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftwf_destroy_plan(fwd_);
    fftwf_destroy_plan(inv_);
}

void RealDct::forward(float* plane_origin) { fftwf_execute_r2r(fwd_, plane_origin, plane_origin); }
void RealDct::inverse(float* plane_origin) { fftwf_execute_r2r(inv_, plane_origin, plane_origin); }

namespace {

std::vector<std::complex<float>> half_spectrum(std::vector<float>& real, int W, int H) {
    std::vector<std::complex<float>> out(std::size_t(H) * (W / 2 + 1));
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftwf_plan_with_nthreads(1);
    const fftwf_plan p = fftwf_plan_dft_r2c_2d(H, W, real.data(), reinterpret_cast<fftwf_complex*>(out.data()),
                                               FFTW_ESTIMATE);
    check(p, "spectrum of the data");
    fftwf_execute(p);
    fftwf_destroy_plan(p);
    return out;
}

}  // namespace

std::vector<std::complex<float>> kernel_spectrum(const Halide::Runtime::Buffer<const float>& kernel, int W, int H) {
    if (kernel.dimensions() != 2) throw std::invalid_argument("baseline: the kernel must be a 2-D image");
    const int kw = kernel.dim(0).extent(), kh = kernel.dim(1).extent();
    std::vector<float> real(std::size_t(W) * H, 0.0f);
    // Tap (a, b) lands at (a - kw/2, b - kh/2) modulo the image: the circular convolution's centre.
    for (int b = 0; b < kh; ++b)
        for (int a = 0; a < kw; ++a) {
            const int i = ((a - kw / 2) % W + W) % W, j = ((b - kh / 2) % H + H) % H;
            real[std::size_t(j) * W + i] += kernel(kernel.dim(0).min() + a, kernel.dim(1).min() + b);
        }
    return half_spectrum(real, W, H);
}

std::vector<std::complex<float>> image_spectrum(const Halide::Runtime::Buffer<const float>& image) {
    const int W = image.dim(0).extent(), H = image.dim(1).extent();
    std::vector<float> real(std::size_t(W) * H);
    for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) real[std::size_t(j) * W + i] = image(image.dim(0).min() + i, image.dim(1).min() + j);
    return half_spectrum(real, W, H);
}

}  // namespace proxgen::bench::detail
