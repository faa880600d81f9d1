// What a batch could gain from FFTW alone: the r2c + c2r pair of a small image, per member, for n
// members transformed one plan call each (what a loop of solves and today's batch do), by one
// `howmany` plan over members stored one after another, and by one over members interleaved
// (member innermost, the layout a member-vectorized step kernel would write). Single precision,
// one thread, interleaved rounds, the best of each kept (this VM drifts by up to 1.5×).
//   proxgen_bench_fftw_batch [--size 64] [--members 1,8,16,32] [--measure]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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
    return 0;
}
