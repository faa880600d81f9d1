// The problem graph both problem-file front ends produce (internal): the text parser
// (text/parser.hpp) and the JSON reader (json/read_graph.hpp) turn their input into this, and
// build.cpp turns it into a run-time problem (proxgen/runtime.hpp). Reading needs no Halide and no
// run-time API, so the fuzz targets link the readers alone; every operator and penalty name stays
// a string here, resolved later through the run-time API's catalogue.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "proxgen/frontend/problem_error.hpp"

namespace proxgen::frontend {

/// Where a node came from: a text position (line, column; 1-based) or a JSON node (its id) and
/// the field being read; `path` names a place in a JSON document that has no node id ("nodes[3]").
struct Origin {
    int line = 0, column = 0;
    std::string node, field, path;

    /// "3:17", "node \"blur\": field \"kernel\"", "node \"blur\"", "nodes[3]: field \"id\"".
    std::string where() const;
    /// The same origin with another field.
    Origin with_field(std::string f) const;
};

/// Throws a ProblemError "<where>: <message>" carrying the origin's position / node / field.
[[noreturn]] void fail_at(const Origin& at, const std::string& message);

struct Node {
    enum class Kind {
        number,     ///< a literal number (value)
        integers,   ///< a literal integer list, [0, 1, 2] (axes, permutations, shapes)
        word,       ///< a literal word, "zero" (boundaries)
        name,       ///< text only: an identifier the text does not define; resolved when building
                    ///< (an input, a parameter, or the problem's one undeclared variable)
        variable,   ///< a variable (name; shape when has_shape, else inferred)
        input,      ///< JSON: a named data image (name)
        parameter,  ///< a named scalar (name) with a default value (value)
        call,       ///< an operator or penalty of the catalogue by name (name), args in order or by field
        add,        ///< args[0] + args[1]
        subtract,   ///< args[0] - args[1]
        negate,     ///< -args[0]
        multiply,   ///< args[0] * args[1] (one side a number or parameter)
        divide      ///< args[0] / args[1] (the divisor a number)
    };
    Kind kind = Kind::number;
    Origin origin;
    double value = 0;
    std::vector<int> integers;  ///< integers; variable: its shape (when has_shape)
    bool has_shape = false;
    std::string name;
    std::vector<int> args;                ///< node indices, each smaller than this node's index
    std::vector<std::string> arg_fields;  ///< JSON calls: the field each argument came from
    bool weight = false;                  ///< JSON: multiply is a node's "weight" (args[1] must be a penalty)
};

/// The problem as read: nodes in an order where arguments come first, and the objective (a sum
/// of the listed nodes, each a penalty or a sum of penalties).
struct Graph {
    std::vector<Node> nodes;
    std::vector<int> objective;
    std::vector<Origin> objective_origins;  ///< where each objective entry was written
    Origin end;                             ///< the end of the input (errors about what is missing)
    /// Text: every name the text defines (variables, parameters, sub-expressions), which no
    /// binding may also name.
    std::vector<std::pair<std::string, Origin>> defined_names;
    /// The reader's word for a kind of value in messages: "the expression at 1:5", "the node \"x\"".
    std::string describe(int node) const;

    int add(Node n);
};

/// Limits that keep a hostile or broken file from exhausting the stack or memory while the
/// run-time API copies expression trees: checked by both readers.
inline constexpr int max_nodes = 10000;
inline constexpr int max_depth = 200;             ///< longest chain of arguments
inline constexpr double max_expanded = 100000;    ///< nodes once shared sub-expressions are written out
/// Checks the limits above (the first node that breaks one is named).
void check_limits(const Graph& g);

/// A readable name for a node kind ("a number", "an operator call", ...).
const char* kind_name(Node::Kind k);

}  // namespace proxgen::frontend
