// proxgen describe (the plan per algorithm), proxgen objective (the problem's value at given
// variables) and proxgen ops (the catalogue).
#include <map>

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

int objective(const ObjectiveOptions& o) {
    const rt::Problem problem = load_problem(o.problem, load_bindings(o.data));
    const auto& variables = problem.variables();
    std::map<std::string, Image> values;
    for (const std::string& at : o.at) {
        // FILE alone names the only variable of a problem in one
        const bool named = at.find('=') != std::string::npos;
        if (!named && variables.size() != 1)
            throw Stop(bad_input, fmt::format("--at {}: the problem has {} variables; name each one, --at NAME=FILE",
                                              at, variables.size()));
        const auto [name, file] = named ? split_assignment(at, "--at") : std::pair{variables.front().name, at};
        if (!values.emplace(name, stage(bad_input, [&] { return load_image(file); })).second)
            throw Stop(bad_input, fmt::format("--at: variable '{}' is given twice", name));
    }
    // rt::objective names a variable missing, unknown or of another shape
    const double f = stage(bad_input, [&] { return rt::objective(problem, values); });
    fmt::print("objective {:.17g}\n", f);
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
