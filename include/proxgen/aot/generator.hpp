// The ahead-of-time generator's entry points (built into the generator executable that
// proxgen_add_solver makes from a user's problem header; see docs/deploy.md). Only the generator
// links libHalide; what it emits needs the Halide runtime alone.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "proxgen/ir/ir.hpp"
#include "proxgen/typed/solve.hpp"

namespace proxgen::rt {
class Problem;
}

namespace proxgen::aot {

/// The plan the generated solvers run: the algorithm's plan, except that for Pock–Chambolle and
/// linearized ADMM a spectral (FFT / DCT) x-update (several variables: any variable's block) is
/// replaced by the Halide-only plan of the same algorithm: every term without a per-pixel
/// closed-form prox is split into Ψ and proxed, so every step is a Halide pipeline (portable to any
/// Halide target, GPUs included). ADMM keeps its plan: its spectral x-update runs on the generated
/// FFT passes. Plans that are already Halide-only come back unchanged. Throws proxgen::Error for
/// algorithms without an ahead-of-time loop (Pock–Chambolle, linearized ADMM and ADMM have one).
ir::Problem halide_only(ir::Problem p);

/// Why `name` cannot name a generated solver (it becomes a C++ namespace and prefixes C symbols):
/// not an identifier, a C++ keyword, a reserved or already used name; "" when it can.
std::string solver_name_problem(const std::string& name);

/// The generator's command line for one planned problem:
///   <generator> -o <dir> -n <name> -t <halide target> [-s <autoscheduler plugin name>]
///   <generator> -o <dir> -r <file stem> -t <halide target>        (the shared runtime only)
/// writes <dir>/<name>.a (the step pipelines, without the runtime), <dir>/<name>.h (the typed
/// solver interface), <dir>/<name>_pipelines.h (Halide's declarations). Returns the exit status;
/// errors are printed as one sentence.
int generator_main(const ir::Problem& planned, int argc, char** argv);

/// The same for a run-time problem (a problem file, rt::input): its named inputs and parameters
/// are the generated Data's fields, as the user has them (`data.b = b`, `data.lambda = 0.004f`),
/// and the generated init applies the rewrite rules to them (−b for `… − b`); the data the problem
/// does not name keep their derived fields.
int generator_main(const rt::Problem& problem, Algorithm a, int argc, char** argv);

/// Each term's named weight factors (pg::parameter) with their values, terms in written order.
using NamedWeights = std::vector<std::vector<std::pair<std::string, double>>>;
/// Those of a typed problem (detail::normalized).
template <class N>
NamedWeights named_weights(const N& n) {
    NamedWeights weights;
    boost::hana::for_each(n.terms, [&](const auto& t) { weights.push_back(t.parameters); });
    return weights;
}

/// The same for a typed problem, planned (`planned`) and as written (`terms`, typed::to_draft, with
/// `weights`): where its data carry names (pg::input, pg::parameter; proxgen/typed/named.hpp) they
/// are the generated Data's fields as for a run-time problem (the overload above); otherwise the
/// plan's data keep their derived fields.
int generator_main(const ir::Problem& planned, const plan::Draft& terms, const NamedWeights& weights, int argc,
                   char** argv);

/// Takes `-a <algorithm>` out of `args` (argv without its end) and returns that algorithm's position
/// in `built`, the algorithms a generator was compiled for; without -a, 0 (the first); -1 after
/// printing one sentence naming the algorithm and those built when it is unknown or not among them.
int take_algorithm_argument(std::vector<char*>& args, const std::vector<Algorithm>& built);

/// The same from a typed problem: plans it (at compile time) for each algorithm of As, and on the
/// command line's `-a <algorithm>` (one of As, by any of its names; default: the first) lowers that
/// plan to the IR, then runs the command line above. This is all a user's generator main() calls;
/// proxgen_add_solver builds one generator per problem function for all the algorithms its solvers
/// name, so a problem's solvers by several algorithms compile the problem once.
template <Algorithm... As, class P>
int generator_main(const P& problem, int argc, char** argv) {
    static_assert(sizeof...(As) > 0, "generator_main<A...>: name at least one algorithm to plan the problem for");
    std::vector<char*> args(argv, argv + argc);
    const int chosen = take_algorithm_argument(args, {As...});
    if (chosen < 0) return 1;
    args.push_back(nullptr);
    const int n_args = int(args.size()) - 1;
    const auto n = detail::normalized(problem);
    int status = 1;
    int i = 0;
    ((i++ == chosen ? void(status = generator_main(detail::plan_for<As>(n), typed::to_draft(n), named_weights(n),
                                                   n_args, args.data()))
                    : void()),
     ...);
    return status;
}

}  // namespace proxgen::aot
