// What every `proxgen` subcommand shares: its exit codes, NAME=VALUE arguments, loading a problem
// file with its inputs and parameters, algorithm names. See docs/cli.md.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <proxgen/frontend/problem_file.hpp>
#include <proxgen/proxgen.hpp>

namespace proxgen::cli {

/// The documented exit codes (docs/cli.md; `proxgen --help` prints them).
enum Exit : int {
    ok = 0,
    bad_input = 1,       ///< the command line, the problem file, an input image, a name
    not_converged = 2,   ///< the solve ran --iters without meeting --eps, or stopped as likely infeasible
                         ///< or unbounded (the outputs are written)
    failed = 3,          ///< solving or generating failed (divergence, memory that cannot be allocated, a
                         ///< Halide error, an unwritable output)
    internal_error = 4   ///< a ProxGen bug
};

/// Stops the command with an exit code and a message for stderr.
struct Stop : std::runtime_error {
    Exit code;
    Stop(Exit c, const std::string& message) : std::runtime_error(message), code(c) {}
};

/// Runs a stage of a command, turning proxgen::Errors (and other run-time errors) into Stop with
/// the stage's exit code.
template <class F>
auto stage(Exit code, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const Stop&) {
        throw;
    } catch (const std::logic_error&) {
        throw;  // an internal error: main reports it as a bug
    } catch (const std::exception& e) {
        throw Stop(code, e.what());
    }
}

/// "name=value" split at the first '='; Stop(bad_input) naming the option otherwise.
std::pair<std::string, std::string> split_assignment(const std::string& arg, const char* option);

/// The problem's data and parameters as given: --input NAME=FILE and --param NAME=VALUE.
struct DataOptions {
    std::vector<std::string> inputs, params;
};
/// A batch given on the command line: --input values naming several files (a folder, or a pattern
/// with * ? or [ ]) make one member per file, in sorted file-name order; every such input must name
/// as many files. Member i's name is the stem of its file of the first such input ("frame_003").
struct BatchFiles {
    std::vector<std::string> names;                         ///< per member
    std::map<std::string, std::vector<std::string>> files;  ///< input name → one file per member
    bool empty() const { return files.empty(); }
};
/// The --input values that name several files; Stop(bad_input) when one names no image file or two
/// name different counts.
BatchFiles batch_files(const DataOptions& d);
/// One image of an --input, checked finite (the message names the input and its file).
Image load_input(const std::string& name, const std::string& file);
/// The problem's data and parameters from --input NAME=FILE and --param NAME=VALUE; an input of
/// `batch` is bound to its first file (it sets the shapes). Without a batch, an input naming several
/// files is an error: only `proxgen solve` takes batches.
frontend::Bindings load_bindings(const DataOptions& d, const BatchFiles& batch = {});

/// Loads the problem file with the bindings; unused inputs and parameters are errors (a misspelt
/// name would otherwise be silently ignored).
rt::Problem load_problem(const std::string& path, const frontend::Bindings& b);

/// "" when --algorithm accepts s (any name of proxgen's algorithm table, proxgen/algorithm.hpp, and
/// "all" where the command runs every algorithm), else the sentence that lists what it accepts.
std::string algorithm_error(const std::string& s, bool all);
/// The algorithm an --algorithm value names; Stop(bad_input) with algorithm_error otherwise.
Algorithm algorithm_option(const std::string& s);
/// The algorithms an --algorithm value names: one, or every one for "all".
std::vector<Algorithm> algorithms_named(const std::string& option);

}  // namespace proxgen::cli
