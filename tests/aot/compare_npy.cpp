// Compares two float32 images: passes when ‖a − b‖₂ ≤ rtol · ‖b‖₂ (b is the reference) and
// neither holds NaN/Inf. Prints both the relative L2 and the relative max difference.
//   proxgen_aot_compare <a.npy> <reference.npy> <rtol>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <proxgen/proxgen.hpp>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s <a.npy> <reference.npy> <rtol>\n", argv[0]);
        return 2;
    }
    try {
        const proxgen::Image a = proxgen::load_image(argv[1]), b = proxgen::load_image(argv[2]);
        if (a.sizes() != b.sizes()) {
            std::fprintf(stderr, "compare: %s is %s but %s is %s\n", argv[1], a.shape_string().c_str(), argv[2],
                         b.shape_string().c_str());
            return 1;
        }
        double d2 = 0, b2 = 0, dmax = 0, bmax = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            const double d = double(a.data()[i]) - b.data()[i];
            if (!std::isfinite(d)) {
                std::fprintf(stderr, "compare: non-finite value at element %zu\n", i);
                return 1;
            }
            d2 += d * d;
            b2 += double(b.data()[i]) * b.data()[i];
            dmax = std::max(dmax, std::abs(d));
            bmax = std::max(bmax, std::abs(double(b.data()[i])));
        }
        const double rel = std::sqrt(d2) / std::sqrt(b2), rel_max = dmax / bmax;
        const double rtol = std::strtod(argv[3], nullptr);
        std::printf("compare: relative L2 difference %.3g, relative max difference %.3g (tolerance %.1g)\n", rel,
                    rel_max, rtol);
        return b2 > 0 && rel <= rtol ? 0 : 1;
    } catch (const proxgen::Error& e) {
        std::fprintf(stderr, "compare: %s\n", e.what());
        return 1;
    }
}
