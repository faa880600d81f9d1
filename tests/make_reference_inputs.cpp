// Writes the reference problems' clean 512² scene as clean_512.npy (bit for bit the file of
// ProxImaL's reference data set: test_reference_problems.cpp) into a directory, for the tests that
// run programs on an image file (the demo and application smoke tests).
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include <proxgen/io/image_io.hpp>

#include "reference_problems.hpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
        return 2;
    }
    try {
        const std::filesystem::path dir = argv[1];
        std::filesystem::create_directories(dir);
        proxgen::save_image((dir / "clean_512.npy").string(), proxgen::reference::clean_image(512).to_image());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_reference_inputs: %s\n", e.what());
        return 1;
    }
    return 0;
}
