#include "common.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include <glob.h>

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

namespace {

bool names_several_files(const std::string& value) {
    return value.find_first_of("*?[") != std::string::npos || std::filesystem::is_directory(value);
}

/// The image files a folder holds, or a pattern matches, sorted by name.
std::vector<std::string> files_named_by(const std::string& value) {
    std::vector<std::string> files;
    if (std::filesystem::is_directory(value)) {
        for (const auto& entry : std::filesystem::directory_iterator(value))
            if (entry.is_regular_file() && is_image_file(entry.path().string())) files.push_back(entry.path().string());
    } else {
        glob_t g{};
        if (::glob(value.c_str(), 0, nullptr, &g) == 0)
            for (std::size_t i = 0; i < g.gl_pathc; ++i)
                if (std::filesystem::is_regular_file(g.gl_pathv[i])) files.emplace_back(g.gl_pathv[i]);
        ::globfree(&g);
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

BatchFiles batch_files(const DataOptions& d) {
    BatchFiles batch;
    std::string first;
    for (const auto& arg : d.inputs) {
        auto [name, value] = split_assignment(arg, "--input");
        if (!names_several_files(value)) continue;
        std::vector<std::string> files = files_named_by(value);
        if (files.empty())
            throw Stop(bad_input, fmt::format("--input {}: '{}' names no image file ({})", name, value,
                                              image_file_extensions()));
        if (first.empty()) {
            first = name;
            for (const auto& f : files) batch.names.push_back(std::filesystem::path(f).stem().string());
        } else if (files.size() != batch.names.size()) {
            throw Stop(bad_input, fmt::format("--input {}: '{}' names {} files but --input {} names {}: a batch's inputs "
                                              "give one file per member each",
                                              name, value, files.size(), first, batch.names.size()));
        }
        batch.files[name] = std::move(files);
    }
    return batch;
}

Image load_input(const std::string& name, const std::string& file) {
    Image image = stage(bad_input, [&] { return load_image(file); });
    // named as the command line gave it: the input's name and its file
    if (std::string m = rules::finite_data(fmt::format("input '{}' (file {})", name, file), image.data(), image.sizes());
        !m.empty())
        throw Stop(bad_input, m);
    return image;
}

frontend::Bindings load_bindings(const DataOptions& d, const BatchFiles& batch) {
    frontend::Bindings b;
    for (const auto& arg : d.inputs) {
        auto [name, file] = split_assignment(arg, "--input");
        if (b.inputs.count(name)) throw Stop(bad_input, fmt::format("--input {} is given twice", name));
        if (auto it = batch.files.find(name); it != batch.files.end()) {
            b.inputs.emplace(name, load_input(name, it->second.front()));
            continue;
        }
        if (names_several_files(file))
            throw Stop(bad_input, fmt::format("--input {}={}: a folder or a pattern gives a batch of files, which only "
                                              "`proxgen solve` takes (one file here)",
                                              name, file));
        b.inputs.emplace(name, load_input(name, file));
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
