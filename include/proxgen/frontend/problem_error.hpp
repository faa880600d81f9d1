// proxgen::frontend::ProblemError — what the problem-file front ends (text and JSON,
// proxgen/frontend/problem_file.hpp) throw for a file the user must fix: a proxgen::Error whose
// message starts with where the problem is ("3:17: ..." in a text, "node \"blur\": field
// \"kernel\": ..." in a JSON graph), with the same place as fields, so an editor can highlight it.
#pragma once

#include <string>
#include <utility>

#include "proxgen/error.hpp"

namespace proxgen::frontend {

class ProblemError : public Error {
public:
    ProblemError(const std::string& message, int line, int column, std::string node, std::string field)
        : Error(message), line_(line), column_(column), node_(std::move(node)), field_(std::move(field)) {}

    /// Text position, 1-based; 0 when the error is not at a text position (a JSON node).
    int line() const { return line_; }
    int column() const { return column_; }
    /// JSON: the id of the node ("" for the document itself or a text) and the field being read.
    const std::string& node() const { return node_; }
    const std::string& field() const { return field_; }

private:
    int line_, column_;
    std::string node_, field_;
};

}  // namespace proxgen::frontend
