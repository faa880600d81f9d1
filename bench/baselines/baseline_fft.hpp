// Internal: FFTW pieces of the spectral baselines (PC deconvolution, ADMM, HQS): transforms
// planned once (FFTW_MEASURE, 2 threads) straight on the padded planes, so no copies.
#pragma once

#include <fftw3.h>

#include <complex>
#include <memory>
#include <vector>

#include "baseline_support.hpp"

namespace proxgen::bench::detail {

/// fftwf_malloc'ed storage (SIMD-aligned), freed with fftwf_free.
template <typename T>
struct FftwArray {
    struct Free {
        void operator()(T* p) const { fftwf_free(p); }
    };
    std::unique_ptr<T, Free> data;
    std::size_t size = 0;
    FftwArray() = default;
    explicit FftwArray(std::size_t n);
    T* get() const { return data.get(); }
};

/// The 2-D real DFT of W x H planes of `layout`: forward (plane -> half spectrum, H x (W/2 + 1)
/// complex, dense) and inverse (spectrum -> plane; unnormalized, destroys the spectrum).
class RealDft {
public:
    RealDft(const Layout& layout, float* plane_origin, int threads);
    ~RealDft();
    RealDft(const RealDft&) = delete;
    RealDft& operator=(const RealDft&) = delete;

    void forward(const float* plane_origin);
    void inverse(float* plane_origin);
    /// The inverse of another spectrum array of the same layout (fftwf_malloc'ed; destroyed).
    void inverse(std::complex<float>* spectrum, float* plane_origin);
    [[nodiscard]] std::complex<float>* spectrum() const { return reinterpret_cast<std::complex<float>*>(spec_.get()); }
    [[nodiscard]] int half_width() const { return W_ / 2 + 1; }

private:
    int W_, H_;
    FftwArray<fftwf_complex> spec_;
    fftwf_plan fwd_ = nullptr, inv_ = nullptr;
};

/// The 2-D DCT-II / DCT-III pair (FFTW REDFT10 / REDFT01) of W x H planes, in place: diagonalizes
/// grad^T grad with grad's Neumann convention. inverse(forward(x)) = 4 W H x.
class RealDct {
public:
    RealDct(const Layout& layout, float* plane_origin, int threads);
    ~RealDct();
    RealDct(const RealDct&) = delete;
    RealDct& operator=(const RealDct&) = delete;

    void forward(float* plane_origin);
    void inverse(float* plane_origin);

private:
    fftwf_plan fwd_ = nullptr, inv_ = nullptr;
};

/// The transfer function of circular convolution with `kernel` (centre at floor(size/2)) on a
/// W x H image, as the half spectrum H x (W/2 + 1) of RealDft's layout.
std::vector<std::complex<float>> kernel_spectrum(const Halide::Runtime::Buffer<const float>& kernel, int W, int H);

/// The half spectrum of a W x H image given as a Halide buffer (any mins).
std::vector<std::complex<float>> image_spectrum(const Halide::Runtime::Buffer<const float>& image);

/// Threads for FFTW: 2 from 128 x 128 pixels on (smaller transforms run faster on one).
int fft_threads(int W, int H);

}  // namespace proxgen::bench::detail
