// The main demo: TV denoising and TV deconvolution (with nonneg) of a real photograph.
//
//   proxgen_demo <image.png> <outdir> [--iters N] [--size S]
//
// Writes, in <outdir>: the clean input, the degraded and restored images of both problems (PNG),
// a convergence plot per problem (SVG: objective gap and residuals per check), and prints the
// plan, the iteration table and the PSNR of every image.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>

#include <proxgen/proxgen.hpp>

namespace pg = proxgen;

namespace {

double psnr(const pg::Image& a, const pg::Image& ref) {
    double mse = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = std::clamp(double(a.data()[i]), 0.0, 1.0) - ref.data()[i];
        mse += d * d;
    }
    return 10 * std::log10(1.0 / (mse / double(a.size())));
}

/// Reproducible Gaussian noise (splitmix64 + Box–Muller, as the generator of ProxImaL's reference
/// data set, gen_inputs.py, draws it).
double gauss(std::uint64_t seed, std::uint64_t p) {
    auto uniform = [seed](std::uint64_t n) {
        std::uint64_t z = seed + (n + 1) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        return (double(z >> 11) + 0.5) * 0x1.0p-53;
    };
    return std::sqrt(-2 * std::log(uniform(2 * p))) * std::cos(2 * M_PI * uniform(2 * p + 1));
}

pg::Image gaussian_kernel(int size, double sigma) {
    pg::Image k({size, size});
    double s = 0;
    for (int j = 0; j < size; ++j)
        for (int i = 0; i < size; ++i) s += k(i, j) = float(std::exp(-((i - size / 2) * (i - size / 2) + (j - size / 2) * (j - size / 2)) / (2 * sigma * sigma)));
    for (std::size_t i = 0; i < k.size(); ++i) k.data()[i] = float(k.data()[i] / s);
    return k;
}

/// Circular convolution with the kernel centred at floor(size/2), as pg::conv.
pg::Image blur(const pg::Image& x, const pg::Image& k) {
    pg::Image out(x.sizes());
    const int W = x.width(), H = x.height();
    for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) {
            double s = 0;
            for (int b = 0; b < k.height(); ++b)
                for (int a = 0; a < k.width(); ++a)
                    s += k(a, b) * x(((i - a + k.width() / 2) % W + W) % W, ((j - b + k.height() / 2) % H + H) % H);
            out(i, j) = float(s);
        }
    return out;
}

pg::Image gray_crop(const pg::Image& img, int size) {
    const int w = std::min(size, img.width()), h = std::min(size, img.height());
    pg::Image g({w, h});
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i) {
            double s = 0;
            for (int c = 0; c < img.channels(); ++c) s += img(i, j, c);
            g(i, j) = float(s / img.channels());
        }
    return g;
}

void plot(const std::string& path, const std::string& title, const pg::Result& r) {
    double best = INFINITY;
    for (const auto& h : r.history) best = std::min(best, h.objective);
    pg::PlotSeries gap{"(f - f_best) / f_best", {}, {}}, rp{"primal residual", {}, {}}, rd{"dual residual", {}, {}};
    for (const auto& h : r.history) {
        gap.x.push_back(h.iteration);
        gap.y.push_back((h.objective - best) / best);
        rp.x.push_back(h.iteration);
        rp.y.push_back(h.primal_residual);
        rd.x.push_back(h.iteration);
        rd.y.push_back(h.dual_residual);
    }
    pg::write_convergence_svg(path, title, {gap, rp, rd});
}

}  // namespace

int main(int argc, char** argv) try {
    if (argc < 3) {
        fmt::print(stderr, "usage: {} <image> <outdir> [--iters N] [--size S]\n", argv[0]);
        return 2;
    }
    const std::string out = argv[2];
    int iters = 300, size = 512;
    for (int i = 3; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--iters") iters = std::stoi(argv[i + 1]);
        else if (flag == "--size") size = std::stoi(argv[i + 1]);
        else pg::fail("unknown option {}", flag);
    }
    std::filesystem::create_directories(out);
    const pg::Image clean = gray_crop(pg::load_image(argv[1]), size);
    const int W = clean.width(), H = clean.height();
    pg::save_image(out + "/clean.png", clean);
    fmt::print("ProxGen demo on {} ({}x{}), results in {}/\n\n", argv[1], W, H, out);

    pg::Options opt;
    opt.algorithm = pg::Algorithm::pock_chambolle;
    opt.max_iters = iters;
    opt.eps_abs = 1e-5;
    opt.eps_rel = 1e-5;
    opt.check_every = 10;
    opt.verbose = true;

    // 1. TV denoising: b = x + 0.1 n
    pg::Image noisy(clean.sizes());
    for (std::size_t p = 0; p < clean.size(); ++p) noisy.data()[p] = clean.data()[p] + 0.1f * float(gauss(1001, p));
    pg::save_image(out + "/denoise_noisy.png", noisy);
    auto x = pg::variable(W, H);
    auto denoise = pg::sum_squares(x - noisy) + 0.08f * pg::group_norm1(pg::grad(x));
    fmt::print("== TV denoising ==\n");
    const pg::Result rd = pg::solve(denoise, opt);
    pg::save_image(out + "/denoise_restored.png", rd[x]);
    plot(out + "/denoise_convergence.svg", "TV denoising (Pock-Chambolle)", rd);

    // 2. TV deconvolution with nonneg: b = k ⊛ x + 0.01 n, 9×9 Gaussian blur, σ = 2
    const pg::Image k = gaussian_kernel(9, 2.0);
    pg::Image blurred = blur(clean, k);
    for (std::size_t p = 0; p < clean.size(); ++p) blurred.data()[p] += 0.01f * float(gauss(2002, p));
    pg::save_image(out + "/deconv_blurred.png", blurred);
    auto deconv = pg::sum_squares(pg::conv(k, x) - blurred) + 0.002f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    fmt::print("\n== TV deconvolution + nonneg ==\n");
    const pg::Result rc = pg::solve(deconv, opt);
    pg::save_image(out + "/deconv_restored.png", rc[x]);
    plot(out + "/deconv_convergence.svg", "TV deconvolution + nonneg (Pock-Chambolle)", rc);

    fmt::print("\n{:<28} {:>9}\n", "image", "PSNR[dB]");
    fmt::print("{:<28} {:>9.2f}\n", "denoise_noisy.png", psnr(noisy, clean));
    fmt::print("{:<28} {:>9.2f}\n", "denoise_restored.png", psnr(rd[x], clean));
    fmt::print("{:<28} {:>9.2f}\n", "deconv_blurred.png", psnr(blurred, clean));
    fmt::print("{:<28} {:>9.2f}\n", "deconv_restored.png", psnr(rc[x], clean));
    fmt::print("\nwrote {}/{{clean,denoise_noisy,denoise_restored,deconv_blurred,deconv_restored}}.png and "
               "{}/{{denoise,deconv}}_convergence.svg\n", out, out);
    return 0;
} catch (const std::exception& e) {
    fmt::print(stderr, "proxgen_demo: error: {}\n", e.what());
    return 1;
}
