// What a batch could gain from FFTW alone: the r2c + c2r pair of a small image, per member, for n
// members transformed one plan call each (what a loop of solves and today's batch do), by one
// `howmany` plan over members stored one after another, and by one over members interleaved
// (member innermost, the layout a member-vectorized step kernel would write). Single precision,
// one thread, interleaved rounds, the best of each kept (this VM drifts by up to 1.5×).
// Then what a transform vectorized across members could: a plain radix-2 complex FFT whose every
// value is a vector of 16 members (GCC's vector extension), against FFTW's complex pair per member.
//   proxgen_bench_fftw_batch [--size 64] [--members 1,8,16,32] [--measure]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <fftw3.h>

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// One layout's forward and inverse plans over n members of an N × N image.
struct Pair {
    fftwf_plan forward = nullptr, inverse = nullptr;
    void run() const {
        fftwf_execute(forward);
        fftwf_execute(inverse);
    }
};

Pair plan(int N, int n, bool interleaved, float* r, fftwf_complex* c, unsigned flags) {
    const int size[2] = {N, N}, cw = N / 2 + 1;
    const int stride = interleaved ? n : 1;
    const int real_dist = interleaved ? 1 : N * N, cplx_dist = interleaved ? 1 : cw * N;
    Pair p;
    p.forward = fftwf_plan_many_dft_r2c(2, size, n, r, nullptr, stride, real_dist, c, nullptr, stride, cplx_dist, flags);
    p.inverse = fftwf_plan_many_dft_c2r(2, size, n, c, nullptr, stride, cplx_dist, r, nullptr, stride, real_dist, flags);
    return p;
}

/// 16 members' values of one sample: the vector lanes are the members.
typedef float Lanes __attribute__((vector_size(64)));
struct ComplexLanes {
    Lanes re, im;
};

/// An N × N complex FFT (N a power of two) of 16 members at once, in place: rows, then columns,
/// each radix 2 after a bit reversal; the column pass runs each butterfly over a whole row, so
/// that it reads memory in order. Every lane computes what a scalar radix-2 FFT computes.
class MemberFFT {
public:
    explicit MemberFFT(int n) : n_(n), wr_(n / 2), wi_(n / 2), rev_(n) {
        int bits = 0;
        while ((1 << bits) < n) ++bits;
        for (int i = 0; i < n / 2; ++i) {
            wr_[i] = float(std::cos(-2 * M_PI * i / n));
            wi_[i] = float(std::sin(-2 * M_PI * i / n));
        }
        for (int i = 0; i < n; ++i) {
            int r = 0;
            for (int b = 0; b < bits; ++b)
                if (i >> b & 1) r |= 1 << (bits - 1 - b);
            rev_[i] = r;
        }
    }
    void operator()(ComplexLanes* a, bool inverse) const {
        for (int y = 0; y < n_; ++y) pass(a + std::size_t(y) * n_, 1, 1, inverse);  // rows: x is the FFT axis
        pass(a, n_, n_, inverse);                                                 // columns, a row per butterfly
    }

private:
    /// One 1-D FFT along an axis of stride `stride`, over `width` neighbours at once (unit stride).
    void pass(ComplexLanes* a, std::size_t stride, int width, bool inverse) const {
        for (int i = 0; i < n_; ++i)
            if (i < rev_[i])
                for (int x = 0; x < width; ++x) std::swap(a[i * stride + x], a[rev_[i] * stride + x]);
        for (int len = 2; len <= n_; len <<= 1) {
            const int half = len / 2, step = n_ / len;
            for (int i = 0; i < n_; i += len)
                for (int j = 0; j < half; ++j) {
                    const float wr = wr_[j * step], wi = inverse ? -wi_[j * step] : wi_[j * step];
                    ComplexLanes* u = a + (i + j) * stride;
                    ComplexLanes* v = a + (i + j + half) * stride;
                    for (int x = 0; x < width; ++x) {
                        const Lanes tr = v[x].re * wr - v[x].im * wi, ti = v[x].re * wi + v[x].im * wr;
                        v[x].re = u[x].re - tr;
                        v[x].im = u[x].im - ti;
                        u[x].re = u[x].re + tr;
                        u[x].im = u[x].im + ti;
                    }
                }
        }
    }
    int n_;
    std::vector<float> wr_, wi_;
    std::vector<int> rev_;
};

