// proxgen solve PROBLEM_FILE: load, plan once (errors here are bad input), solve with progress on
// stderr, write each variable, print a summary.
#include <cmath>
#include <optional>
#include <unistd.h>

#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <proxgen/check/rules.hpp>
#include <proxgen/ir/ir.hpp>

#include "commands.hpp"
#include "progress.hpp"

namespace proxgen::cli {

namespace {

bool identifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

/// variable name -> output file, one for every variable of the problem.
std::map<std::string, std::string> output_files(const std::vector<std::string>& args,
                                                const std::vector<rt::VariableInfo>& variables) {
    std::vector<std::string> names;
    for (const auto& v : variables) names.push_back(v.name);
    std::map<std::string, std::string> out;
    for (const auto& arg : args) {
        const auto eq = arg.find('=');
        std::string name, file;
        if (eq != std::string::npos && identifier(arg.substr(0, eq))) {
            std::tie(name, file) = split_assignment(arg, "--out");
        } else if (variables.size() == 1) {
            name = variables.front().name;
            file = arg;
        } else {
            throw Stop(bad_input, fmt::format("--out {}: the problem has several variables ({}): name one, --out NAME=FILE",
                                              arg, fmt::join(names, ", ")));
        }
        if (std::find(names.begin(), names.end(), name) == names.end())
            throw Stop(bad_input, fmt::format("--out {}: the problem has no variable '{}' (its variables: {})", arg, name,
                                              fmt::join(names, ", ")));
        if (out.count(name)) throw Stop(bad_input, fmt::format("--out gives variable '{}' twice", name));
        const std::filesystem::path dir = std::filesystem::path(file).parent_path();
        if (!dir.empty() && !std::filesystem::is_directory(dir))
            throw Stop(bad_input, fmt::format("--out {}: the folder '{}' does not exist", arg, dir.string()));
        out[name] = file;
    }
    for (const auto& n : names)
        if (!out.count(n))
            throw Stop(bad_input, fmt::format("no --out for variable '{}': add --out {}=FILE ({})", n, n,
                                              image_file_extensions()));
    return out;
}

/// `pattern` with "{}" replaced by the member's name and "{i}" by its index.
std::string member_file(std::string pattern, const std::string& name, std::size_t index) {
    for (auto [key, value] : {std::pair<std::string, std::string>{"{i}", std::to_string(index)}, {"{}", name}})
        for (std::size_t at; (at = pattern.find(key)) != std::string::npos;) pattern.replace(at, key.size(), value);
    return pattern;
}

/// A batch from the command line: each member's files loaded (a file that does not load fails its
/// member alone), the members solved in one rt::solve_batch call, each one's variables written to
/// its own files, one line per member.
int solve_batch_files(const SolveOptions& o, const rt::Problem& problem, const BatchFiles& batch,
                      const std::map<std::string, std::string>& outputs, const Options& opt) {
    for (const auto& [name, file] : outputs)
        if (file.find("{}") == std::string::npos && file.find("{i}") == std::string::npos)
            throw Stop(bad_input, fmt::format("--out {}={}: a batch writes one file per member: put {{}} (the member's "
                                              "name, its input file's stem) or {{i}} (its index) in the file name",
                                              name, file));
    const std::size_t n = batch.names.size();
    std::vector<std::string> load_errors(n);
    std::vector<rt::BatchMember> members;
    std::vector<std::size_t> solved;  // member index of each entry of `members`
    for (std::size_t i = 0; i < n; ++i) {
        rt::BatchMember m;
        try {
            for (const auto& [input, files] : batch.files) m.inputs[input] = load_input(input, files[i]);
        } catch (const Stop& e) {
            load_errors[i] = e.what();
            continue;
        }
        members.push_back(std::move(m));
        solved.push_back(i);
    }
    const std::vector<Result> results = stage(failed, [&] { return rt::solve_batch(problem, members, opt); });
    bool any_not_converged = false;
    std::size_t failures = 0;
    std::size_t next = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string who = fmt::format("member {} ({})", i, batch.names[i]);
        if (!load_errors[i].empty()) {
            ++failures;
            fmt::print(stderr, "{}: failed: {}\n", who, load_errors[i]);
            continue;
        }
        const Result& r = results[next++];
        if (r.status == Status::failed) {
            ++failures;
            fmt::print(stderr, "{}: failed: {}\n", who, r.message);
            continue;
        }
        for (const auto& [name, pattern] : outputs)
            stage(failed, [&, &name = name] { save_image(member_file(pattern, batch.names[i], i), r[name]); });
        const bool not_converged = (o.eps > 0 && !r.converged) || r.status == Status::likely_infeasible ||
                                   r.status == Status::unbounded;
        any_not_converged = any_not_converged || not_converged;
        if (!o.quiet)
            fmt::print(stderr, "{}: {} {} after {} iterations (primal residual {:.3g}, dual {:.3g}){}\n", who,
                       name(r.algorithm), o.eps > 0 ? (r.converged ? "converged" : "did NOT converge") : "ran",
                       r.iterations, r.primal_residual, r.dual_residual, r.message.empty() ? "" : "; " + r.message);
    }
    if (!o.quiet) {
        double iterations = 0, compile = 0;
        for (const Result& r : results) iterations += r.solve_seconds, compile += r.compile_seconds;
        fmt::print(stderr, "batch of {}: {} failed; time: JIT compilation {:.2f} s, iterations {:.3f} s in all\n", n,
                   failures, compile, iterations);
    }
    return failures > 0 ? failed : any_not_converged ? not_converged : ok;
}

}  // namespace

