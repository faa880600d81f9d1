// Denoises a noisy step image with the generated solvers (Pock–Chambolle, linearized ADMM, ADMM and
// HQS of one problem): checks that each converges, that each result is closer to the clean image than
// the noisy one is, and that they agree. Exit 0 on success.
#include <cmath>
#include <cstdio>

#include "tv.h"
#include "tv_admm.h"
#include "tv_hqs.h"
#include "tv_ladmm.h"

namespace {

using Buffer = Halide::Runtime::Buffer<float>;

/// Solves with a generated Solver; false (with the message printed) when it fails or does not converge.
template <class Solver, class Data, class Options>
bool denoise(const char* name, Solver& solver, const Buffer& noisy, const Buffer& clean, double noisy_err) {
    Data data;  // by the names tv_problem.hpp gives the data
    data.b = noisy;
    data.lambda = 0.05f;
    Options options;
    options.max_iters = 20000;  // HQS's continuation needs 6650 here (as pg::solve's); the others stop below 100
    if (solver.init({noisy.width(), noisy.height()}, data, options) != decltype(solver.solve())::ok ||
        solver.solve() != decltype(solver.solve())::ok) {
        std::fprintf(stderr, "%s: %s\n", name, solver.last_error());
        return false;
    }
    const auto& x = solver.x();
    double err = 0;
    x.for_each_element([&](int i, int j) { err += std::pow(double(x(i, j)) - clean(i, j), 2); });
    std::printf("%s: %d iterations, converged %d, error %.4g (noisy %.4g)\n", name, solver.state().iterations,
                int(solver.state().converged), std::sqrt(err), std::sqrt(noisy_err));
    return solver.state().converged && err < noisy_err;
}

}  // namespace

int main() {
    const int w = 64, h = 48;
    Buffer clean(w, h), noisy(w, h);
    unsigned seed = 12345;
    double noisy_err = 0;
    clean.for_each_element([&](int x, int y) {
        clean(x, y) = x > w / 2 ? 0.8f : 0.2f;
        seed = seed * 1664525u + 1013904223u;
        const float noise = 0.1f * (float((seed >> 8) & 0xffff) / 65535.0f - 0.5f);
        noisy(x, y) = clean(x, y) + noise;
        noisy_err += double(noise) * noise;
    });
    tv::Solver pc;
    tv_ladmm::Solver ladmm;
    tv_admm::Solver admm;
    tv_hqs::Solver hqs;
    if (!denoise<tv::Solver, tv::Data, tv::Options>("tv", pc, noisy, clean, noisy_err) ||
        !denoise<tv_ladmm::Solver, tv_ladmm::Data, tv_ladmm::Options>("tv_ladmm", ladmm, noisy, clean, noisy_err) ||
        !denoise<tv_admm::Solver, tv_admm::Data, tv_admm::Options>("tv_admm", admm, noisy, clean, noisy_err) ||
        !denoise<tv_hqs::Solver, tv_hqs::Data, tv_hqs::Options>("tv_hqs", hqs, noisy, clean, noisy_err))
        return 1;
    // all reach the one optimum (to their tolerances)
    auto difference = [&](const Buffer& x) {
        double d2 = 0, n2 = 0;
        pc.x().for_each_element([&](int i, int j) {
            d2 += std::pow(double(pc.x()(i, j)) - x(i, j), 2);
            n2 += std::pow(double(pc.x()(i, j)), 2);
        });
        return std::sqrt(d2 / n2);
    };
    const double d_ladmm = difference(ladmm.x()), d_admm = difference(admm.x()), d_hqs = difference(hqs.x());
    std::printf("tv vs tv_ladmm: relative difference %.3g; tv vs tv_admm: %.3g; tv vs tv_hqs: %.3g\n", d_ladmm, d_admm,
                d_hqs);
    return d_ladmm < 1e-2 && d_admm < 1e-2 && d_hqs < 1e-2 ? 0 : 1;
}
