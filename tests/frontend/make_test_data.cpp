// Writes the synthetic data the command-line tests use (no photograph is needed in CI):
//   make_test_data OUT_DIR [SIZE] [--bad]  ->  OUT_DIR/clean.png (SIZE², default 64: a few flat
//   shapes on a smooth ramp, values in [0.1, 0.9]) and OUT_DIR/kernel.npy (9x9 Gaussian, sigma 2,
//   sum 1, the same as data/blur_kernel_9x9.npy), OUT_DIR/mask.npy ((SIZE/2)², 0 or 1, about three in
//   four samples kept: the masked super-resolution's mask); with --bad also the clean image with one bad
//   sample at (x, y) = (4, 12): nonfinite.npy (float32, +inf) and huge64.npy (float64, 1e308, more
//   than float32 holds).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <proxgen/proxgen.hpp>

namespace {
/// img as a float64 .npy (ProxGen writes float32 only), with the sample at (bx, by) set to `value`.
void write_float64_npy(const std::string& path, const proxgen::Image& img, int bx, int by, double value) {
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(img.height()) + ", " +
                         std::to_string(img.width()) + "), }";
    header.append(63 - (10 + header.size()) % 64, ' ');  // 10 + header + '\n' on a 64-byte boundary
    header += '\n';
    std::ofstream f(path, std::ios::binary);
    f.write("\x93NUMPY\x01\x00", 8);
    const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                  static_cast<unsigned char>(header.size() >> 8)};
    f.write(reinterpret_cast<const char*>(len), 2);
    f << header;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const double v = x == bx && y == by ? value : double(img(x, y));
            unsigned char bytes[8];
            std::memcpy(bytes, &v, 8);  // little-endian hosts (x86-64, arm64), as '<f8' says
            f.write(reinterpret_cast<const char*>(bytes), 8);
        }
    if (!f) throw proxgen::Error("make_test_data: cannot write " + path);
}
}  // namespace

int main(int argc, char** argv) {
    namespace pg = proxgen;
    const bool bad = argc > 3 && std::string(argv[3]) == "--bad";
    if (argc < 2 || argc > 4 || (argc == 4 && !bad)) {
        std::fprintf(stderr, "usage: make_test_data OUT_DIR [SIZE] [--bad]\n");
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
        pg::Image mask(n / 2, n / 2);
        unsigned state = 2463534242u;  // xorshift32: the same mask on every machine
        for (int y = 0; y < n / 2; ++y)
            for (int x = 0; x < n / 2; ++x) {
                state ^= state << 13, state ^= state >> 17, state ^= state << 5;
                mask(x, y) = state % 4 == 0 ? 0.0f : 1.0f;
            }
        pg::save_image(dir + "/mask.npy", mask);
        if (bad) {
            pg::Image nonfinite = clean.copy();
            nonfinite(4, 12) = INFINITY;
            pg::save_image(dir + "/nonfinite.npy", nonfinite);
            write_float64_npy(dir + "/huge64.npy", clean, 4, 12, 1e308);
        }
    } catch (const pg::Error& e) {
        std::fprintf(stderr, "make_test_data: %s\n", e.what());
        return 1;
    }
    return 0;
}
