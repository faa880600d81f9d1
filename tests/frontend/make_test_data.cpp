// Writes the synthetic data the command-line tests use (no photograph is needed in CI):
//   make_test_data OUT_DIR [SIZE]  ->  OUT_DIR/clean.png (SIZE², default 64: a few flat shapes on a
//   smooth ramp, values in [0.1, 0.9]) and OUT_DIR/kernel.npy (9x9 Gaussian, sigma 2, sum 1, the
//   same as data/blur_kernel_9x9.npy).
#include <cmath>
#include <cstdio>
#include <string>

#include <proxgen/proxgen.hpp>

int main(int argc, char** argv) {
    namespace pg = proxgen;
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: make_test_data OUT_DIR [SIZE]\n");
        return 1;
    }
    const std::string dir = argv[1];
    const int n = argc > 2 ? std::atoi(argv[2]) : 64;
    if (n < 16) {
        std::fprintf(stderr, "make_test_data: SIZE must be >= 16\n");
        return 1;
    }
    pg::Image clean(n, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double u = double(x) / n, v = double(y) / n;
            double value = 0.1 + 0.2 * u;                                             // ramp
            if (u > 0.2 && u < 0.55 && v > 0.15 && v < 0.7) value = 0.7;                // rectangle
            if ((u - 0.7) * (u - 0.7) + (v - 0.6) * (v - 0.6) < 0.04) value = 0.9;      // disc
            if (v > 0.8 && u > 0.1 && u < 0.9 && int(x / 4) % 2 == 0) value = 0.5;      // bars
            clean(x, y) = float(value);
        }
    pg::Image kernel(9, 9);
    double sum = 0;
    for (int y = 0; y < 9; ++y)
        for (int x = 0; x < 9; ++x) sum += kernel(x, y) = float(std::exp(-((x - 4) * (x - 4) + (y - 4) * (y - 4)) / 8.0));
    for (int y = 0; y < 9; ++y)
        for (int x = 0; x < 9; ++x) kernel(x, y) = float(kernel(x, y) / sum);
    try {
        pg::save_image(dir + "/clean.png", clean);
        pg::save_image(dir + "/kernel.npy", kernel);
    } catch (const pg::Error& e) {
        std::fprintf(stderr, "make_test_data: %s\n", e.what());
        return 1;
    }
    return 0;
}
