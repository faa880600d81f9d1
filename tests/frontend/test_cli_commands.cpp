// The `proxgen` subcommands run in process (src/cli is a library for this): what the end-to-end
// scripts (cli_*.cmake) cannot see from outside, such as how often a command plans its problem,
// and the algorithm names every command accepts.
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include <proxgen/proxgen.hpp>

#include "commands.hpp"

namespace pg = proxgen;
namespace cli = proxgen::cli;
namespace fs = std::filesystem;

namespace {

/// A fresh folder holding a small denoising problem file and its input b.
struct ProblemFolder {
    fs::path dir;
    explicit ProblemFolder(const std::string& name) : dir(fs::temp_directory_path() / ("proxgen_cli_" + name)) {
        fs::remove_all(dir);
        fs::create_directories(dir);
        pg::Image b(16, 16);
        for (int y = 0; y < 16; ++y)
            for (int x = 0; x < 16; ++x) b(x, y) = (x > 5 && x < 11 && y > 3) ? 0.8f : 0.2f + 0.01f * float(x + y);
        pg::save_image((dir / "b.npy").string(), b);
        std::ofstream((dir / "denoise.txt").string()) << "x = variable(16, 16)\n"
                                                         "sum_squares(x - b) + 0.1 * group_norm1(grad(x)) + nonneg(x)\n";
    }
    ~ProblemFolder() { fs::remove_all(dir); }
    std::string operator/(const std::string& file) const { return (dir / file).string(); }
};

cli::SolveOptions solve_options(const ProblemFolder& f, const std::string& algorithm) {
    cli::SolveOptions o;
    o.problem = f / "denoise.txt";
    o.data.inputs = {"b=" + f / "b.npy"};
    o.algorithm = algorithm;
    o.iters = 6;
    o.eps = 0;
    o.check_every = 3;
    o.outputs = {f / "x.npy"};
    return o;
}

}  // namespace

TEST_CASE("proxgen solve plans its problem once", "[cli]") {
    const ProblemFolder f("plans_once");
    for (bool quiet : {false, true}) {
        // not quiet: the objective is tracked at each check and printed at the end, on the same plan
        INFO("quiet " << quiet);
        cli::SolveOptions o = solve_options(f, "admm");
        o.quiet = quiet;
        const std::size_t before = pg::rt::detail::plans_made();
        CHECK(cli::solve(o) == cli::ok);
        CHECK(pg::rt::detail::plans_made() - before == 1);
        CHECK(fs::exists(f / "x.npy"));
    }
}

TEST_CASE("proxgen solve's result is rt::solve's for the same algorithm, under every name of it", "[cli]") {
    const ProblemFolder f("names");
    const pg::Image b = pg::load_image(f / "b.npy");
    const pg::rt::Expr x = pg::rt::variable("x", {16, 16});
    const pg::rt::Problem prob = pg::rt::sum_squares(x - pg::rt::input("b", b)) +
                                 0.1 * pg::rt::group_norm1(pg::rt::grad(x)) + pg::rt::nonneg(x);
    for (const pg::AlgorithmNames& n : pg::algorithm_table) {
        pg::Options opt;
        opt.algorithm = n.algorithm;
        opt.max_iters = 6;
        opt.eps_abs = opt.eps_rel = 0;
        opt.check_every = 3;
        const pg::Image expected = pg::rt::solve(prob, opt)["x"];
        std::vector<std::string_view> names = {n.name, n.short_name};
        for (std::string_view alias : n.aliases)
            if (!alias.empty()) names.push_back(alias);
        for (std::string_view name : names) {
            INFO(std::string(name));
            cli::SolveOptions o = solve_options(f, std::string(name));
            o.quiet = true;
            REQUIRE(cli::solve(o) == cli::ok);
            const pg::Image got = pg::load_image(f / "x.npy");
            REQUIRE(got.size() == expected.size());
            CHECK(std::equal(got.data(), got.data() + got.size(), expected.data()));
        }
    }
}

TEST_CASE("an unknown --algorithm is bad input listing every accepted name", "[cli]") {
    const ProblemFolder f("unknown");
    for (const std::string& command : {"solve", "describe"}) {
        INFO(command);
        try {
            if (command == "solve") cli::solve(solve_options(f, "fista"));
            else cli::describe(cli::DescribeOptions{f / "denoise.txt", {{"b=" + f / "b.npy"}, {}}, "fista"});
            FAIL("no error");
        } catch (const cli::Stop& e) {
            CHECK(e.code == cli::bad_input);
            CHECK(std::string(e.what()) ==
                  "--algorithm: unknown algorithm 'fista': the algorithms are 'admm', 'ladmm' (linearized_admm), "
                  "'pc' (pock_chambolle), 'hqs' (half_quadratic_splitting), 'auto' (automatic)");
        }
    }
}
