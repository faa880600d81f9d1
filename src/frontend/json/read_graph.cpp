#include "read_graph.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace proxgen::frontend::json {

namespace {

using nlohmann::json;

constexpr const char* schema_hint = "{\"nodes\": [{\"id\": ..., \"op\": ...}, ...], \"objective\": [penalty ids]}";

/// How a message names a JSON value: `the string "abc"`, `the number 3`, `an array`.
std::string what(const json& v) {
    switch (v.type()) {
    case json::value_t::string: {
        std::string s = v.get<std::string>();
        if (s.size() > 40) s = s.substr(0, 40) + "...";
        return fmt::format("the string \"{}\"", s);
    }
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return fmt::format("the number {}", v.get<double>());
    case json::value_t::boolean: return v.get<bool>() ? "true" : "false";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::null: return "null";
    default: return "a binary value";
    }
}

Origin at_node(const std::string& id, const std::string& field = {}) {
    Origin o;
    o.node = id;
    o.field = field;
    return o;
}
Origin at_path(const std::string& path, const std::string& field = {}) {
    Origin o;
    o.path = path;
    o.field = field;
    return o;
}

double finite_number(const json& v, const Origin& at, const char* what_for) {
    if (!v.is_number()) fail_at(at, fmt::format("expected {}, got {}", what_for, what(v)));
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail_at(at, fmt::format("expected {}, got a number out of range", what_for));
    return d;
}

std::vector<int> integer_list(const json& v, const Origin& at) {
    if (!v.is_array()) fail_at(at, fmt::format("expected a list of integers, got {}", what(v)));
    std::vector<int> out;
    for (const json& e : v) {
        const double d = finite_number(e, at, "a list of integers");
        if (d != std::floor(d) || std::abs(d) > 1e9)
            fail_at(at, fmt::format("expected integers of at most 1e9 in magnitude, got {}", d));
        out.push_back(int(d));
    }
    return out;
}

const std::string& string_field(const json& obj, const char* key, const Origin& at) {
    const json& v = obj.at(key);
    if (!v.is_string()) fail_at(at.with_field(key), fmt::format("expected a string, got {}", what(v)));
    return v.get_ref<const std::string&>();
}

void allow_fields(const json& obj, const Origin& at, std::initializer_list<const char*> allowed, const char* owner) {
    for (const auto& item : obj.items()) {
        const std::string& key = item.key();
        if (std::find_if(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }) != allowed.end())
            continue;
        std::string list;
        for (const char* a : allowed) list += fmt::format("{}{}", list.empty() ? "" : ", ", a);
        fail_at(at.with_field(key), fmt::format("unknown field for {} (its fields: {})", owner, list));
    }
}

/// Arithmetic is the graph's own vocabulary (the text's + - * operators): the reader turns these
/// operations into graph nodes itself; everything else is a call by name.
struct Arithmetic {
    const char* op;
    Node::Kind kind;
    std::vector<const char*> fields;  // in argument order
};
const std::vector<Arithmetic>& arithmetic() {
    static const std::vector<Arithmetic> a{{"add", Node::Kind::add, {"a", "b"}},
                                           {"subtract", Node::Kind::subtract, {"a", "b"}},
                                           {"negate", Node::Kind::negate, {"e"}},
                                           {"scale", Node::Kind::multiply, {"factor", "e"}}};
    return a;
}
const Arithmetic* find_arithmetic(const std::string& op) {
    for (const auto& a : arithmetic())
        if (op == a.op) return &a;
    return nullptr;
}

/// One node of the document, before ordering.
struct Raw {
    std::string id, op;
    const json* j = nullptr;
    struct Edge {
        std::string field, target;
    };
    std::vector<Edge> edges;  // inputs (and a weight or factor that names a parameter node)
};

class Reader {
public:
    explicit Reader(const json& doc) : doc_(doc) {}