/// µs per member of FFTW's complex pair (one call each) and of MemberFFT's (16 members per call),
/// and MemberFFT's largest error against FFTW relative to the largest coefficient.
void complex_pairs(int N, unsigned flags) {
    constexpr int kLanes = 16;
    const std::size_t n2 = std::size_t(N) * N;
    fftwf_complex* c = fftwf_alloc_complex(n2 * kLanes);
    std::vector<ComplexLanes> lanes(n2);
    for (std::size_t i = 0; i < n2; ++i)
        for (int m = 0; m < kLanes; ++m) {
            const float v = float((i * 31 + std::size_t(m) * 7) % 101) / 101.0f;
            c[std::size_t(m) * n2 + i][0] = v, c[std::size_t(m) * n2 + i][1] = 0.0f;
            lanes[i].re[m] = v, lanes[i].im[m] = 0.0f;
        }
    fftwf_plan fwd = fftwf_plan_dft_2d(N, N, c, c, FFTW_FORWARD, flags | FFTW_PRESERVE_INPUT);
    fftwf_plan bwd = fftwf_plan_dft_2d(N, N, c, c, FFTW_BACKWARD, flags | FFTW_PRESERVE_INPUT);
    const MemberFFT fft(N);
    // accuracy: member 3's forward transform against FFTW's (planning may have overwritten c: refill)
    for (std::size_t i = 0; i < n2; ++i) c[3 * n2 + i][0] = lanes[i].re[3], c[3 * n2 + i][1] = 0.0f;
    fftwf_execute_dft(fwd, c + 3 * n2, c + 3 * n2);
    std::vector<ComplexLanes> once = lanes;
    fft(once.data(), false);
    double err = 0, big = 0;
    for (std::size_t i = 0; i < n2; ++i) {
        err = std::max(err, double(std::hypot(once[i].re[3] - c[3 * n2 + i][0], once[i].im[3] - c[3 * n2 + i][1])));
        big = std::max(big, double(std::hypot(c[3 * n2 + i][0], c[3 * n2 + i][1])));
    }
    const float scale = 1.0f / float(n2);
    const int reps = 200;
    double best_fftw = 1e30, best_lanes = 1e30;
    for (int round = 0; round < 5; ++round) {
        auto t = std::chrono::steady_clock::now();
        for (int k = 0; k < reps; ++k)
            for (int m = 0; m < kLanes; ++m) {
                fftwf_complex* cm = c + std::size_t(m) * n2;
                fftwf_execute_dft(fwd, cm, cm);
                fftwf_execute_dft(bwd, cm, cm);
                for (std::size_t i = 0; i < n2; ++i) cm[i][0] *= scale, cm[i][1] *= scale;
            }
        best_fftw = std::min(best_fftw, seconds_since(t));
        t = std::chrono::steady_clock::now();
        for (int k = 0; k < reps; ++k) {
            fft(lanes.data(), false);
            fft(lanes.data(), true);
            for (auto& e : lanes) e.re *= scale, e.im *= scale;
        }
        best_lanes = std::min(best_lanes, seconds_since(t));
    }
    const double per = 1e6 / (double(reps) * kLanes);
    std::printf("\n| complex %dx%d pair, 16 members | us/member |\n|---|---|\n| FFTW, one call each | %.2f |\n"
                "| radix 2 across the members | %.2f |\n(its largest error against FFTW: %.2g of the largest coefficient)\n",
                N, N, best_fftw * per, best_lanes * per, err / big);
    fftwf_destroy_plan(fwd);
    fftwf_destroy_plan(bwd);
    fftwf_free(c);
}

}  // namespace

int main(int argc, char** argv) {
    int N = 64;
    std::string members = "1,8,16,32";
    unsigned flags = FFTW_ESTIMATE;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--size") && i + 1 < argc) N = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--members") && i + 1 < argc) members = argv[++i];
        else if (!std::strcmp(argv[i], "--measure")) flags = FFTW_MEASURE;
    }
    std::printf("| members | one plan per member (us/member) | howmany, members one after another | howmany, members interleaved |\n|---|---|---|---|\n");
    for (std::size_t start = 0; start < members.size();) {
        const std::size_t end = std::min(members.find(',', start), members.size());
        const int n = std::atoi(members.substr(start, end - start).c_str());
        start = end + 1;
        if (n < 1) continue;
        const std::size_t reals = std::size_t(N) * N * n, cplx = std::size_t(N / 2 + 1) * N * n;
        float* r = fftwf_alloc_real(reals);
        fftwf_complex* c = fftwf_alloc_complex(cplx);
        const Pair single = plan(N, 1, false, r, c, flags);
        const Pair contiguous = plan(N, n, false, r, c, flags);
        const Pair interleaved = plan(N, n, true, r, c, flags);
        for (std::size_t i = 0; i < reals; ++i) r[i] = float((i * 2654435761u) % 1000) / 1000.0f;
        const int reps = std::max(20, 4000 / n);
        double best[3] = {1e30, 1e30, 1e30};
        for (int round = 0; round < 5; ++round) {
            auto t = std::chrono::steady_clock::now();
            for (int k = 0; k < reps; ++k)
                for (int m = 0; m < n; ++m) {  // the same plan on each member's arrays
                    float* rm = r + std::size_t(m) * N * N;
                    fftwf_complex* cm = c + std::size_t(m) * (N / 2 + 1) * N;
                    fftwf_execute_dft_r2c(single.forward, rm, cm);
                    fftwf_execute_dft_c2r(single.inverse, cm, rm);
                }
            best[0] = std::min(best[0], seconds_since(t));
            t = std::chrono::steady_clock::now();
            for (int k = 0; k < reps; ++k) contiguous.run();
            best[1] = std::min(best[1], seconds_since(t));
            t = std::chrono::steady_clock::now();
            for (int k = 0; k < reps; ++k) interleaved.run();
            best[2] = std::min(best[2], seconds_since(t));
        }
        const double per = 1e6 / (double(reps) * n);
        std::printf("| %d | %.2f | %.2f | %.2f |\n", n, best[0] * per, best[1] * per, best[2] * per);
        for (const Pair* p : {&single, &contiguous, &interleaved}) {
            fftwf_destroy_plan(p->forward);
            fftwf_destroy_plan(p->inverse);
        }
        fftwf_free(r);
        fftwf_free(c);
    }
    complex_pairs(N, flags);
    return 0;
}
