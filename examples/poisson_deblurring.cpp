// Poisson deblurring at low photon counts (peak 30 photons per pixel): the negative Poisson
// log-likelihood of the blurred rate, TV, and nonneg.
//   minimize Σ (k ⊛ x − c log(k ⊛ x)) + λ TV(x) + ι(x ≥ 0)      (x in photons)
//   proxgen_poisson_deblurring <image> <outdir> [--iters N] [--size S]
#include "example_support.hpp"

int main(int argc, char** argv) try {
    namespace pg = proxgen;
    const auto args = example::parse(argc, argv, 400, 256);
    const pg::Image clean = example::prepare(pg::load_image(args.input), args.size, 1);
    const int W = clean.width(), H = clean.height();
    const float peak = 30.0f;
    const pg::Image k = example::gaussian_kernel(5, 1.0);
    const pg::Image rate = example::blur(clean, k);
    pg::Image counts({W, H}), observed({W, H});
    std::mt19937 gen(5);
    for (std::size_t i = 0; i < counts.size(); ++i) {
        counts.data()[i] = float(std::poisson_distribution<int>(std::max(1e-3, double(peak * rate.data()[i])))(gen));
        observed.data()[i] = counts.data()[i] / peak;
    }
    auto x = pg::variable(W, H);
    auto prob = pg::poisson_norm(pg::conv(k, x), counts) + 0.5f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    auto opt = example::options(pg::Algorithm::pock_chambolle, args.iters);
    opt.x0 = counts;  // inside the likelihood's domain
    const pg::Result r = pg::solve(prob, opt);
    pg::Image restored = r[x].copy();
    for (std::size_t i = 0; i < restored.size(); ++i) restored.data()[i] /= peak;
    fmt::print("Poisson deblurring {}x{}, peak {} photons: {} iterations\n", W, H, peak, r.iterations);
    example::report(args.out, clean, {{"poisson_counts.png", observed}, {"poisson_restored.png", restored}});
    return 0;
} catch (const std::exception& e) {
    fmt::print(stderr, "proxgen_poisson_deblurring: error: {}\n", e.what());
    return 1;
}
