// Writes a small blurred test image and its kernel as .npy for the outside-project test.
#include <proxgen/proxgen.hpp>

int main(int argc, char** argv) {
    if (argc < 3) return 2;
    proxgen::Image b({40, 32}), k({3, 3});
    for (int j = 0; j < 32; ++j)
        for (int i = 0; i < 40; ++i) b(i, j) = (i > 10 && i < 25 && j > 8) ? 0.8f : 0.2f;
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) k(i, j) = 1.0f / 9;
    proxgen::save_image(argv[1], b);
    proxgen::save_image(argv[2], k);
}
