// proxgen describe (the plan per algorithm) and proxgen ops (the catalogue).
#include <fmt/format.h>

#include <proxgen/ir/ir.hpp>

#include "commands.hpp"

namespace proxgen::cli {

int describe(const DescribeOptions& o) {
    const std::vector<Algorithm> algorithms = algorithms_named(o.algorithm);
    const rt::Problem problem = load_problem(o.problem, load_bindings(o.data));
    fmt::print("problem: {}\n", problem.to_string());
    for (const auto& v : problem.variables()) fmt::print("variable {}: {}\n", v.name, shape_string(v.shape));
    int plannable = 0;
    std::string last_error;
    for (Algorithm a : algorithms) {
        fmt::print("\n== {} ==\n", short_name(a));
        try {
            fmt::print("{}", rt::describe(problem, a));
            ++plannable;
        } catch (const Error& e) {
            // one algorithm may not plan a problem another does (ADMM needs an invertible x-update)
            fmt::print("not plannable: {}\n", e.what());
            last_error = e.what();
        }
    }
    if (plannable == 0) throw Stop(bad_input, last_error);
    return ok;
}

int list_operators() {
    for (bool penalties : {false, true}) {
        fmt::print("{}:\n", penalties ? "penalties" : "operators");
        for (const auto& s : rt::catalogue())
            if (s.penalty == penalties) fmt::print("  {}\n", s.text());
    }
    fmt::print("arithmetic: a + b, a - b, -e, s * e, e / s (s a number or a parameter); docs/operators.md\n");
    return ok;
}

}  // namespace proxgen::cli
