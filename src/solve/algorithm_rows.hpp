// Internal: what the library runs for each algorithm, one row per algorithm (the public names are
// proxgen/algorithm.hpp's algorithm_table, in the same order). Code that depends on the algorithm
// reads its row instead of switching over Algorithm: a new algorithm is its card
// (proxgen/algorithms/), its runner, and a row here.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "proxgen/algorithm.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/solve/options.hpp"
#include "proxgen/solve/result.hpp"

namespace proxgen::lower {
struct DataArgs;
}
namespace proxgen::gradients {
class Stepper;
struct Request;
}  // namespace proxgen::gradients

namespace proxgen::detail {

struct QuickStart;

struct AlgorithmRow {
    Algorithm algorithm;
    /// Runs the algorithm's card over the JIT's runner on a plan made for it (norm bounds set; the
    /// planner's bounds where quick->norms brings the tight ones later).
    Result (*solve)(const ir::Problem& p, const Options& opt, const Result* warm, QuickStart* quick);
    /// The gradients' stepper (one iteration and its reverse); null where it is not differentiated.
    std::unique_ptr<gradients::Stepper> (*stepper)(const ir::Problem& p, const gradients::Request& req,
                                                   lower::DataArgs& data);
    /// The steps of n iterations without adaptation, one list per iteration in the stepper's order;
    /// null with the stepper.
    std::vector<std::vector<double>> (*default_steps)(const ir::Problem& p, const Options& opt, int n);
    /// Seconds per iteration relative to Pock–Chambolle's on the same problem, a constant measured
    /// on the 2-core AVX-512 VM (64²–512² deconvolutions; docs/algorithms.md): Algorithm::automatic
    /// compares candidates by probed iterations × this, so its choice depends on the problem only.
    double iteration_cost;
    /// The names of its step sizes, in the order of default_steps' lists and of the gradients with
    /// respect to them ("" past the last).
    std::array<std::string_view, 3> step_names;
    /// Full-size state planes an iteration reads and writes, for the bytes-moved estimate: those of
    /// x, and those of each split term (its dual, or its z and u).
    double x_planes_moved, planes_moved_per_split_term;
    /// Full-size planes the state holds, for its size: x's (PC's x and x̄), each split term's (a
    /// dual; z and u; HQS's z).
    double x_state_planes, state_planes_per_split_term;
    /// describe's line(s) of the default steps on a plan made for it (norm bounds set).
    std::string (*describe_steps)(const ir::Problem& p, const Options& opt);
};

/// The row of a running algorithm (not Algorithm::automatic, which chooses one of them).
const AlgorithmRow& algorithm_row(Algorithm a);

}  // namespace proxgen::detail
