// Bad input, fuzz-style: thousands of malformed problem texts and JSON graphs — a valid file cut at
// every position, every byte replaced, token soup, random graphs, wrong types, cycles, unknown
// operators, missing inputs, a variable with two shapes, huge numbers, deep nesting — each must
// either build or give a ProblemError that says where (a line and column, or a node id / field /
// place in the document). Anything else (another exception, a crash, a hang) fails the test.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include <proxgen/frontend/problem_file.hpp>
#include <proxgen/proxgen.hpp>

#include "../test_support.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;
namespace fe = proxgen::frontend;
using nlohmann::json;
using pg::test::random_image;

namespace {

const char* const valid_text =
    "# TV deblurring, as in the README\n"
    "x = variable(24, 20)\n"
    "lambda = 0.002\n"
    "r = conv(k, x, \"zero\") - b\n"
    "sum_squares(r) + lambda * group_norm1(grad(x, [0, 1]))\n"
    "  + nonneg(x) + 0.1 * huber(crop(x, 1, 2, 8, 6), 0.5)\n";

std::string example_json() {
    std::ifstream f(PROXGEN_SOURCE_DIR "/examples/node_graph/deblur.json");
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

fe::Bindings bindings() {
    fe::Bindings d;
    d.inputs["b"] = d.inputs["blurred"] = random_image({24, 20}, 1, 0, 1);
    d.inputs["k"] = d.inputs["kernel"] = random_image({5, 5}, 2, 0, 0.2f);
    return d;
}

/// Where a ProblemError says the problem is: a text position, or a JSON node or place.
bool has_place(const fe::ProblemError& e) {
    const std::string m = e.what();
    if (e.line() > 0) return m.rfind(fmt::format("{}:{}: ", e.line(), e.column()), 0) == 0;
    if (!e.node().empty()) return m.rfind(fmt::format("node \"{}\"", e.node()), 0) == 0;
    return m.rfind("nodes[", 0) == 0 || m.rfind("objective[", 0) == 0 || m.rfind("field \"", 0) == 0 ||
           m.rfind("the document: ", 0) == 0;
}

struct Tally {
    int built = 0, errors = 0;
};

/// Parses (and builds) one input: success, or a ProblemError with a place; nothing else.
template <class Parse>
void check_one(const std::string& input, Parse parse, Tally& t) {
    try {
        parse(input);
        ++t.built;
    } catch (const fe::ProblemError& e) {
        ++t.errors;
        if (!has_place(e)) FAIL_CHECK("an error without a place: " << e.what() << "\nfor input:\n" << input);
    } catch (const std::exception& e) {
        FAIL_CHECK("not a ProblemError: " << e.what() << "\nfor input:\n" << input);
    }
}

const fe::Bindings& shared_bindings() {
    static const fe::Bindings d = bindings();
    return d;
}
void check_text(const std::string& s, Tally& t) {
    check_one(s, [](const std::string& in) { fe::parse_text(in, shared_bindings()); }, t);
}
void check_json(const std::string& s, Tally& t) {
    check_one(s, [](const std::string& in) { fe::parse_json(in, shared_bindings()); }, t);
}

const std::vector<std::string> replacements{"(", ")", ",", "-", "*", "\"", "[", "]", "{", "}", "#", "x", "9", "=",
                                            "\n", ":", std::string(1, '\0'), "\xff", ""};

}  // namespace

TEST_CASE("bad input: the valid files build", "[frontend][fuzz]") {
    CHECK_NOTHROW(fe::parse_text(valid_text, bindings()));
    CHECK_NOTHROW(fe::parse_json(example_json(), bindings()));
}

TEST_CASE("bad input: a text cut at every position, every byte replaced", "[frontend][fuzz]") {
    const std::string text = valid_text;
    Tally t;
    for (std::size_t n = 0; n < text.size(); ++n) check_text(text.substr(0, n), t);
    for (std::size_t i = 0; i < text.size(); ++i)
        for (const auto& r : replacements) check_text(text.substr(0, i) + r + text.substr(i + 1), t);
    CHECK(t.errors > 1000);  // most are broken ...
    CHECK(t.built > 50);     // ... and some are still problems (a comment edited, a number changed)
    INFO(t.built << " built, " << t.errors << " errors");
}

TEST_CASE("bad input: a JSON graph cut at every position, every byte replaced", "[frontend][fuzz]") {
    const std::string doc = example_json();
    Tally t;
    for (std::size_t n = 0; n < doc.size(); ++n) check_json(doc.substr(0, n), t);
    for (std::size_t i = 0; i < doc.size(); ++i)
        for (const auto& r : replacements) check_json(doc.substr(0, i) + r + doc.substr(i + 1), t);
    CHECK(t.errors > 5000);
    CHECK(t.built > 100);
}

TEST_CASE("bad input: token soup", "[frontend][fuzz]") {
    const std::vector<std::string> tokens{"x",      "b",  "k",   "lambda", "=",   "variable", "(",   ")",   ",",
                                          "+",      "-",  "*",   "/",      "\n",  "[",        "]",   "0",   "2",
                                          "0.5",    "1e9", "-3", "\"zero\"", "#c\n", "conv",  "grad", "sum_squares",
                                          "norm1", "group_norm1", "nonneg", "crop", "reshape", "vstack", "huber",
                                          "poisson_norm", "box", "mul_elemwise", "transpose", "subsample", ";"};
    std::mt19937 rng(42);
    Tally t;
    for (int n = 0; n < 3000; ++n) {
        std::string s;
        const int length = 1 + int(rng() % 40);
        for (int i = 0; i < length; ++i) s += tokens[rng() % tokens.size()] + (rng() % 3 ? "" : " ");
        check_text(s, t);
    }
    CHECK(t.errors > 0);
}

TEST_CASE("bad input: random node graphs", "[frontend][fuzz]") {
    std::vector<std::string> ops{"variable", "input", "parameter", "add", "subtract", "negate", "scale"};
    for (const auto& s : rt::catalogue()) ops.push_back(s.name);
    const std::vector<std::string> fields{"e", "a", "b", "kernel", "weight", "factor", "counts", "mask", "w", "axes",
                                          "boundary", "lo", "hi", "M", "step_x", "step_y"};
    std::mt19937 rng(7);
    auto pick = [&](const auto& v) { return v[rng() % v.size()]; };
    Tally t;
    for (int n = 0; n < 1500; ++n) {
        json g;
        const int count = 1 + int(rng() % 8);
        for (int i = 0; i < count; ++i) {
            json node{{"id", fmt::format("n{}", i)}, {"op", pick(ops)}};
            if (node["op"] == "input") node["name"] = pick(std::vector<std::string>{"blurred", "kernel", "other"});
            if (node["op"] == "parameter") node["value"] = double(int(rng() % 5)) - 1;
            if (node["op"] == "variable" && rng() % 2) node["shape"] = {24, 20};
            if (node["op"] != "variable" && node["op"] != "input" && node["op"] != "parameter") {
                for (int e = 0; e < int(rng() % 3) + 1; ++e)  // edges anywhere: forward, backward, to itself
                    node["inputs"][pick(fields)] = fmt::format("n{}", rng() % count);
                if (rng() % 3 == 0) node["params"][pick(fields)] = double(int(rng() % 7)) - 2;
                if (rng() % 4 == 0) node["weight"] = rng() % 2 ? json(0.5) : json(fmt::format("n{}", rng() % count));
            }
            g["nodes"].push_back(node);
        }
        g["objective"] = {fmt::format("n{}", rng() % count)};
        check_json(g.dump(), t);
    }
    CHECK(t.errors > 1000);
}

TEST_CASE("bad input: named failure modes give a place", "[frontend][fuzz]") {
    Tally t;
    // deep nesting, long chains, exponential sharing, huge numbers, odd bytes
    check_text(std::string(100000, '(') + "x", t);
    check_text(std::string(100000, '-') + "x", t);
    std::string calls;
    for (int i = 0; i < 20000; ++i) calls += "norm1(";
    check_text(calls, t);
    std::string chain = "x = variable(24, 20)\na0 = x\n";
    for (int i = 1; i < 5000; ++i) chain += fmt::format("a{} = -a{}\n", i, i - 1);
    check_text(chain + "sum_squares(a4999)", t);
    std::string doubling = "x = variable(24, 20)\na0 = x - b\n";
    for (int i = 1; i < 60; ++i) doubling += fmt::format("a{} = a{} + a{}\n", i, i - 1, i - 1);
    check_text(doubling + "sum_squares(a59)", t);
    for (const char* s : {"x = variable(99999999999, 5)\nsum_squares(x)", "x = variable(1e9, -1)\nsum_squares(x)",
                          "sum_squares(x - b) + 1e308 * 1e308 * norm1(x)", "sum_squares(x - b) + 0x10 * norm1(x)",
                          "sum_squares(x - b) / 0", "sum_squares(x - b) + norm1(subsample(x, 1e10, 1))",
                          "x = variable(24, 20, 3, 2, 1)\nsum_squares(x)",
                          "sum_squares(x - b) + norm1(\xc3\xa9)", "", "   \n\n  # only a comment", "x =", "= x",
                          "x = variable(24, 20)\nx", "sum_squares(grad(x, [0, 1, 7]))"})
        check_text(s, t);
    check_text(std::string("sum_squares(x - b)\0+ nonneg(x)", 30), t);  // a NUL byte
    // JSON: deep arrays, long chains, cycles, wrong types, unknown ops, missing inputs, two shapes
    check_json("{\"ui\": " + std::string(100000, '[') + std::string(100000, ']') + "}", t);
    check_json(std::string(100000, '['), t);
    json chain_graph;
    chain_graph["nodes"].push_back({{"id", "n0"}, {"op", "variable"}, {"shape", {24, 20}}});
    for (int i = 1; i < 3000; ++i)
        chain_graph["nodes"].push_back({{"id", fmt::format("n{}", i)}, {"op", "negate"}, {"inputs", {{"e", fmt::format("n{}", i - 1)}}}});
    chain_graph["nodes"].push_back({{"id", "p"}, {"op", "sum_squares"}, {"inputs", {{"e", "n2999"}}}});
    chain_graph["objective"] = {"p"};
    check_json(chain_graph.dump(), t);
    const std::vector<std::string> graphs{
        R"({"nodes": [{"id": "a", "op": "negate", "inputs": {"e": "a"}}], "objective": ["a"]})",
        R"({"nodes": [{"id": "a", "op": "add", "inputs": {"a": "b", "b": "c"}}, {"id": "b", "op": "negate", "inputs": {"e": "c"}},
            {"id": "c", "op": "negate", "inputs": {"e": "a"}}, {"id": "p", "op": "norm1", "inputs": {"e": "a"}}], "objective": ["p"]})",
        R"({"nodes": [{"id": "x", "op": "variable", "shape": "24x20"}], "objective": ["x"]})",
        R"({"nodes": [{"id": "x", "op": "variable", "shape": [1e400, 2]}], "objective": ["x"]})",
        R"({"nodes": [{"id": "x", "op": "variable", "shape": [24, 20]}, {"id": "p", "op": "frobnicate", "inputs": {"e": "x"}}], "objective": ["p"]})",
        R"({"nodes": [{"id": "x", "op": "variable", "shape": [24, 20]}, {"id": "p", "op": "poisson_norm", "inputs": {"e": "x"}}], "objective": ["p"]})",
        R"({"nodes": [{"id": "x", "op": "variable", "shape": [24, 20]}, {"id": "y", "op": "variable", "name": "x", "shape": [20, 24]}], "objective": []})",
        R"({"nodes": [{"id": "x", "op": "variable", "shape": [24, 20]}, {"id": "p", "op": "norm1", "inputs": {"e": "x"}, "weight": "x"}], "objective": ["p"]})",
        R"({"nodes": [{"id": "x", "op": "variable"}, {"id": "p", "op": "norm1", "inputs": {"e": "x"}}], "objective": ["p"]})",
        R"({"nodes": [{"id": "", "op": "variable"}], "objective": [""]})",
        R"({"nodes": [{"id": 5, "op": "variable"}], "objective": [5]})",
        R"({"nodes": {"x": {"op": "variable"}}, "objective": ["x"]})",
        R"({"nodes": [], "objective": "x"})",
        R"({"nodes": [{"id": "x", "op": "variable", "shape": [24, 20]}, {"id": "p", "op": "norm1", "inputs": {"e": ["x", "x"]}}], "objective": ["p"]})",
        R"({"nodes": [{"id": "x", "op": "variable", "shape": [24, 20]}, {"id": "x2", "op": "variable", "name": "x", "shape": [24, 20]},
            {"id": "s", "op": "add", "inputs": {"a": "x", "b": "x2"}}, {"id": "p", "op": "norm1", "inputs": {"e": "s"}}], "objective": ["p"]})",
        R"({"nodes": [{"id": "x", "op": "variable", "shape": [24, 20]}, {"id": "b", "op": "parameter", "name": "blurred", "value": 1},
            {"id": "p", "op": "norm1", "inputs": {"e": "x"}, "weight": "b"}], "objective": ["p"]})",
        "{\"nodes\": [{\"id\": \"\xff\", \"op\": \"variable\"}], \"objective\": []}",
        "{\"nodes\": [], \"objective\": []} trailing",
    };
    for (const auto& g : graphs) check_json(g, t);
    CHECK(t.errors >= 30);
}
