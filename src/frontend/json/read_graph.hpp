// The JSON graph form's reader: a node graph as a node editor saves it (docs/problem-files.md has
// the schema) checked and put in an order where every node's inputs come first. It checks the
// document's structure — field names and JSON types, ids, edges to missing nodes, cycles, a
// variable or parameter given two values — and leaves operator and penalty names to the build
// step (the run-time API's catalogue), so it needs neither Halide nor the run-time API.
#pragma once

#include <string_view>

#include "../graph.hpp"

namespace proxgen::frontend::json {

/// Reads a graph document. Throws ProblemError naming the node id and field (or the line and
/// column of invalid JSON).
Graph read_graph(std::string_view document);

}  // namespace proxgen::frontend::json