int solve(const SolveOptions& o) {
    const Algorithm algorithm = algorithm_option(o.algorithm);
    // the ranges and sentences of pg::Options (check_options), with the flag that gave the value
    auto option = [](const char* flag, const char* name, double value) {
        if (std::string m = rules::option(name, value); !m.empty()) throw Stop(bad_input, fmt::format("{}: {}", flag, m));
    };
    option("--iters", "max_iters", o.iters);
    option("--eps", "eps_abs", o.eps);
    option("--check-every", "check_every", o.check_every);
    option("--hqs-growth", "hqs_growth", o.hqs_growth);
    option("--hqs-every", "hqs_every", o.hqs_every);
    option("--hqs-max-ratio", "hqs_max_ratio", o.hqs_max_ratio);
    const BatchFiles batch = batch_files(o.data);
    const rt::Problem problem = load_problem(o.problem, load_bindings(o.data, batch));
    const auto outputs = output_files(o.outputs, problem.variables());
    // A problem this algorithm cannot plan is the user's to change, like a syntax error. The plan
    // made here is the one solved and evaluated: the problem is planned once.
    // (automatic plans its candidates when solving)
    std::optional<rt::Plan> planned;
    if (algorithm != Algorithm::automatic) planned = stage(bad_input, [&] { return rt::plan(problem, algorithm); });

    Options opt;
    opt.max_iters = int(o.iters);
    opt.eps_abs = opt.eps_rel = o.eps;
    opt.check_every = int(o.check_every);
    opt.precondition = o.precondition;
    opt.tier = o.tier == "per-card" ? Tier::per_card : o.tier == "auto" ? Tier::automatic : Tier::fused;
    opt.hqs_growth = o.hqs_growth;
    opt.hqs_every = int(o.hqs_every);
    opt.hqs_max_ratio = o.hqs_max_ratio;
    if (!batch.empty()) {  // no progress table: the members run side by side
        opt.algorithm = algorithm;
        return solve_batch_files(o, problem, batch, outputs, opt);
    }
    opt.track_objective = !o.quiet && !o.no_objective;
    Progress progress(stderr, isatty(fileno(stderr)) != 0, opt.max_iters, opt.track_objective);
    if (!o.quiet) opt.callback = [&](const IterationInfo& info) { return progress(info); };
    opt.algorithm = algorithm;
    const Result r = stage(failed, [&] { return planned ? rt::solve(*planned, opt) : rt::solve(problem, opt); });
    progress.finish();

    for (const auto& [name, file] : outputs) stage(failed, [&] { save_image(file, r[name]); });
    if (!o.quiet) {
        // the last check's objective is the returned x's (tracked: the per-card tier computes it per card)
        const bool tracked = !r.history.empty() && r.history.back().iteration == r.iterations &&
                             std::isfinite(r.history.back().objective);
        const double f = tracked ? r.history.back().objective : stage(failed, [&] {
            return planned ? rt::objective(*planned, r) : rt::objective(problem, r);
        });
        if (!r.choice.empty()) fmt::print(stderr, "{}\n", r.choice);
        fmt::print(stderr, "{} {} after {} iterations (primal residual {:.3g}, dual {:.3g}); objective {:.8g}\n",
                   name(r.algorithm), o.eps > 0 ? (r.converged ? "converged" : "did NOT converge") : "ran", r.iterations,
                   r.primal_residual, r.dual_residual, f);
        if (!r.message.empty()) fmt::print(stderr, "{}: {}\n", name(r.status), r.message);
        fmt::print(stderr, "time: JIT compilation {:.2f} s, iterations {:.3f} s ({:.3f} ms each)\n",
                   r.compile_seconds,
                   r.solve_seconds, r.iterations ? 1e3 * r.solve_seconds / r.iterations : 0.0);
        for (const auto& [name, file] : outputs) fmt::print(stderr, "wrote {} ({}) to {}\n", name, r[name].shape_string(), file);
    }
    // (a solve stopped early as likely infeasible or unbounded did not converge either)
    return (o.eps > 0 && !r.converged) || r.status == Status::likely_infeasible || r.status == Status::unbounded
               ? not_converged
               : ok;
}

}  // namespace proxgen::cli
