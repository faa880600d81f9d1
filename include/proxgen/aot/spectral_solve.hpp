// The exact x-update of a generated solver whose Gram matrix G = G_Ω + ρ G_Ψ is diagonal in the
// DFT basis (circulant operators: convolutions, periodic grad) or the DCT-II basis (Neumann grad):
// x = G⁻¹ rhs as one forward transform and one inverse transform with the gain 1/λ folded in,
// through the generated FFT passes (proxgen/aot/fft.hpp). Runtime-only (no libHalide, no FFTW).
//
// A generated solver has no transfer functions (the JIT reads them off the operator cards), so
// the eigenvalues come from the operators themselves: the solver applies G_Ω and G_Ψ to the
// impulse δ at pixel (0, 0), and since G δ is G's first column,
//   DFT: λ(k) = Σ_n (Gδ)(n) e^{−2πi k·n/N}          (G symmetric circulant: a real sum)
//   DCT: λ(k) = DCT(Gδ)(k) / DCT(δ)(k)              (DCT(δ)(k) = 4 cos(πk_x/2W) cos(πk_y/2H) ≠ 0)
// evaluated here in float64 over the nonzero samples of Gδ (a few dozen for local operators),
// row by row, so the tables carry no float32 transform's rounding.
#pragma once

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "proxgen/aot/fft.hpp"

namespace proxgen::aot {

enum class SpectralBasis { fft, dct };

class SpectralSolve {
public:
    using Buffer = Halide::Runtime::Buffer<float>;

    /// Plans the transforms of a W×H image (every channel of the variable gets the same 2-D
    /// operator) and tabulates λ_Ω and λ_Ψ from the impulse responses g_omega = G_Ω δ and
    /// g_psi = G_Ψ δ (the variable's extents; channel 0 read). A message in last_error() otherwise.
    Status init(const fft::Kernels& kernels, SpectralBasis basis, const Buffer& g_omega, const Buffer& g_psi) {
        basis_ = basis;
        W_ = g_omega.dim(0).extent();
        H_ = g_omega.dim(1).extent();
        rho_ = -1;
        if (Status s = plan_.init(kernels, W_, H_); s != Status::ok) return s;
        omega_ = eigenvalues(g_omega.data());
        psi_ = eigenvalues(g_psi.data());
        const int cols = basis_ == SpectralBasis::fft ? W_ / 2 + 1 : W_;
        gain_ = state_buffer({H_, cols});
        work_ = basis_ == SpectralBasis::fft ? state_buffer({2, H_, cols}) : state_buffer({H_, cols});
        return Status::ok;
    }

    /// x = (G_Ω + ρ G_Ψ)⁻¹ rhs, channel by channel (both dense, of the variable's extents, mins 0).
    /// The gain table is recomputed when ρ changed; a singular Gram fails with a sentence.
    Status solve(Buffer& rhs, Buffer& x, double rho) {
        if (rho != rho_)
            if (Status s = set_rho(rho); s != Status::ok) return s;
        const int channels = rhs.dimensions() > 2 ? int(rhs.number_of_elements() / (std::size_t(W_) * H_)) : 1;
        for (int c = 0; c < channels; ++c) {
            Buffer in = channel(rhs, c), out = channel(x, c);
            Status s = basis_ == SpectralBasis::fft ? plan_.forward(in, work_) : plan_.dct(in, work_);
            if (s == Status::ok)
                s = basis_ == SpectralBasis::fft ? plan_.inverse(work_, out, 1.0f, &gain_) : plan_.idct(work_, out, 1.0f, &gain_);
            if (s != Status::ok) return s;
        }
        return Status::ok;
    }

private:
    /// Channel c of a dense (W, H[, C]) buffer as a dense W×H buffer with mins 0.
    Buffer channel(Buffer& b, int c) const {
        if (b.dimensions() == 2) return b;
        return Buffer(b.data() + std::size_t(c) * W_ * H_, W_, H_);
    }

