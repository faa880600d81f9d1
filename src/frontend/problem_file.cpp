// The problem-file entry points (proxgen/frontend/problem_file.hpp): read (text/parser.hpp or
// json/read_graph.hpp), then build through the run-time API (build.hpp).
#include "proxgen/frontend/problem_file.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "build.hpp"
#include "json/read_graph.hpp"
#include "text/parser.hpp"

namespace proxgen::frontend {

namespace {
LoadedProblem loaded(Built b) { return {std::move(b.problem), std::move(b.unused_inputs), std::move(b.unused_parameters)}; }

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

LoadedProblem parse_text(std::string_view text, const Bindings& bindings) {
    return loaded(build(text::parse(text), bindings, Goal::problem));
}

LoadedProblem parse_json(std::string_view document, const Bindings& bindings) {
    return loaded(build(json::read_graph(document), bindings, Goal::problem));
}

rt::Expr parse_expression(std::string_view text, const Bindings& bindings) {
    return build(text::parse(text), bindings, Goal::expression).expression;
}

LoadedProblem load_problem_file(const std::string& path, const Bindings& bindings) {
    std::ifstream f(path, std::ios::binary);
    if (!f) fail("cannot read the problem file '{}': no such file or not readable", path);
    std::ostringstream contents;
    contents << f.rdbuf();
    if (f.bad()) fail("cannot read the problem file '{}'", path);
    try {
        return ends_with(path, ".json") ? parse_json(contents.str(), bindings) : parse_text(contents.str(), bindings);
    } catch (const ProblemError& e) {
        const char* sep = e.line() > 0 ? ":" : ": ";  // deblur.txt:3:17: ..., graph.json: node "b": ...
        throw ProblemError(fmt::format("{}{}{}", path, sep, e.what()), e.line(), e.column(), e.node(), e.field());
    }
}

}  // namespace proxgen::frontend
