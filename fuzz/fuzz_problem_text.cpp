// libFuzzer target: the problem text reader (tokenizer, recursive-descent parser, graph limits).
// Every input must parse or give a ProblemError whose message starts with its line:column; any
// other exception, a crash or a sanitizer report is a finding. Building the graph through the
// run-time API (Halide) is covered by tests/frontend/test_bad_input.cpp instead.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "frontend/text/parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const proxgen::frontend::Graph g = proxgen::frontend::text::parse(text);
        // what the builder relies on: arguments before their users
        for (std::size_t i = 0; i < g.nodes.size(); ++i)
            for (int a : g.nodes[i].args)
                if (a < 0 || std::size_t(a) >= i) std::abort();
    } catch (const proxgen::frontend::ProblemError& e) {
        const std::string place = fmt::format("{}:{}: ", e.line(), e.column());
        if (e.line() < 1 || e.column() < 1 || std::string_view(e.what()).substr(0, place.size()) != place) std::abort();
    }
    return 0;
}
