// proxgen — the command line (docs/cli.md): solve, describe and generate problem files (text or
// JSON, docs/problem-files.md), plus apply / compare for synthetic data and ops for the catalogue.
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.hpp"

namespace {

using namespace proxgen::cli;

constexpr const char* exit_codes =
    "Exit codes: 0 done (a solve converged, or ran exactly --iters with --eps 0); 1 bad command line, problem "
    "file, input image, option value, weight or name; 2 the solve did not converge within --iters or stopped as "
    "likely infeasible or unbounded (outputs written); 3 solving or generating failed (divergence, memory that "
    "cannot be allocated, a Halide error, an unwritable output); 4 internal error (a ProxGen bug).";

void add_data(CLI::App* c, DataOptions& d) {
    c->add_option("-i,--input", d.inputs,
                  fmt::format("a data image of the problem: NAME=FILE ({})", proxgen::image_file_extensions()))
        ->type_name("NAME=FILE");
    c->add_option("-p,--param", d.params, "a parameter's value: NAME=VALUE (replaces the file's default)")
        ->type_name("NAME=VALUE");
}

CLI::Option* add_algorithm(CLI::App* c, std::string& a, bool all) {
    CLI::Validator known([all](const std::string& s) { return algorithm_error(s, all); }, "", "algorithm");
    return c->add_option("-a,--algorithm", a,
                         fmt::format("the algorithm: {}{}", proxgen::accepted_algorithm_names(), all ? ", or 'all'" : ""))
        ->type_name("ALGORITHM")
        ->check(known)
        ->capture_default_str();
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"proxgen: solve image-optimization problems written as text or JSON graphs "
                 "(docs/cli.md, docs/problem-files.md)"};
    app.footer(exit_codes);
    app.require_subcommand(1);
    app.set_version_flag("--version", PROXGEN_VERSION);

    SolveOptions so;
    auto* s = app.add_subcommand("solve", "solve a problem file and write its variables");
    s->add_option("problem", so.problem, "the problem file: text, or JSON when it ends in .json")->required();
    add_data(s, so.data);
    add_algorithm(s, so.algorithm, false);
    s->add_option("-n,--iters", so.iters, "maximum number of iterations")->capture_default_str();
    s->add_option("--eps", so.eps, "tolerance of both residuals (absolute and relative); 0: run exactly --iters")
        ->capture_default_str();
    s->add_option("--check-every", so.check_every, "measure the residuals every N iterations")->capture_default_str();
    s->add_option("-o,--out", so.outputs, "where to write a variable: NAME=FILE, or FILE for a problem in one variable")
        ->type_name("NAME=FILE")
        ->required();
    s->add_flag("-q,--quiet", so.quiet, "print nothing but errors");
    s->add_flag("--no-objective", so.no_objective, "do not evaluate the objective at each residual check");
    s->add_flag("--precondition", so.precondition,
                "Pock-Chambolle: block-diagonal preconditioning, a dual step per split term (for badly scaled "
                "problems)");
    s->add_option("--tier", so.tier,
                  "the kernels that iterate: fused (pipelines compiled for the problem's whole structure, the "
                  "fastest iterations), per-card (each card's own kernels, shared by every structure: no "
                  "compiler wait for a new structure) or auto (per-card until the fused kernels, compiled "
                  "meanwhile, take over)")
        ->check(CLI::IsMember({"fused", "per-card", "auto"}))
        ->capture_default_str();
    s->add_option("--hqs-growth", so.hqs_growth, "HQS: the penalty rho grows by this factor at each stage")
        ->capture_default_str();
    s->add_option("--hqs-every", so.hqs_every, "HQS: iterations per stage of the penalty")->capture_default_str();
    s->add_option("--hqs-max-ratio", so.hqs_max_ratio,
                  "HQS: the largest penalty as a multiple of its first (the continuation stops growing there)")
        ->capture_default_str();
    s->footer(exit_codes);

    DescribeOptions dop;
    auto* d = app.add_subcommand("describe", "print the plan of a problem file (terms split, x-update, steps)");
    d->add_option("problem", dop.problem, "the problem file: text, or JSON when it ends in .json")->required();
    add_data(d, dop.data);
    add_algorithm(d, dop.algorithm, true);
    d->footer(exit_codes);

