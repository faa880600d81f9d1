// The names of the algorithms and x-update kinds (proxgen/algorithm.hpp).
#include "proxgen/algorithm.hpp"

#include <fmt/format.h>

#include "proxgen/error.hpp"

namespace proxgen {

namespace {
constexpr bool table_in_enum_order() {
    for (std::size_t i = 0; i < algorithm_table.size(); ++i)
        if (std::size_t(algorithm_table[i].algorithm) != i) return false;
    return true;
}
static_assert(table_in_enum_order(), "algorithm_table lists the algorithms in the enum's order (it is indexed by it)");

const AlgorithmNames& names_of(Algorithm a) {
    const auto i = std::size_t(a);
    PROXGEN_INTERNAL_ASSERT(i < algorithm_table.size());
    return algorithm_table[i];
}
}  // namespace

// The table's strings are literals, so their data() is NUL-terminated.
const char* name(Algorithm a) { return a == Algorithm::automatic ? "automatic" : names_of(a).name.data(); }
const char* short_name(Algorithm a) { return a == Algorithm::automatic ? "auto" : names_of(a).short_name.data(); }

std::optional<Algorithm> parse_algorithm(std::string_view s) {
    if (s == "auto" || s == "automatic") return Algorithm::automatic;
    for (const AlgorithmNames& n : algorithm_table) {
        if (s == n.name || s == n.short_name) return n.algorithm;
        for (std::string_view alias : n.aliases)
            if (!alias.empty() && s == alias) return n.algorithm;
    }
    return std::nullopt;
}

std::string accepted_algorithm_names() {
    std::string out;
    for (const AlgorithmNames& n : algorithm_table) {
        if (!out.empty()) out += ", ";
        out += fmt::format("'{}'", n.short_name);
        std::string others;
        auto add = [&](std::string_view other) {
            if (other.empty() || other == n.short_name) return;
            others += fmt::format("{}{}", others.empty() ? "" : ", ", other);
        };
        add(n.name);
        for (std::string_view alias : n.aliases) add(alias);
        if (!others.empty()) out += fmt::format(" ({})", others);
    }
    return out + ", 'auto' (automatic)";
}

Algorithm algorithm_named(std::string_view s) {
    if (auto a = parse_algorithm(s)) return *a;
    fail("unknown algorithm '{}': the algorithms are {}", s, accepted_algorithm_names());
}

}  // namespace proxgen

namespace proxgen::plan {

const char* name(XUpdate x) {
    switch (x) {
    case XUpdate::closed_form_prox: return "closed-form prox";
    case XUpdate::elementwise: return "elementwise solve";
    case XUpdate::fft: return "FFT solve";
    case XUpdate::dct: return "DCT solve";
    case XUpdate::cg: return "conjugate gradient";
    case XUpdate::pixel_block: return "per-pixel block solve";
    }
    return "?";
}

}  // namespace proxgen::plan