    Graph run() {
        if (!doc_.is_object())
            fail_at(Origin{}, fmt::format("expected a JSON object {}, got {}", schema_hint, what(doc_)));
        allow_fields(doc_, Origin{}, {"format", "version", "nodes", "objective", "ui", "comment"}, "the document");
        if (doc_.contains("format") && doc_["format"] != "proxgen-graph")
            fail_at(at_path("", "format"), fmt::format("expected \"proxgen-graph\", got {}", what(doc_["format"])));
        if (doc_.contains("version") && doc_["version"] != 1)
            fail_at(at_path("", "version"), fmt::format("this ProxGen reads version 1, got {}", what(doc_["version"])));
        if (!doc_.contains("nodes")) fail_at(at_path("", "nodes"), fmt::format("missing: a graph is {}", schema_hint));
        if (!doc_.contains("objective"))
            fail_at(at_path("", "objective"), "missing: the list of the penalty nodes whose sum is minimized");
        const json& nodes = doc_["nodes"];
        if (!nodes.is_array()) fail_at(at_path("", "nodes"), fmt::format("expected an array of nodes, got {}", what(nodes)));
        if (nodes.size() > std::size_t(max_nodes))
            fail_at(at_path("", "nodes"), fmt::format("more than {} nodes", max_nodes));
        for (std::size_t i = 0; i < nodes.size(); ++i) read_node(nodes[i], i);
        for (const Raw& r : raw_) check_edges(r);
        order();
        objective();
        check_limits(g_);
        return std::move(g_);
    }

private:
    // ---- reading ----
    void read_node(const json& n, std::size_t i) {
        const std::string path = fmt::format("nodes[{}]", i);
        if (!n.is_object()) fail_at(at_path(path), fmt::format("expected a node object {{\"id\": ..., \"op\": ...}}, got {}", what(n)));
        if (!n.contains("id")) fail_at(at_path(path, "id"), "missing: every node has a unique string id");
        const std::string& id = string_field(n, "id", at_path(path));
        if (id.empty()) fail_at(at_path(path, "id"), "the id is empty");
        if (auto [it, fresh] = index_.emplace(id, raw_.size()); !fresh)
            fail_at(at_node(id, "id"), fmt::format("two nodes have this id (nodes[{}] and nodes[{}])", it->second, i));
        if (!n.contains("op")) fail_at(at_node(id, "op"), "missing: what the node is (variable, input, parameter, or an operator or penalty name)");
        Raw r;
        r.id = id;
        r.op = string_field(n, "op", at_node(id));
        r.j = &n;
        const Origin at = at_node(id);
        if (r.op == "variable") {
            allow_fields(n, at, {"id", "op", "name", "shape", "ui", "comment", "label"}, "a variable");
            if (n.contains("shape")) {
                const std::vector<int> shape = integer_list(n["shape"], at.with_field("shape"));
                const std::string name = name_of(r);
                if (auto [it, fresh] = variable_shapes_.emplace(name, std::pair{shape, id}); !fresh && it->second.first != shape)
                    fail_at(at.with_field("shape"),
                            fmt::format("variable '{}' is {} at node \"{}\" but {} here: one variable has one shape", name,
                                        fmt::join(it->second.first, "x"), it->second.second, fmt::join(shape, "x")));
            }
        } else if (r.op == "input") {
            allow_fields(n, at, {"id", "op", "name", "ui", "comment", "label"}, "an input");
            name_of(r);
        } else if (r.op == "parameter") {
            allow_fields(n, at, {"id", "op", "name", "value", "ui", "comment", "label"}, "a parameter");
            if (!n.contains("value")) fail_at(at.with_field("value"), "missing: a parameter has a value (a number)");
            const double v = finite_number(n["value"], at.with_field("value"), "a number");
            const std::string name = name_of(r);
            if (auto [it, fresh] = parameter_values_.emplace(name, std::pair{v, id}); !fresh && it->second.first != v)
                fail_at(at.with_field("value"), fmt::format("parameter '{}' is {} at node \"{}\" but {} here", name,
                                                            it->second.first, it->second.second, v));
        } else {
            read_operation(n, r, at);
        }
        raw_.push_back(std::move(r));
    }

    std::string name_of(const Raw& r) const {
        if (!r.j->contains("name")) return r.id;
        const std::string& name = string_field(*r.j, "name", at_node(r.id));
        if (name.empty()) fail_at(at_node(r.id, "name"), "the name is empty");
        return name;
    }

