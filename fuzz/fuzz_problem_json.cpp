// libFuzzer target: the JSON graph reader (nlohmann-json parse, schema checks, ids and edges,
// cycles, ordering, graph limits). Every input must read or give a ProblemError that names its
// place (line:column of invalid JSON, a node id, a field or a place in the document); any other
// exception, a crash or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "frontend/json/read_graph.hpp"

namespace {
bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view doc(reinterpret_cast<const char*>(data), size);
    try {
        const proxgen::frontend::Graph g = proxgen::frontend::json::read_graph(doc);
        for (std::size_t i = 0; i < g.nodes.size(); ++i)
            for (int a : g.nodes[i].args)
                if (a < 0 || std::size_t(a) >= i) std::abort();
        for (int o : g.objective)
            if (o < 0 || std::size_t(o) >= g.nodes.size()) std::abort();
    } catch (const proxgen::frontend::ProblemError& e) {
        const std::string_view m = e.what();
        const bool placed = e.line() > 0 ? starts_with(m, fmt::format("{}:{}: ", e.line(), e.column()))
                            : !e.node().empty() ? starts_with(m, fmt::format("node \"{}\"", e.node()))
                                                : starts_with(m, "nodes[") || starts_with(m, "objective[") ||
                                                      starts_with(m, "field \"") || starts_with(m, "the document: ");
        if (!placed) std::abort();
    }
    return 0;
}
