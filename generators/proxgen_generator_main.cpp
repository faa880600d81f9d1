// The generator executable proxgen_add_solver builds from a user's problem header: it calls the
// problem function (placeholder data: image sizes and data are run-time inputs of the generated
// solver, only the structure matters here) and hands the planned problem to ProxGen's generator.
#include <cstdio>

#include PROXGEN_PROBLEM_HEADER
#include <proxgen/aot/generator.hpp>

int main(int argc, char** argv) {
    try {
        return proxgen::aot::generator_main<proxgen::Algorithm::PROXGEN_ALGORITHM>(PROXGEN_PROBLEM_FUNCTION(), argc,
                                                                                   argv);
    } catch (const proxgen::Error& e) {
        std::fprintf(stderr, "generator: the problem function failed: %s\n", e.what());
        return 1;
    }
}