    void read_operation(const json& n, Raw& r, const Origin& at) {
        allow_fields(n, at, {"id", "op", "inputs", "params", "weight", "ui", "comment", "label"}, "an operator or penalty");
        if (n.contains("inputs")) {
            const json& in = n["inputs"];
            if (!in.is_object())
                fail_at(at.with_field("inputs"), fmt::format("expected an object {{\"field\": \"node id\", ...}}, got {}", what(in)));
            for (const auto& [field, target] : in.items()) {
                if (target.is_string()) {
                    r.edges.push_back({field, target.get<std::string>()});
                } else if (target.is_array() && !target.empty()) {
                    for (const json& t : target) {
                        if (!t.is_string())
                            fail_at(at.with_field(field), fmt::format("expected node ids, got {} in the list", what(t)));
                        r.edges.push_back({field, t.get<std::string>()});
                    }
                } else {
                    fail_at(at.with_field(field), fmt::format("expected the id of the node this input comes from (or a "
                                                              "list of ids), got {}",
                                                              what(target)));
                }
            }
        }
        if (n.contains("params")) {
            const json& p = n["params"];
            if (!p.is_object())
                fail_at(at.with_field("params"), fmt::format("expected an object {{\"field\": value, ...}}, got {}", what(p)));
            for (const auto& [field, value] : p.items()) {
                if (!value.is_number() && !value.is_string() && !value.is_array())
                    fail_at(at.with_field(field), fmt::format("expected a number, a word or a list of integers, got {}", what(value)));
                if (value.is_array()) integer_list(value, at.with_field(field));
                if (value.is_number()) finite_number(value, at.with_field(field), "a number");
                if (n.contains("inputs") && n["inputs"].contains(field))
                    fail_at(at.with_field(field), "given both as an input and as a parameter");
            }
        }
        if (n.contains("weight")) {
            const json& w = n["weight"];
            if (w.is_string()) r.edges.push_back({"weight", w.get<std::string>()});
            else finite_number(w, at.with_field("weight"), "a number or the id of a parameter node");
        }
        if (const Arithmetic* a = find_arithmetic(r.op)) {
            if (n.contains("weight"))
                fail_at(at.with_field("weight"), fmt::format("only penalties have a weight; {} is arithmetic", r.op));
            auto known = [&](const std::string& field) {
                return std::find_if(a->fields.begin(), a->fields.end(), [&](const char* f) { return field == f; }) !=
                       a->fields.end();
            };
            for (const Raw::Edge& e : r.edges)
                if (!known(e.field))
                    fail_at(at.with_field(e.field), fmt::format("{} has no input '{}' (its inputs: {})", r.op, e.field,
                                                                fmt::join(a->fields, ", ")));
            if (n.contains("params"))
                for (const auto& [field, value] : n["params"].items())
                    if (!known(field))
                        fail_at(at.with_field(field), fmt::format("{} has no field '{}' (its fields: {})", r.op, field,
                                                                  fmt::join(a->fields, ", ")));
        }
    }

    void check_edges(const Raw& r) const {
        for (const Raw::Edge& e : r.edges) {
            if (!index_.count(e.target))
                fail_at(at_node(r.id, e.field), fmt::format("no node has the id \"{}\"", e.target));
            if (e.field == "weight" && raw_[index_.at(e.target)].op != "parameter")
                fail_at(at_node(r.id, "weight"),
                        fmt::format("expected a number or the id of a parameter node, got the {} node \"{}\"",
                                    raw_[index_.at(e.target)].op, e.target));
        }
    }

    // ---- ordering: inputs before the nodes that use them; a cycle is an error ----
    void order() {
        enum Mark : char { unseen, open, done };
        std::vector<Mark> mark(raw_.size(), unseen);
        std::vector<std::pair<std::size_t, std::size_t>> stack;  // node, next edge
        for (std::size_t root = 0; root < raw_.size(); ++root) {
            if (mark[root] != unseen) continue;
            stack.push_back({root, 0});
            mark[root] = open;
            while (!stack.empty()) {
                auto& [u, next] = stack.back();
                if (next < raw_[u].edges.size()) {
                    const Raw::Edge& e = raw_[u].edges[next++];
                    const std::size_t v = index_.at(e.target);
                    if (mark[v] == open) cycle(stack, v, e);
                    if (mark[v] == unseen) {
                        mark[v] = open;
                        stack.push_back({v, 0});
                    }
                    continue;
                }
                mark[u] = done;
                emit(raw_[u]);
                stack.pop_back();
            }
        }
    }

    [[noreturn]] void cycle(const std::vector<std::pair<std::size_t, std::size_t>>& stack, std::size_t v,
                            const Raw::Edge& closing) const {
        std::string path;
        bool in = false;
        for (const auto& [u, next] : stack) {
            in = in || u == v;
            if (in) path += fmt::format("\"{}\" -> ", raw_[u].id);
        }
        path += fmt::format("\"{}\"", raw_[v].id);
        fail_at(at_node(raw_[stack.back().first].id, closing.field),
                fmt::format("the graph has a cycle: {} (each node's inputs must be computed before it)", path));
    }

    int literal(const json& v, const Origin& at) {
        Node n;
        n.origin = at;
        if (v.is_number()) {
            n.kind = Node::Kind::number;
            n.value = v.get<double>();
        } else if (v.is_string()) {
            n.kind = Node::Kind::word;
            n.name = v.get<std::string>();
        } else {
            n.kind = Node::Kind::integers;
            n.integers = integer_list(v, at);
        }
        return g_.add(std::move(n));
    }

