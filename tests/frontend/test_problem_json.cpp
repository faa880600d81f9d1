// The JSON graph form (proxgen/frontend/problem_file.hpp): the example graph is the same problem
// as its text form, weights as parameter nodes, shapes given or inferred, nodes an editor left
// unconnected, and errors that name the node id and the field.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include <proxgen/frontend/problem_file.hpp>
#include <proxgen/proxgen.hpp>

#include "../test_support.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;
namespace fe = proxgen::frontend;
using Catch::Matchers::Contains;
using nlohmann::json;
using pg::test::random_image;

namespace {

std::string read(const std::string& path) {
    std::ifstream f(path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

json example() { return json::parse(read(PROXGEN_SOURCE_DIR "/examples/node_graph/deblur.json")); }

fe::Bindings data() {
    fe::Bindings d;
    d.inputs["blurred"] = random_image({24, 20}, 1, 0, 1);
    d.inputs["kernel"] = random_image({5, 5}, 2, 0, 0.2f);
    return d;
}

fe::ProblemError json_error(const json& doc, const fe::Bindings& d = data()) {
    try {
        fe::parse_json(doc.dump(), d);
    } catch (const fe::ProblemError& e) {
        return e;
    }
    FAIL("no error for: " << doc.dump());
    throw;
}

}  // namespace

TEST_CASE("json: the example graph is the problem its text form writes", "[frontend][json]") {
    const fe::Bindings d = data();
    const fe::LoadedProblem graph = fe::load_problem_file(PROXGEN_SOURCE_DIR "/examples/node_graph/deblur.json", d);
    const fe::LoadedProblem text = fe::parse_text(
        "lambda = 0.002\nsum_squares(conv(kernel, x) - blurred) + lambda * group_norm1(grad(x)) + nonneg(x)", d);
    CHECK(graph.problem.to_string() == text.problem.to_string());
    CHECK(rt::describe(graph.problem) == rt::describe(text.problem));
    CHECK(graph.problem.inputs() == std::vector<std::string>{"blurred", "kernel"});
    CHECK(graph.problem.parameters() == std::vector<std::string>{"lambda"});
    REQUIRE(graph.problem.variables().size() == 1);
    CHECK(graph.problem.variables()[0].shape == std::vector<int>{24, 20});  // inferred: no "shape" in the file
    // that the graph, its text and the typed problem solve to the same iterates, bitwise:
    // test_problem_typed.cpp (one solve's JIT compilation for all three)
}

TEST_CASE("json: shapes, scale nodes, parameters, literal fields, unconnected nodes", "[frontend][json]") {
    fe::Bindings d = data();
    json g = example();
    g["nodes"][0]["shape"] = {24, 20};
    // a dangling node of an editor (no inputs connected) and one with an unknown op: not in the objective
    g["nodes"].push_back({{"id", "draft"}, {"op", "conv"}});
    g["nodes"].push_back({{"id", "idea"}, {"op", "not_an_op_yet"}});
    g["nodes"].push_back({{"id", "spare"}, {"op", "variable"}});
    // the residual scaled by a parameter node, and conv's boundary as a literal field
    g["nodes"].push_back({{"id", "half"}, {"op", "parameter"}, {"value", 0.5}});
    g["nodes"].push_back({{"id", "scaled"}, {"op", "scale"}, {"inputs", {{"factor", "half"}, {"e", "residual"}}}});
    g["nodes"].push_back({{"id", "l1"}, {"op", "norm1"}, {"inputs", {{"e", "scaled"}}}, {"weight", 0.1}});
    g["nodes"][4]["params"] = {{"boundary", "zero"}};
    g["objective"].push_back("l1");
    d.parameters["half"] = 0.25;
    const fe::LoadedProblem p = fe::parse_json(g.dump(), d);
    CHECK(p.problem.parameter("half") == 0.25);
    CHECK(p.problem.parameters() == std::vector<std::string>{"half", "lambda"});
    rt::Expr x = rt::variable("x", {24, 20});
    const rt::Expr residual =
        rt::conv(rt::input("kernel", d.inputs["kernel"]), x, rt::ConvBoundary::zero) - rt::input("blurred", d.inputs["blurred"]);
    const rt::Problem api = rt::sum_squares(residual) + rt::parameter("lambda", 0.002) * rt::group_norm1(rt::grad(x)) +
                            rt::nonneg(x) + 0.1 * rt::norm1(rt::parameter("half", 0.25) * residual);
    CHECK(p.problem.to_string() == api.to_string());
}

TEST_CASE("json: errors name the node id and the field", "[frontend][json][errors]") {
    struct Case {
        std::function<void(json&)> edit;
        const char* message;
    };
    const std::vector<Case> cases{
        {[](json& g) {
             g["nodes"][0]["shape"] = {24, 20};  // (else the error comes with the shape inference's guess)
             g["nodes"][4]["inputs"]["kernel"] = "x";
         },
         "node \"blur\": field \"kernel\": expected an image input (an input node), got an expression from node \"x\""},
        {[](json& g) { g["nodes"][4]["inputs"]["e"] = "nothere"; }, "node \"blur\": field \"e\": no node has the id \"nothere\""},
        {[](json& g) { g["nodes"][4]["inputs"].erase("e"); },
         "node \"blur\": field \"e\": missing (an expression input (a variable or an operator node)); conv takes "
         "conv(kernel, e[, boundary])"},
        {[](json& g) { g["nodes"][4]["op"] = "conb"; },
         "node \"blur\": field \"op\": unknown operator or penalty 'conb'; did you mean 'conv'? (docs/operators.md lists them)"},
        {[](json& g) { g["nodes"][6]["inputs"]["e"] = "tv"; },
         "node \"tv\": field \"e\": the graph has a cycle: \"gradient\" -> \"tv\" -> \"gradient\" (each node's inputs must "
         "be computed before it)"},
        {[](json& g) {
             g["nodes"][0]["shape"] = {24, 20};
             g["nodes"].push_back({{"id", "x2"}, {"op", "variable"}, {"name", "x"}, {"shape", {12, 10}}});
         },
         "node \"x2\": field \"shape\": variable 'x' is 24x20 at node \"x\" but 12x10 here: one variable has one shape"},
        {[](json& g) { g["nodes"][8]["weight"] = "blur"; },
         "node \"tv\": field \"weight\": expected a number or the id of a parameter node, got the conv node \"blur\""},
        {[](json& g) { g["nodes"][8]["weight"] = -1; },
         "node \"tv\": field \"weight\": scalar * penalty: a penalty's weight must be finite and non-negative, got -1"},
        {[](json& g) { g["nodes"][6]["weight"] = 2; },  // grad is not a penalty: the objective sees it
         "node \"gradient\": field \"weight\": only penalties have a weight; grad is an operator (scale an expression "
         "with a \"scale\" node)"},
        {[](json& g) { g["objective"].push_back("gradient"); },
         "node \"gradient\": the objective is a sum of penalties, but this is an expression (a penalty of it, e.g. "
         "sum_squares(...), is a term)"},
        {[](json& g) { g["objective"].push_back("nope"); }, "objective[3]: no node has the id \"nope\""},
        {[](json& g) { g["objective"] = json::array(); }, "field \"objective\": the objective lists no penalty"},
        {[](json& g) { g.erase("nodes"); },
         "field \"nodes\": missing: a graph is {\"nodes\": [{\"id\": ..., \"op\": ...}, ...], \"objective\": [penalty ids]}"},
        {[](json& g) { g["nodes"][3]["value"] = "big"; }, "node \"lambda\": field \"value\": expected a number, got the string \"big\""},
        {[](json& g) {
             g["nodes"][0]["shape"] = {24, 20};
             g["nodes"][4]["inputs"]["kernell"] = "k";
         },
         "node \"blur\": field \"kernell\": conv has no field 'kernell'; conv takes conv(kernel, e[, boundary])"},
        {[](json& g) { g["nodes"][5]["inputs"]["c"] = "x"; }, "node \"residual\": field \"c\": subtract has no input 'c' (its inputs: a, b)"},
        {[](json& g) { g["nodes"][5]["inptus"] = json::object(); },
         "node \"residual\": field \"inptus\": unknown field for an operator or penalty (its fields: id, op, inputs, "
         "params, weight, ui, comment, label)"},
        {[](json& g) { g["nodes"][1]["id"] = "x"; }, "node \"x\": field \"id\": two nodes have this id (nodes[0] and nodes[1])"},
        {[](json& g) { g["nodes"][2]["name"] = "blured"; },
         "node \"b\": input 'blured' is not given (the inputs given: blurred, kernel); did you mean 'blurred'?"},
        {[](json& g) { g["nodes"][2] = 7; }, "nodes[2]: expected a node object {\"id\": ..., \"op\": ...}, got the number 7"},
        {[](json& g) { g["nodes"][7]["inputs"]["e"] = {"residual", 3}; },
         "node \"data\": field \"e\": expected node ids, got the number 3 in the list"},
        {[](json& g) { g["version"] = 2; }, "field \"version\": this ProxGen reads version 1, got the number 2"},
        {[](json& g) { g["nodes"][0]["shape"] = {24.5, 20}; },
         "node \"x\": field \"shape\": expected integers of at most 1e9 in magnitude, got 24.5"},
        {[](json& g) { g["nodes"][6]["params"] = {{"axes", "x"}}; },
         "node \"gradient\": field \"axes\": expected a list of integers, got a word"},
    };
    for (const Case& c : cases) {
        json g = example();
        c.edit(g);
        INFO(g.dump());
        CHECK(std::string(json_error(g).what()) == c.message);
    }
    // invalid JSON: the line and column
    const auto e = json_error(json());  // "null" is valid JSON but not a graph
    CHECK(std::string(e.what()) ==
          "the document: expected a JSON object {\"nodes\": [{\"id\": ..., \"op\": ...}, ...], \"objective\": [penalty "
          "ids]}, got null");
    try {
        fe::parse_json("{\n  \"nodes\": [1, 2\n", data());
        FAIL("no error");
    } catch (const fe::ProblemError& p) {
        CHECK(std::string(p.what()) == "3:1: invalid JSON: syntax error while parsing array - unexpected end of input; "
                                       "expected ']'");
        CHECK(p.line() == 3);
    }
    // the node and field as fields of the error
    json g = example();
    g["nodes"][4]["inputs"]["kernel"] = "x";
    const auto f = json_error(g);  // (found while inferring x's shape: the same node and field)
    CHECK(f.node() == "blur");
    CHECK(f.field() == "kernel");
}

TEST_CASE("json: a graph in two variables is the problem its text form writes", "[frontend][json][variables]") {
    fe::Bindings d;
    d.inputs["b"] = random_image({24, 20}, 3, 0, 1);
    const json g = json::parse(R"({
      "nodes": [
        {"id": "x", "op": "variable", "shape": [24, 20]},
        {"id": "y", "op": "variable", "shape": [24, 20]},
        {"id": "b", "op": "input"},
        {"id": "layers", "op": "add", "inputs": {"a": "x", "b": "y"}},
        {"id": "residual", "op": "subtract", "inputs": {"a": "layers", "b": "b"}},
        {"id": "data", "op": "sum_squares", "inputs": {"e": "residual"}},
        {"id": "gx", "op": "grad", "inputs": {"e": "x"}},
        {"id": "tv", "op": "group_norm1", "inputs": {"e": "gx"}, "weight": 0.1},
        {"id": "gy", "op": "grad", "inputs": {"e": "y"}},
        {"id": "smooth", "op": "sum_squares", "inputs": {"e": "gy"}, "weight": 0.5}
      ],
      "objective": ["data", "tv", "smooth"]})");
    const fe::LoadedProblem graph = fe::parse_json(g.dump(), d);
    const fe::LoadedProblem text = fe::parse_text(
        "x = variable(24, 20)\ny = variable(24, 20)\n"
        "sum_squares(x + y - b) + 0.1 * group_norm1(grad(x)) + 0.5 * sum_squares(grad(y))",
        d);
    REQUIRE(graph.problem.variables().size() == 2);
    CHECK(graph.problem.to_string() == text.problem.to_string());
    CHECK(rt::describe(graph.problem) == rt::describe(text.problem));
}
