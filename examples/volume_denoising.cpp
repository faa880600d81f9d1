// 3-D volume denoising: a stack of 12 slices (the image drifting by one pixel per slice, so the
// volume is smooth along its third axis), noise σ = 0.1, and a 3-D isotropic TV.
//   minimize ‖x − b‖² + λ Σ_p ‖∇₃ x_p‖₂          (∇₃: differences along x, y and z)
//   proxgen_volume_denoising <image> <outdir> [--iters N] [--size S]
// Writes the middle slice as PNG and the volumes as .npy.
#include "example_support.hpp"

int main(int argc, char** argv) try {
    namespace pg = proxgen;
    const auto args = example::parse(argc, argv, 300, 128);
    const int D = 12;
    const pg::Image img = example::prepare(pg::load_image(args.input), args.size + D, 1);
    const int W = img.width() - D, H = img.height() - D;
    pg::Image clean({W, H, D});
    for (int z = 0; z < D; ++z)
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i) clean(i, j, z) = img(i + z, j + z);
    pg::Image noisy = clean.copy();
    example::add_noise(noisy, 0.1f, 6);
    auto x = pg::variable(W, H, D);
    auto prob = pg::sum_squares(x - noisy) + 0.06f * pg::group_norm1(pg::grad(x, pg::on_axes<0, 1, 2>));
    const pg::Result r = pg::solve(prob, example::options(pg::Algorithm::pock_chambolle, args.iters));
    const pg::Image restored = r[x];
    auto slice = [&](const pg::Image& v) {
        pg::Image s({W, H});
        for (int j = 0; j < H; ++j)
            for (int i = 0; i < W; ++i) s(i, j) = v(i, j, D / 2);
        return s;
    };
    fmt::print("volume denoising {}x{}x{}: {} iterations; volume PSNR noisy {:.2f} dB, restored {:.2f} dB\n", W, H, D,
               r.iterations, example::psnr(noisy, clean), example::psnr(restored, clean));
    pg::save_image(args.out + "/volume_noisy.npy", noisy);
    pg::save_image(args.out + "/volume_restored.npy", restored);
    example::report(args.out, slice(clean), {{"volume_noisy_slice.png", slice(noisy)}, {"volume_restored_slice.png", slice(restored)}});
    return 0;
} catch (const std::exception& e) {
    fmt::print(stderr, "proxgen_volume_denoising: error: {}\n", e.what());
    return 1;
}
