// proxgen generate: ahead-of-time solvers from a problem file, with the generator that
// proxgen_add_solver builds (proxgen/aot/generator.hpp), called in process once per target; the
// problem is never compiled as C++. Output per target T: OUT_DIR/T/NAME.a, NAME.h, NAME_pipelines.h
// and halide_runtime.a (the layout proxgen_add_solver uses, docs/deploy.md).
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <proxgen/aot/generator.hpp>
#include <proxgen/ir/ir.hpp>

#include "commands.hpp"

namespace proxgen::cli {

namespace {
/// Runs the generator's command line in process (the problem's named data become Data's fields).
int run_generator(const rt::Problem& problem, Algorithm algorithm, std::vector<std::string> args) {
    args.insert(args.begin(), "proxgen generate");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    return aot::generator_main(problem, algorithm, int(args.size()), argv.data());
}
}  // namespace

int generate(const GenerateOptions& o) {
    const Algorithm algorithm = algorithm_option(o.algorithm);
    if (algorithm == Algorithm::automatic)
        throw Stop(bad_input, "-a auto chooses the algorithm when solving, by probing; a generated solver runs one "
                              "algorithm: name it (pc, ladmm, admm, hqs or cv)");
    if (std::string m = aot::solver_name_problem(o.name); !m.empty()) throw Stop(bad_input, "--name: " + m);
    if (o.targets.empty()) throw Stop(bad_input, "--targets: give at least one Halide target, e.g. x86-64-linux-avx2");
    for (const auto& t : o.targets)
        if (t.empty())
            throw Stop(bad_input, fmt::format("--targets '{}': an empty target name; give Halide targets separated by "
                                              "commas, e.g. x86-64-linux-avx2,arm-64-linux",
                                              fmt::join(o.targets, ",")));
    if (o.iterations_per_call < 1 || o.iterations_per_call > 64)
        throw Stop(bad_input, fmt::format("--iterations-per-call must be in [1, 64], got {}", o.iterations_per_call));
    const rt::Problem problem = load_problem(o.problem, load_bindings(o.data));
    const rt::Plan plan = stage(bad_input, [&] { return rt::plan(problem, algorithm); });
    const ir::Problem& planned = plan.ir();
    // the algorithms without an ahead-of-time loop yet, and plans with nothing to iterate, say so here
    stage(bad_input, [&] { return aot::halide_only(planned); });

    for (const auto& target : o.targets) {
        const std::string dir = (std::filesystem::path(o.out_dir) / target).string();
        stage(bad_input, [&] { return std::filesystem::create_directories(dir); });
        if (run_generator(problem, algorithm,
                          {"-o", dir, "-n", o.name, "-t", target, "-i", std::to_string(o.iterations_per_call)}) != 0 ||
            run_generator(problem, algorithm, {"-o", dir, "-r", "halide_runtime", "-t", target}) != 0)
            throw Stop(failed, fmt::format("generating {} for target {} failed (the reason is printed above)", o.name, target));
        const bool fft = std::filesystem::exists(std::filesystem::path(dir) / (o.name + "_fft.h"));
        fmt::print("{0}: {0}.a {0}.h {0}_pipelines.h{2} halide_runtime.a in {1}\n", o.name, dir,
                   fft ? fmt::format(" {}_fft.h", o.name) : "");
    }
    fmt::print("link a program with NAME.a, halide_runtime.a, -lpthread -ldl; include NAME.h with ProxGen's include "
               "folder and HalideBuffer.h on the path (docs/deploy.md)\n");
    return ok;
}

}  // namespace proxgen::cli
