// Inpainting: half of the pixels are missing (a random mask); TV fills them in.
//   minimize ‖M ⊙ x − b‖² + λ TV(x)        (M the 0/1 mask, b the observed pixels, 0 elsewhere)
//   proxgen_inpainting <image> <outdir> [--iters N] [--size S]
#include "example_support.hpp"

int main(int argc, char** argv) try {
    namespace pg = proxgen;
    const auto args = example::parse(argc, argv, 300, 256);
    const pg::Image clean = example::prepare(pg::load_image(args.input), args.size, 1);
    const int W = clean.width(), H = clean.height();
    pg::Image mask({W, H}), observed({W, H});
    std::mt19937 gen(1);
    for (std::size_t i = 0; i < mask.size(); ++i) {
        mask.data()[i] = gen() % 2 ? 1.0f : 0.0f;
        observed.data()[i] = mask.data()[i] * clean.data()[i];
    }
    auto x = pg::variable(W, H);
    auto prob = pg::sum_squares(pg::mul_elemwise(mask, x) - observed) + 0.01f * pg::group_norm1(pg::grad(x));
    const pg::Result r = pg::solve(prob, example::options(pg::Algorithm::pock_chambolle, args.iters));
    fmt::print("inpainting {}x{}, 50% of the pixels missing: {} iterations\n", W, H, r.iterations);
    example::report(args.out, clean, {{"inpainting_observed.png", observed}, {"inpainting_restored.png", r[x]}});
    return 0;
} catch (const std::exception& e) {
    fmt::print(stderr, "proxgen_inpainting: error: {}\n", e.what());
    return 1;
}