    Status set_rho(double rho) {
        // normalisation of the unnormalised inverse transforms (fft.hpp's conventions)
        const double norm = (basis_ == SpectralBasis::fft ? 1.0 : 4.0) * double(W_) * H_;
        double lo = INFINITY, hi = 0;
        for (std::size_t i = 0; i < omega_.size(); ++i) {
            const double l = omega_[i] + rho * psi_[i];
            lo = std::min(lo, l);
            hi = std::max(hi, l);
        }
        if (!(lo > 1e-12 * hi))
            return fail("the x-update's Gram matrix is singular (smallest eigenvalue " + std::to_string(lo) +
                        ", largest " + std::to_string(hi) + "): the terms absorbed into it leave a direction free");
        float* g = gain_.data();
        for (std::size_t i = 0; i < omega_.size(); ++i) g[i] = float(1.0 / ((omega_[i] + rho * psi_[i]) * norm));
        gain_.set_host_dirty();
        rho_ = rho;
        return Status::ok;
    }

    static Status fail(const std::string& message) {
        last_error_message() = message;
        return Status::invalid_argument;
    }

    /// λ over the gain table's layout (ky fastest), from channel 0 of the impulse response g.
    std::vector<double> eigenvalues(const float* g) const {
        const bool dft = basis_ == SpectralBasis::fft;
        const int cols = dft ? W_ / 2 + 1 : W_;
        // angle tables: e^{−2πi m/W} (DFT) or cos(2π m/4W) (DCT: cos(πk(2n+1)/2N) = cos(2π k(2n+1)/4N))
        const int px = dft ? W_ : 4 * W_, py = dft ? H_ : 4 * H_;
        auto cosines = [](int period) {
            std::vector<double> c(static_cast<std::size_t>(period));
            for (int m = 0; m < period; ++m) c[std::size_t(m)] = std::cos(2 * std::numbers::pi * m / period);
            return c;
        };
        auto sines = [](int period) {
            std::vector<double> s(static_cast<std::size_t>(period));
            for (int m = 0; m < period; ++m) s[std::size_t(m)] = -std::sin(2 * std::numbers::pi * m / period);
            return s;
        };
        const std::vector<double> cx = cosines(px), sx = sines(px), cy = cosines(py), sy = sines(py);
        // each row j with a nonzero sample: its transform along x, for every kx
        std::vector<int> rows;
        std::vector<double> re, im;  // (rows, cols)
        for (int j = 0; j < H_; ++j) {
            const float* row = g + std::size_t(j) * W_;
            bool any = false;
            for (int i = 0; i < W_ && !any; ++i) any = row[i] != 0.0f;
            if (!any) continue;
            rows.push_back(j);
            re.resize(re.size() + std::size_t(cols), 0.0);
            im.resize(im.size() + std::size_t(cols), 0.0);
            double* r = &re[re.size() - std::size_t(cols)];
            double* m = &im[im.size() - std::size_t(cols)];
            for (int i = 0; i < W_; ++i) {
                if (row[i] == 0.0f) continue;
                const double v = row[i];
                for (int k = 0; k < cols; ++k) {
                    const std::size_t a = dft ? std::size_t((std::int64_t(k) * i) % px)
                                              : std::size_t((std::int64_t(k) * (2 * i + 1)) % px);
                    r[k] += v * cx[a];
                    if (dft) m[k] += v * sx[a];
                }
            }
        }
        std::vector<double> lambda(std::size_t(H_) * cols, 0.0);
        for (int k = 0; k < cols; ++k)
            for (int ky = 0; ky < H_; ++ky) {
                double s = 0;
                for (std::size_t q = 0; q < rows.size(); ++q) {
                    const int j = rows[q];
                    const std::size_t o = q * std::size_t(cols) + std::size_t(k);
                    if (dft) {
                        const std::size_t a = std::size_t((std::int64_t(ky) * j) % py);
                        s += re[o] * cy[a] - im[o] * sy[a];  // Re((re + i im)(cy + i sy))
                    } else {
                        s += re[o] * cy[std::size_t((std::int64_t(ky) * (2 * j + 1)) % py)];
                    }
                }
                if (!dft) s /= cx[std::size_t(k)] * cy[std::size_t(ky)];  // DCT(δ)/4 = cos(πkx/2W) cos(πky/2H)
                lambda[std::size_t(ky) + std::size_t(H_) * std::size_t(k)] = s;
            }
        return lambda;
    }

    fft::Plan plan_;
    SpectralBasis basis_ = SpectralBasis::fft;
    int W_ = 0, H_ = 0;
    std::vector<double> omega_, psi_;  // λ_Ω, λ_Ψ in the gain table's layout
    Buffer gain_, work_;
    double rho_ = -1;
};

}  // namespace proxgen::aot
