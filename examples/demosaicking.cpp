// Bayer demosaicking (FlexISP-style): one colour per pixel (RGGB), the full colour image back
// from a channel-coupled TV and a cross-channel prior (sparse gradients of the opponent colour
// channels, which ties the chroma edges to the luminance edges).
//   minimize ‖M ⊙ x − b‖² + λ TV_colour(x) + μ ‖∇ opp(x)‖₁
//   proxgen_demosaicking <image> <outdir> [--iters N] [--size S]
#include "example_support.hpp"

int main(int argc, char** argv) try {
    namespace pg = proxgen;
    const auto args = example::parse(argc, argv, 300, 256);
    const pg::Image clean = example::prepare(pg::load_image(args.input), args.size, 3);
    const int W = clean.width(), H = clean.height();
    pg::Image mask({W, H, 3}), mosaic({W, H, 3});
    for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) {
            const int c = (i % 2) + (j % 2);  // RGGB: R at (even, even), B at (odd, odd), G elsewhere
            mask(i, j, c) = 1.0f;
            mosaic(i, j, c) = clean(i, j, c);
        }
    example::add_noise(mosaic, 0.005f, 2);
    for (std::size_t i = 0; i < mosaic.size(); ++i) mosaic.data()[i] *= mask.data()[i];
    // the classic bilinear demosaic (each channel: the mean of its samples in the 3 × 3
    // neighbourhood): the baseline, and the warm start (TV alone propagates colour slowly)
    pg::Image bilinear({W, H, 3});
    for (int c = 0; c < 3; ++c)
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i) {
                double s = 0, n = 0;
                for (int b = std::max(j - 1, 0); b <= std::min(j + 1, H - 1); ++b)
                    for (int a = std::max(i - 1, 0); a <= std::min(i + 1, W - 1); ++a) {
                        s += mosaic(a, b, c);
                        n += mask(a, b, c);
                    }
                bilinear(i, j, c) = float(n > 0 ? s / n : 0.0);
            }
    auto x = pg::variable(W, H, 3);
    auto prob = pg::sum_squares(pg::mul_elemwise(mask, x) - mosaic) +
                0.004f * pg::group_norm1(pg::merge_last_axes(pg::grad(x))) +
                0.004f * pg::norm1(pg::grad(pg::mul_color(x, pg::color::opponent())));
    auto opt = example::options(pg::Algorithm::pock_chambolle, args.iters);
    opt.x0 = bilinear;
    const pg::Result r = pg::solve(prob, opt);
    fmt::print("demosaicking {}x{} (RGGB): {} iterations\n", W, H, r.iterations);
    example::report(args.out, clean,
                    {{"demosaic_mosaic.png", mosaic}, {"demosaic_bilinear.png", bilinear}, {"demosaic_restored.png", r[x]}});
    return 0;
} catch (const std::exception& e) {
    fmt::print(stderr, "proxgen_demosaicking: error: {}\n", e.what());
    return 1;
}