    void emit(const Raw& r) {
        const json& j = *r.j;
        Node n;
        n.origin = at_node(r.id);
        if (r.op == "variable") {
            n.kind = Node::Kind::variable;
            n.name = name_of(r);
            if (auto it = variable_shapes_.find(n.name); it != variable_shapes_.end()) {
                n.integers = it->second.first;
                n.has_shape = true;
            }
        } else if (r.op == "input") {
            n.kind = Node::Kind::input;
            n.name = name_of(r);
        } else if (r.op == "parameter") {
            n.kind = Node::Kind::parameter;
            n.name = name_of(r);
            n.value = j["value"].get<double>();
        } else if (const Arithmetic* a = find_arithmetic(r.op)) {
            n.kind = a->kind;
            for (const char* field : a->fields) n.args.push_back(argument(r, field));
        } else {
            n.kind = Node::Kind::call;
            n.name = r.op;
            for (const Raw::Edge& e : r.edges) {
                if (e.field == "weight") continue;
                n.args.push_back(graph_index_.at(e.target));
                n.arg_fields.push_back(e.field);
            }
            if (j.contains("params"))
                for (const auto& [field, value] : j["params"].items()) {
                    n.args.push_back(literal(value, at_node(r.id, field)));
                    n.arg_fields.push_back(field);
                }
        }
        int index = g_.add(std::move(n));
        if (j.contains("weight")) {  // a weighted penalty: weight * penalty
            Node m;
            m.kind = Node::Kind::multiply;
            m.weight = true;
            m.origin = at_node(r.id, "weight");
            const json& w = j["weight"];
            m.args = {w.is_string() ? graph_index_.at(w.get<std::string>()) : literal(w, at_node(r.id, "weight")), index};
            index = g_.add(std::move(m));
        }
        graph_index_[r.id] = index;
    }

    /// An argument of an arithmetic node: an input edge or (scale's factor) a number.
    int argument(const Raw& r, const char* field) {
        for (const Raw::Edge& e : r.edges)
            if (e.field == field) return graph_index_.at(e.target);
        const json& j = *r.j;
        if (j.contains("params") && j["params"].contains(field)) {
            const json& v = j["params"][field];
            if (!v.is_number())
                fail_at(at_node(r.id, field), fmt::format("expected a number, got {}", what(v)));
            return literal(v, at_node(r.id, field));
        }
        std::vector<std::string> fields;
        for (const auto& a : find_arithmetic(r.op)->fields) fields.push_back(a);
        fail_at(at_node(r.id, field), fmt::format("missing input ({} takes {})", r.op, fmt::join(fields, " and ")));
    }

    void objective() {
        const json& obj = doc_["objective"];
        if (!obj.is_array())
            fail_at(at_path("", "objective"), fmt::format("expected an array of penalty node ids, got {}", what(obj)));
        if (obj.empty()) fail_at(at_path("", "objective"), "the objective lists no penalty");
        for (std::size_t i = 0; i < obj.size(); ++i) {
            const std::string path = fmt::format("objective[{}]", i);
            if (!obj[i].is_string()) fail_at(at_path(path), fmt::format("expected a node id, got {}", what(obj[i])));
            const std::string& id = obj[i].get_ref<const std::string&>();
            auto it = graph_index_.find(id);
            if (it == graph_index_.end()) fail_at(at_path(path), fmt::format("no node has the id \"{}\"", id));
            g_.objective.push_back(it->second);
            g_.objective_origins.push_back(at_node(id));
        }
    }

    const json& doc_;
    std::vector<Raw> raw_;
    std::map<std::string, std::size_t> index_;  // id -> raw_
    std::map<std::string, int> graph_index_;    // id -> node of g_
    std::map<std::string, std::pair<std::vector<int>, std::string>> variable_shapes_;  // name -> shape, node
    std::map<std::string, std::pair<double, std::string>> parameter_values_;           // name -> value, node
    Graph g_;
};

/// Line and column of a byte offset (nlohmann counts bytes from 1, at the character it stopped on).
Origin position(std::string_view doc, std::size_t byte) {
    Origin o;
    o.line = 1;
    o.column = 1;
    for (std::size_t i = 0; i + 1 < byte && i < doc.size(); ++i) {
        if (doc[i] == '\n') {
            ++o.line;
            o.column = 1;
        } else if ((static_cast<unsigned char>(doc[i]) & 0xC0) != 0x80) {
            ++o.column;
        }
    }
    return o;
}

}  // namespace

Graph read_graph(std::string_view document) {
    json doc;
    try {
        doc = json::parse(document.begin(), document.end());
    } catch (const json::parse_error& e) {
        // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." -> the reason
        std::string reason = e.what();
        if (auto p = reason.find(": "); p != std::string::npos) reason = reason.substr(p + 2);
        fail_at(position(document, e.byte), "invalid JSON: " + reason);
    } catch (const json::out_of_range& e) {  // "number overflow parsing '1e400'": no position given
        std::string reason = e.what();
        if (auto p = reason.find("] "); p != std::string::npos) reason = reason.substr(p + 2);
        fail_at(Origin{}, "invalid JSON: " + reason);
    }
    return Reader(doc).run();
}

}  // namespace proxgen::frontend::json
