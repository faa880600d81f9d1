#include "graph.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace proxgen::frontend {

std::string Origin::where() const {
    if (line > 0) return fmt::format("{}:{}", line, column);
    std::string s = !path.empty() ? path : node.empty() ? std::string() : fmt::format("node \"{}\"", node);
    if (!field.empty()) s += fmt::format("{}field \"{}\"", s.empty() ? "" : ": ", field);
    return s.empty() ? std::string("the document") : s;
}

Origin Origin::with_field(std::string f) const {
    Origin o = *this;
    o.field = std::move(f);
    return o;
}

void fail_at(const Origin& at, const std::string& message) {
    throw ProblemError(fmt::format("{}: {}", at.where(), message), at.line, at.column, at.node, at.field);
}

int Graph::add(Node n) {
    for (int a : n.args) PROXGEN_INTERNAL_ASSERT(a >= 0 && a < int(nodes.size()));
    nodes.push_back(std::move(n));
    return int(nodes.size()) - 1;
}

std::string Graph::describe(int i) const {
    const Node& n = nodes[std::size_t(i)];
    if (n.origin.line > 0) return fmt::format("the {} at {}:{}", kind_name(n.kind), n.origin.line, n.origin.column);
    return fmt::format("the {} node \"{}\"", kind_name(n.kind), n.origin.node);
}

const char* kind_name(Node::Kind k) {
    switch (k) {
    case Node::Kind::number: return "number";
    case Node::Kind::integers: return "integer list";
    case Node::Kind::word: return "word";
    case Node::Kind::name: return "name";
    case Node::Kind::variable: return "variable";
    case Node::Kind::input: return "input";
    case Node::Kind::parameter: return "parameter";
    case Node::Kind::call: return "call";
    case Node::Kind::add: return "sum";
    case Node::Kind::subtract: return "difference";
    case Node::Kind::negate: return "negation";
    case Node::Kind::multiply: return "product";
    case Node::Kind::divide: return "quotient";
    }
    return "?";
}

void check_limits(const Graph& g) {
    if (g.nodes.size() > std::size_t(max_nodes))
        fail_at(g.nodes[std::size_t(max_nodes)].origin,
                fmt::format("the problem has more than {} nodes; split it or simplify it", max_nodes));
    // Arguments precede their users, so one forward pass sees every argument's depth and size.
    std::vector<int> depth(g.nodes.size(), 1);
    std::vector<double> expanded(g.nodes.size(), 1);
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        for (int a : g.nodes[i].args) {
            depth[i] = std::max(depth[i], depth[std::size_t(a)] + 1);
            expanded[i] = std::min(expanded[i] + expanded[std::size_t(a)], 2 * max_expanded);
        }
        if (depth[i] > max_depth)
            fail_at(g.nodes[i].origin, fmt::format("the expression is nested more than {} levels deep", max_depth));
        if (expanded[i] > max_expanded)
            fail_at(g.nodes[i].origin,
                    fmt::format("the expression is too large: more than {} operations once its shared parts are "
                                "written out (each use of a defined name copies it)",
                                int(max_expanded)));
    }
}

}  // namespace proxgen::frontend
