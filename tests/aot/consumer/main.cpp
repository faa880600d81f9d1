// Denoises a noisy step image with the generated solver: checks that it converges and that the
// result is closer to the clean image than the noisy one is. Exit 0 on success.
#include <cmath>
#include <cstdio>

#include "tv.h"

int main() {
    const int w = 64, h = 48;
    Halide::Runtime::Buffer<float> clean(w, h), offset(w, h);
    unsigned seed = 12345;
    double noisy_err = 0;
    clean.for_each_element([&](int x, int y) {
        clean(x, y) = x > w / 2 ? 0.8f : 0.2f;
        seed = seed * 1664525u + 1013904223u;
        const float noise = 0.1f * (float((seed >> 8) & 0xffff) / 65535.0f - 0.5f);
        offset(x, y) = -(clean(x, y) + noise);  // the term's offset is -b
        noisy_err += double(noise) * noise;
    });
    tv::Data data;
    data.sum_squares_offset = offset;
    data.group_norm1_weight = 0.05f;
    tv::Options options;
    options.max_iters = 1000;
    tv::Solver solver;
    if (tv_init(solver, {w, h}, data, options) != tv::Status::ok || tv_solve(solver) != tv::Status::ok) {
        std::fprintf(stderr, "tv: %s\n", solver.last_error());
        return 1;
    }
    const auto& x = solver.x();
    double err = 0;
    x.for_each_element([&](int i, int j) { err += std::pow(double(x(i, j)) - clean(i, j), 2); });
    std::printf("tv: %d iterations, converged %d, error %.4g (noisy %.4g)\n", tv_state(solver).iterations,
                int(tv_state(solver).converged), std::sqrt(err), std::sqrt(noisy_err));
    return tv_state(solver).converged && err < noisy_err ? 0 : 1;
}
