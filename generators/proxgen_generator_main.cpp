// The generator executable proxgen_add_solver builds from a user's problem header: it calls the
// problem function (placeholder data: image sizes and data are run-time inputs of the generated
// solver, only the structure matters here) and hands the problem, planned for the algorithm the
// command line's -a names, to ProxGen's generator. PROXGEN_ALGORITHMS lists the algorithms the
// problem's solvers in the build use (proxgen::Algorithm::admm, …): one generator serves them all.
#include <cstdio>

#include PROXGEN_PROBLEM_HEADER
#include <proxgen/aot/generator.hpp>

int main(int argc, char** argv) {
    try {
        return proxgen::aot::generator_main<PROXGEN_ALGORITHMS>(PROXGEN_PROBLEM_FUNCTION(), argc, argv);
    } catch (const proxgen::Error& e) {
        std::fprintf(stderr, "generator: the problem function failed: %s\n", e.what());
        return 1;
    }
}
