// ×2 super-resolution: a blurred, 2× subsampled image back at full size.
//   minimize ‖S(k ⊛ x) − b‖² + λ TV(x)      (S keeps every second column and row)
//   proxgen_super_resolution <image> <outdir> [--iters N] [--size S]
#include "example_support.hpp"

int main(int argc, char** argv) try {
    namespace pg = proxgen;
    const auto args = example::parse(argc, argv, 300, 256);
    const pg::Image clean = example::prepare(pg::load_image(args.input), args.size, 1);
    const int W = clean.width(), H = clean.height();
    const pg::Image k = example::gaussian_kernel(5, 1.0);
    const pg::Image blurred = example::blur(clean, k);
    pg::Image low({(W + 1) / 2, (H + 1) / 2}), nearest({W, H});
    for (int j = 0; j < low.height(); ++j)
        for (int i = 0; i < low.width(); ++i) low(i, j) = blurred(2 * i, 2 * j);
    example::add_noise(low, 0.005f, 3);
    for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) nearest(i, j) = low(i / 2, j / 2);
    auto x = pg::variable(W, H);
    auto prob = pg::sum_squares(pg::subsample(pg::conv(k, x), 2, 2) - low) + 0.001f * pg::group_norm1(pg::grad(x));
    const pg::Result r = pg::solve(prob, example::options(pg::Algorithm::pock_chambolle, args.iters));
    fmt::print("x2 super-resolution {}x{} -> {}x{}: {} iterations\n", low.width(), low.height(), W, H, r.iterations);
    pg::save_image(args.out + "/superres_low.png", low);
    example::report(args.out, clean, {{"superres_nearest.png", nearest}, {"superres_restored.png", r[x]}});
    return 0;
} catch (const std::exception& e) {
    fmt::print(stderr, "proxgen_super_resolution: error: {}\n", e.what());
    return 1;
}
