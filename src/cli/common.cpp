#include "common.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <proxgen/check/rules.hpp>

namespace proxgen::cli {

std::pair<std::string, std::string> split_assignment(const std::string& arg, const char* option) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
        throw Stop(bad_input, fmt::format("{} expects NAME=VALUE, got '{}'", option, arg));
    return {arg.substr(0, eq), arg.substr(eq + 1)};
}

frontend::Bindings load_bindings(const DataOptions& d) {
    frontend::Bindings b;
    for (const auto& arg : d.inputs) {
        auto [name, file] = split_assignment(arg, "--input");
        if (b.inputs.count(name)) throw Stop(bad_input, fmt::format("--input {} is given twice", name));
        Image image = stage(bad_input, [&] { return load_image(file); });
        // named as the command line gave it: the input's name and its file
        if (std::string m = rules::finite_data(fmt::format("input '{}' (file {})", name, file), image.data(), image.sizes());
            !m.empty())
            throw Stop(bad_input, m);
        b.inputs.emplace(name, std::move(image));
    }
    for (const auto& arg : d.params) {
        auto [name, text] = split_assignment(arg, "--param");
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
            throw Stop(bad_input, fmt::format("--param {}: expected a number, got '{}'", name, text));
        if (b.parameters.count(name)) throw Stop(bad_input, fmt::format("--param {} is given twice", name));
        b.parameters[name] = v;
    }
    return b;
}

rt::Problem load_problem(const std::string& path, const frontend::Bindings& b) {
    frontend::LoadedProblem p = stage(bad_input, [&] { return frontend::load_problem_file(path, b); });
    if (!p.unused_inputs.empty())
        throw Stop(bad_input, fmt::format("{}: the problem uses no input named {} (its inputs: {})", path,
                                          fmt::join(p.unused_inputs, ", "), fmt::join(p.problem.inputs(), ", ")));
    if (!p.unused_parameters.empty())
        throw Stop(bad_input, fmt::format("{}: the problem has no parameter named {} (its parameters: {})", path,
                                          fmt::join(p.unused_parameters, ", "),
                                          p.problem.parameters().empty() ? std::string("none")
                                                                          : fmt::format("{}", fmt::join(p.problem.parameters(), ", "))));
    return p.problem;
}

std::string algorithm_error(const std::string& s, bool all) {
    if ((all && s == "all") || parse_algorithm(s)) return {};
    return fmt::format("unknown algorithm '{}': the algorithms are {}{}", s, accepted_algorithm_names(),
                       all ? ", or 'all' for each" : "");
}

Algorithm algorithm_option(const std::string& s) {
    if (auto a = parse_algorithm(s)) return *a;
    throw Stop(bad_input, "--algorithm: " + algorithm_error(s, false));
}

std::vector<Algorithm> algorithms_named(const std::string& option) {
    std::vector<Algorithm> algorithms;
    if (option == "all")
        for (const AlgorithmNames& n : algorithm_table) algorithms.push_back(n.algorithm);
    else
        algorithms.push_back(algorithm_option(option));
    return algorithms;
}

}  // namespace proxgen::cli
