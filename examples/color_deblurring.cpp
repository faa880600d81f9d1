// Colour deblurring: every channel blurred by the same kernel, restored with a channel-coupled
// TV (one group per pixel over all channels and both directions) and nonneg.
//   minimize ‖k ⊛ x − b‖² + λ TV_colour(x) + ι(x ≥ 0)
//   proxgen_color_deblurring <image> <outdir> [--iters N] [--size S]
#include "example_support.hpp"

int main(int argc, char** argv) try {
    namespace pg = proxgen;
    const auto args = example::parse(argc, argv, 300, 256);
    const pg::Image clean = example::prepare(pg::load_image(args.input), args.size, 3);
    const int W = clean.width(), H = clean.height();
    const pg::Image k = example::gaussian_kernel(7, 1.5);
    pg::Image blurred = example::blur(clean, k);
    example::add_noise(blurred, 0.01f, 4);
    auto x = pg::variable(W, H, 3);
    auto prob = pg::sum_squares(pg::conv(k, x) - blurred) +
                0.002f * pg::group_norm1(pg::merge_last_axes(pg::grad(x))) + pg::nonneg(x);
    const pg::Result r = pg::solve(prob, example::options(pg::Algorithm::pock_chambolle, args.iters));
    fmt::print("colour deblurring {}x{}x3: {} iterations\n", W, H, r.iterations);
    example::report(args.out, clean, {{"color_blurred.png", blurred}, {"color_restored.png", r[x]}});
    return 0;
} catch (const std::exception& e) {
    fmt::print(stderr, "proxgen_color_deblurring: error: {}\n", e.what());
    return 1;
}
