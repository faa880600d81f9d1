// The `proxgen` subcommands: their options (filled by main.cpp's CLI11 set-up) and what they run.
// Each returns an exit code (common.hpp) or throws Stop.
#pragma once

#include <string>
#include <vector>

#include "common.hpp"

namespace proxgen::cli {

struct SolveOptions {
    std::string problem;
    DataOptions data;
    std::string algorithm = "pc";
    // numbers as given (1e12 too), checked against the options' ranges before narrowing to int
    double iters = 500;
    double eps = 1e-4;
    double check_every = 10;
    std::vector<std::string> outputs;  // NAME=FILE, or FILE for a problem in one variable
    bool quiet = false, no_objective = false;
    bool precondition = false;  ///< Options::precondition
    std::string tier = "fused";  ///< Options::tier: fused, per-card or auto
    // HQS's continuation (Options::hqs_*): ρ ← ρ·growth every `every` iterations up to ρ₀·max_ratio
    double hqs_growth = Options{}.hqs_growth;
    double hqs_every = Options{}.hqs_every;
    double hqs_max_ratio = Options{}.hqs_max_ratio;
};
int solve(const SolveOptions& o);

struct DescribeOptions {
    std::string problem;
    DataOptions data;
    std::string algorithm = "all";
};
int describe(const DescribeOptions& o);

struct GenerateOptions {
    std::string problem;
    DataOptions data;
    std::string name, out_dir, algorithm = "pc";
    std::vector<std::string> targets;
    int iterations_per_call = 1;
};
int generate(const GenerateOptions& o);

struct ObjectiveOptions {
    std::string problem;
    DataOptions data;
    std::vector<std::string> at;  // NAME=FILE per variable, or FILE for a problem in one variable
};
int objective(const ObjectiveOptions& o);

struct ApplyOptions {
    std::string expression;
    std::vector<std::string> inputs, at;
    std::string output;
    double noise = 0;
    unsigned seed = 0;
};
int apply(const ApplyOptions& o);

struct CompareOptions {
    std::string reference;
    std::vector<std::string> images;
};
int compare(const CompareOptions& o);

struct BenchOptions {
    std::string problem;
    DataOptions data;
    std::string algorithm = "all";
    int short_iters = 20, long_iters = 220, repeats = 3;
    /// --to-tolerance: iterations and time to a relative objective gap of 1e-3 and 1e-4 instead
    bool to_tolerance = false;
    double optimum = 0;          ///< f* (0 with optimum_given false: from long runs)
    bool optimum_given = false;
    int optimum_iters = 5000;    ///< iterations of each algorithm's run for f*
    int max_iters = 3000;        ///< cap of the measuring runs
};
int bench(const BenchOptions& o);

int list_operators();

}  // namespace proxgen::cli