    GenerateOptions go;
    auto* g = app.add_subcommand("generate", "write an ahead-of-time solver (static library + header) per Halide target");
    g->add_option("problem", go.problem, "the problem file: text, or JSON when it ends in .json")->required();
    add_data(g, go.data);
    g->add_option("--name", go.name, "the solver's name (a C identifier; prefixes every symbol)")->required();
    g->add_option("--targets", go.targets, "Halide targets, comma-separated, e.g. x86-64-linux-avx2,arm-64-linux")
        ->delimiter(',')
        ->required();
    g->add_option("--out-dir", go.out_dir, "output folder (one subfolder per target)")->required();
    add_algorithm(g, go.algorithm, false);
    g->add_option("--iterations-per-call", go.iterations_per_call,
                  "> 1: also a fused NAME_iterate running N iterations per call (fixed steps)")
        ->capture_default_str();
    g->footer(exit_codes);

    ObjectiveOptions oo;
    auto* ob = app.add_subcommand("objective", "print the problem's objective (float64) at given values of its variables");
    ob->add_option("problem", oo.problem, "the problem file: text, or JSON when it ends in .json")->required();
    add_data(ob, oo.data);
    ob->add_option("--at", oo.at, "a variable's value: NAME=FILE, or FILE for a problem in one variable")
        ->type_name("NAME=FILE")
        ->required();
    ob->footer(exit_codes);

    ApplyOptions ao;
    auto* ap = app.add_subcommand("apply", "evaluate a linear expression at a value of its variable (synthetic data)");
    ap->add_option("expression", ao.expression, "the expression, in the problem text syntax, e.g. 'conv(k, x)'")
        ->required();
    ap->add_option("-i,--input", ao.inputs, "a data image the expression uses: NAME=FILE")->type_name("NAME=FILE");
    ap->add_option("--at", ao.at, "the variable's value: NAME=FILE")->type_name("NAME=FILE")->required();
    ap->add_option("-o,--out", ao.output, "the output image file")->required();
    ap->add_option("--noise", ao.noise, "add Gaussian noise of this standard deviation")->capture_default_str();
    ap->add_option("--seed", ao.seed, "the noise's random seed")->capture_default_str();
    ap->footer(exit_codes);

    CompareOptions co;
    auto* cp = app.add_subcommand("compare", "print the PSNR (peak 1) of images against a reference");
    cp->add_option("reference", co.reference, "the reference image")->required();
    cp->add_option("images", co.images, "the images to compare")->required();

    BenchOptions bo;
    auto* b = app.add_subcommand("bench", "time the problem's iteration per algorithm: ms, bytes moved, GB/s, "
                                          "fraction of the measured memory bandwidth");
    b->add_option("problem", bo.problem, "the problem file: text, or JSON when it ends in .json")->required();
    add_data(b, bo.data);
    add_algorithm(b, bo.algorithm, true);
    b->add_option("--short", bo.short_iters, "iterations of the short run")->capture_default_str();
    b->add_option("--long", bo.long_iters, "iterations of the long run")->capture_default_str();
    b->add_option("--repeats", bo.repeats, "runs of each length; the least disturbed counts")->capture_default_str();
    b->add_flag("--to-tolerance", bo.to_tolerance,
                "instead: iterations and time to a relative objective gap of 1e-3 and 1e-4, and to the default "
                "stopping rule, per algorithm");
    b->add_option("--optimum", bo.optimum, "--to-tolerance: the optimal objective f* (default: the lowest objective "
                                           "of long runs of every algorithm that plans)")
        ->each([&](const std::string&) { bo.optimum_given = true; });
    b->add_option("--optimum-iters", bo.optimum_iters, "--to-tolerance: iterations of each long run for f*")
        ->capture_default_str();
    b->add_option("--max-iters", bo.max_iters, "--to-tolerance: at most this many iterations per measurement")
        ->capture_default_str();
    b->footer(exit_codes);

    app.add_subcommand("ops", "list the operators and penalties a problem file can use");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);  // prints the help or the error
        return code == 0 ? ok : bad_input;
    }
    try {
        if (s->parsed()) return solve(so);
        if (d->parsed()) return describe(dop);
        if (g->parsed()) return generate(go);
        if (ap->parsed()) return apply(ao);
        if (cp->parsed()) return compare(co);
        if (ob->parsed()) return objective(oo);
        if (b->parsed()) return bench(bo);
        return list_operators();
    } catch (const Stop& e) {
        std::fflush(stdout);
        fmt::print(stderr, "proxgen: error: {}\n", e.what());
        return e.code;
    } catch (const proxgen::Error& e) {
        std::fflush(stdout);
        fmt::print(stderr, "proxgen: error: {}\n", e.what());
        return bad_input;
    } catch (const std::exception& e) {
        std::fflush(stdout);
        fmt::print(stderr, "proxgen: internal error (a bug, please report it): {}\n", e.what());
        return internal_error;
    }
}
