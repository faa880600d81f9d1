// The `proxgen` subcommands run in process (src/cli is a library for this): what the end-to-end
// scripts (cli_*.cmake) cannot see from outside, such as how often a command plans its problem,
// and the algorithm names every command accepts.
#include <filesystem>
#include <fstream>
#include <limits>
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

TEST_CASE("proxgen solve passes HQS's continuation options on, and refuses values out of their range", "[cli]") {
    const ProblemFolder f("hqs_options");
    const pg::Image b = pg::load_image(f / "b.npy");
    const pg::rt::Expr x = pg::rt::variable("x", {16, 16});
    const pg::rt::Problem prob = pg::rt::sum_squares(x - pg::rt::input("b", b)) +
                                 0.1 * pg::rt::group_norm1(pg::rt::grad(x)) + pg::rt::nonneg(x);
    pg::Options opt;
    opt.algorithm = pg::Algorithm::hqs;
    opt.max_iters = 12;
    opt.eps_abs = opt.eps_rel = 0;
    opt.check_every = 3;
    opt.hqs_growth = 3;
    opt.hqs_every = 2;
    opt.hqs_max_ratio = 10;
    const pg::Image expected = pg::rt::solve(prob, opt)["x"];
    pg::Options defaults = opt;
    defaults.hqs_growth = pg::Options{}.hqs_growth;
    defaults.hqs_every = pg::Options{}.hqs_every;
    defaults.hqs_max_ratio = pg::Options{}.hqs_max_ratio;
    const pg::Image with_defaults = pg::rt::solve(prob, defaults)["x"];
    // the options change the iterates: the comparison below sees whether they were passed
    REQUIRE_FALSE(std::equal(expected.data(), expected.data() + expected.size(), with_defaults.data()));

    cli::SolveOptions o = solve_options(f, "hqs");
    o.iters = 12;
    o.quiet = true;
    o.hqs_growth = 3;
    o.hqs_every = 2;
    o.hqs_max_ratio = 10;
    REQUIRE(cli::solve(o) == cli::ok);
    const pg::Image got = pg::load_image(f / "x.npy");
    REQUIRE(got.size() == expected.size());
    CHECK(std::equal(got.data(), got.data() + got.size(), expected.data()));

    cli::SolveOptions bad = o;
    bad.hqs_max_ratio = 0.5;
    CHECK_THROWS_WITH(cli::solve(bad), Catch::Matchers::Contains("--hqs-max-ratio") &&
                                           Catch::Matchers::Contains(">= 1"));
    bad = o;
    bad.hqs_growth = 1;
    CHECK_THROWS_WITH(cli::solve(bad), Catch::Matchers::Contains("--hqs-growth"));
    bad = o;
    bad.hqs_every = 0.5;
    CHECK_THROWS_WITH(cli::solve(bad), Catch::Matchers::Contains("--hqs-every"));
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
                  "'pc' (pock_chambolle), 'hqs' (half_quadratic_splitting), 'cv' (condat_vu, condat), 'auto' (automatic)");
        }
    }
}

TEST_CASE("proxgen solve with a folder of inputs solves a batch: one output per member, each the member's own "
          "solve, and a member whose file is bad fails alone", "[cli][batch]") {
    const ProblemFolder f("batch");
    fs::create_directories(f / "frames");
    fs::create_directories(f / "out");
    const pg::Image b = pg::load_image(f / "b.npy");
    for (int i = 0; i < 3; ++i) {
        pg::Image bi = b.copy();
        for (std::size_t p = 0; p < bi.size(); ++p) bi.data()[p] *= float(1 + i);
        pg::save_image(f / ("frames/frame" + std::to_string(i) + ".npy"), bi);
    }
    cli::SolveOptions o = solve_options(f, "pc");
    o.quiet = true;
    o.data.inputs = {"b=" + f / "frames"};
    o.outputs = {"x=" + f / "out/{}_x.npy"};
    CHECK(cli::solve(o) == cli::ok);
    for (int i = 0; i < 3; ++i) {
        INFO("member " << i);
        cli::SolveOptions one = solve_options(f, "pc");
        one.quiet = true;
        one.data.inputs = {"b=" + f / ("frames/frame" + std::to_string(i) + ".npy")};
        one.outputs = {f / "alone.npy"};
        CHECK(cli::solve(one) == cli::ok);
        const pg::Image batch = pg::load_image(f / ("out/frame" + std::to_string(i) + "_x.npy"));
        const pg::Image alone = pg::load_image(f / "alone.npy");
        CHECK(std::equal(batch.data(), batch.data() + batch.size(), alone.data()));
    }
    // a pattern; a member of another size fails alone (exit code 3), the others are written
    pg::save_image(f / "frames/frame3.npy", pg::Image(12, 16));
    fs::remove_all(f / "out");
    fs::create_directories(f / "out");
    o.data.inputs = {"b=" + f / "frames/frame*.npy"};
    o.outputs = {"x=" + f / "out/{i}.npy"};
    CHECK(cli::solve(o) == cli::failed);
    for (int i = 0; i < 3; ++i) CHECK(fs::exists(f / ("out/" + std::to_string(i) + ".npy")));
    CHECK_FALSE(fs::exists(f / "out/3.npy"));
    // an output without {} or {i} would overwrite one file: bad input
    o.outputs = {"x=" + f / "out/x.npy"};
    CHECK_THROWS_WITH(cli::solve(o), Catch::Matchers::Contains("one file per member"));
    // only solve takes batches
    cli::DescribeOptions d;
    d.problem = o.problem;
    d.data.inputs = {"b=" + f / "frames"};
    CHECK_THROWS_WITH(cli::describe(d), Catch::Matchers::Contains("only `proxgen solve` takes"));
}

TEST_CASE("proxgen compare refuses a NaN or an infinity instead of skipping it (silent wrong answers, item 8)",
          "[cli]") {
    const ProblemFolder f("compare_non_finite");
    pg::Image ref = pg::load_image(f / "b.npy"), bad = ref.copy(), close = ref.copy();
    bad(3, 2) = std::numeric_limits<float>::quiet_NaN();
    bad(4, 2) = std::numeric_limits<float>::infinity();
    close(0, 0) += 0.25f;
    pg::save_image(f / "bad.npy", bad);
    pg::save_image(f / "close.npy", close);
    // the finite image is compared, the other is reported and makes the exit code bad input
    CHECK(cli::compare({f / "b.npy", {f / "close.npy"}}) == cli::ok);
    CHECK(cli::compare({f / "b.npy", {f / "close.npy", f / "bad.npy"}}) == cli::bad_input);
    try {
        cli::compare({f / "bad.npy", {f / "close.npy"}});
        FAIL("a non-finite reference was accepted");
    } catch (const cli::Stop& e) {
        CHECK(e.code == cli::bad_input);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("non-finite sample (nan at x=3, y=2)"));
    }
}

TEST_CASE("proxgen bench --to-tolerance refuses an optimum that is not a finite number (silent wrong answers, item 8)",
          "[cli]") {
    const ProblemFolder f("bench_optimum");
    for (double optimum : {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()}) {
        cli::BenchOptions o;
        o.problem = f / "denoise.txt";
        o.data.inputs = {"b=" + f / "b.npy"};
        o.algorithm = "pc";
        o.to_tolerance = true;
        o.optimum = optimum;
        o.optimum_given = true;
        try {
            cli::bench(o);
            FAIL("accepted --optimum " << optimum);
        } catch (const cli::Stop& e) {
            CHECK(e.code == cli::bad_input);
            CHECK_THAT(e.what(), Catch::Matchers::Contains("must be a finite number"));
        }
    }
}
