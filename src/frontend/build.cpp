#include "build.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "values.hpp"

namespace proxgen::frontend {

namespace {

/// Thrown while evaluating a node that depends on a variable whose shape is not known yet.
struct Unresolved {
    std::string variable;
};

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = up;
        }
    }
    return row[b.size()];
}

/// "; did you mean 'conv'?" when a known name is close to `name`.
std::string suggestion(const std::string& name, const std::vector<std::string>& known) {
    if (name.size() < 3) return {};  // one- and two-letter names are all close to each other
    std::string best;
    std::size_t best_distance = 3;
    for (const auto& k : known)
        if (const std::size_t d = edit_distance(name, k); d < best_distance) {
            best = k;
            best_distance = d;
        }
    return best.empty() ? std::string() : fmt::format("; did you mean '{}'?", best);
}

std::string listing(const std::vector<std::string>& names) {
    return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
}

template <class Map>
std::vector<std::string> keys(const Map& m) {
    std::vector<std::string> out;
    for (const auto& [k, v] : m) out.push_back(k);
    return out;
}

class Builder {
public:
    Builder(const Graph& g, const Bindings& b) : g_(g), b_(b), memo_(g.nodes.size()), reachable_(g.nodes.size(), 0) {}

    Built run(Goal goal) {
        if (g_.objective.empty())
            fail_at(g_.end, goal == Goal::problem
                                ? "the problem has no objective: write a sum of penalties, e.g. sum_squares(x - b)"
                                : "no expression: the last line is the expression to evaluate, e.g. conv(k, x)");
        if (goal == Goal::expression && g_.objective.size() != 1)
            fail_at(g_.objective_origins[1], "one expression only: the lines before it may only define names");
        mark_reachable();
        check_definitions();
        resolve_names();
        collect_variables_and_parameters();
        infer_shapes();

        Built out;
        if (goal == Goal::expression) {
            const Value v = evaluate(g_.objective[0]);
            if (!std::holds_alternative<rt::Expr>(v))
                fail_at(g_.objective_origins[0], fmt::format("expected an expression of a variable, got {}", value_name(v)));
            out.expression = std::get<rt::Expr>(v);
        } else {
            for (std::size_t i = 0; i < g_.objective.size(); ++i) {
                const Value v = evaluate(g_.objective[i]);
                if (!std::holds_alternative<rt::Problem>(v))
                    fail_at(g_.objective_origins[i],
                            fmt::format("the objective is a sum of penalties, but this is {} (a penalty of it, e.g. "
                                        "sum_squares(...), is a term)",
                                        value_name(v)));
                try {
                    out.problem += std::get<rt::Problem>(v);  // one name, one thing, across the terms
                } catch (const Error& e) {
                    fail_at(g_.objective_origins[i], e.what());
                }
            }
        }
        for (const auto& [name, image] : b_.inputs)
            if (!used_inputs_.count(name)) out.unused_inputs.push_back(name);
        for (const auto& [name, value] : b_.parameters)
            if (!used_parameters_.count(name)) out.unused_parameters.push_back(name);
        return out;
    }

private:
    // ---- names -------------------------------------------------------------------------------

    void mark_reachable() {
        for (int i : g_.objective) reachable_[std::size_t(i)] = 1;
        for (std::size_t i = g_.nodes.size(); i-- > 0;)  // users come after their arguments
            if (reachable_[i])
                for (int a : g_.nodes[i].args) reachable_[std::size_t(a)] = 1;
    }

    /// A name the text defines may not also be given as an input; a parameter it defines may be
    /// given a value.
    void check_definitions() const {
        for (const auto& [name, at] : g_.defined_names) {
            if (b_.inputs.count(name))
                fail_at(at, fmt::format("'{}' is defined here and also given as an input; rename one of them", name));
            if (b_.variables.count(name) && !is_variable_definition(name))
                fail_at(at, fmt::format("'{}' is defined here and also given as a variable", name));
        }
        for (const auto& [name, image] : b_.inputs)
            if (b_.parameters.count(name) || b_.variables.count(name))
                throw Error(fmt::format("'{}' is given both as an input and as a {}", name,
                                        b_.parameters.count(name) ? "parameter" : "variable"));
    }

    bool is_variable_definition(const std::string& name) const {
        for (const Node& n : g_.nodes)
            if (n.kind == Node::Kind::variable && n.name == name) return true;
        return false;
    }

    /// Text names: an input, a parameter, a variable of the bindings, or the one undeclared variable.
    void resolve_names() {
        std::vector<std::pair<std::string, Origin>> unknown;
        for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
            const Node& n = g_.nodes[i];
            if (n.kind != Node::Kind::name || !reachable_[i]) continue;
            if (b_.inputs.count(n.name) || b_.parameters.count(n.name) || b_.variables.count(n.name)) continue;
            if (std::none_of(unknown.begin(), unknown.end(), [&](const auto& u) { return u.first == n.name; }))
                unknown.emplace_back(n.name, n.origin);
        }
        if (unknown.empty()) return;
        const bool declared = std::any_of(g_.nodes.begin(), g_.nodes.end(),
                                          [](const Node& n) { return n.kind == Node::Kind::variable; }) ||
                              !b_.variables.empty();
        const std::string known = fmt::format("inputs given: {}; parameters: {}; variables: {}",
                                              listing(keys(b_.inputs)), listing(parameter_names()),
                                              listing(variable_names()));
        if (declared) {
            const auto& [name, at] = unknown.front();
            fail_at(at, fmt::format("unknown name '{}' ({}){}", name, known, name_suggestion(name)));
        }
        if (unknown.size() > 1) {
            // a name only where an operator takes a word (schatten(grad(x), inf)) is an unquoted word,
            // not a second variable: with one other name left, that one is the variable
            std::vector<std::pair<std::string, std::string>> words;  // name, where
            for (const auto& [name, at] : unknown)
                if (auto where = word_position(name)) words.emplace_back(name, *where);
            if (!words.empty() && unknown.size() - words.size() == 1) {
                const std::string& word = words.front().first;
                const Origin& at = std::find_if(unknown.begin(), unknown.end(),
                                                [&](const auto& u) { return u.first == word; })->second;
                fail_at(at, fmt::format("unknown name '{}' as {}, which takes a word: a word is written in quotes, "
                                        "\"{}\" ({})",
                                        word, words.front().second, word, known));
            }
            std::vector<std::string> all;
            for (const auto& [name, at] : unknown) all.push_back(fmt::format("'{}' ({})", name, at.where()));
            fail_at(unknown.front().second,
                    fmt::format("unknown names {}: when the text declares no variable, one name alone is taken as the "
                                "problem's variable; give the others as inputs or parameters ({}), or declare the "
                                "variables on lines of their own: x = variable(width, height)",
                                fmt::join(all, ", "), known));
        }
        variables_[unknown.front().first] = {std::nullopt, unknown.front().second};  // the implicit variable
    }

    /// "schatten's argument 'p'" when every use of the name is an argument that takes a word (or a
    /// number or a word) in its call's signature; nullopt when it is used anywhere else.
    std::optional<std::string> word_position(const std::string& name) const {
        std::optional<std::string> where;
        for (std::size_t m = 0; m < g_.nodes.size(); ++m) {
            const Node& user = g_.nodes[m];
            if (!reachable_[m]) continue;
            for (std::size_t k = 0; k < user.args.size(); ++k) {
                const Node& arg = g_.nodes[std::size_t(user.args[k])];
                if (arg.kind != Node::Kind::name || arg.name != name) continue;
                if (user.kind != Node::Kind::call) return std::nullopt;
                const rt::Signature* sig = nullptr;
                for (const auto& s : rt::catalogue())
                    if (s.name == user.name) sig = &s;
                if (!sig || sig->params.empty()) return std::nullopt;
                const rt::Parameter& p = k < sig->params.size() ? sig->params[k] : sig->params.back();
                using K = rt::Parameter::Kind;
                if (p.kind != K::word && p.kind != K::number_or_word) return std::nullopt;
                if (!where) where = fmt::format("{}'s argument '{}'", user.name, p.name);
            }
        }
        return where;
    }

    /// The names of one kind: given in the bindings or defined by the file's nodes.
    template <class Map>
    std::vector<std::string> names_of(const Map& bound, Node::Kind kind) const {
        std::set<std::string> names;
        for (const auto& [name, v] : bound) names.insert(name);
        for (const Node& n : g_.nodes)
            if (n.kind == kind) names.insert(n.name);
        return {names.begin(), names.end()};
    }
    std::vector<std::string> parameter_names() const { return names_of(b_.parameters, Node::Kind::parameter); }
    std::vector<std::string> variable_names() const { return names_of(b_.variables, Node::Kind::variable); }
    std::string name_suggestion(const std::string& name) const {
        std::vector<std::string> known = keys(b_.inputs);
        for (auto& n : parameter_names()) known.push_back(n);
        for (auto& n : variable_names()) known.push_back(n);
        return suggestion(name, known);
    }

    void collect_variables_and_parameters() {
        for (const auto& [name, shape] : b_.variables) variables_[name] = {shape, Origin{}};
        for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
            const Node& n = g_.nodes[i];
            if (n.kind == Node::Kind::variable) {
                if (!reachable_[i]) {
                    // a text's declaration the objective forgot; a JSON node left unconnected in an editor
                    if (n.origin.line > 0)
                        fail_at(n.origin, fmt::format("variable '{}' is declared but no objective line uses it", n.name));
                    continue;
                }
                if (b_.inputs.count(n.name))
                    fail_at(n.origin, fmt::format("variable '{}' has the name of an input given", n.name));
                auto [it, fresh] = variables_.try_emplace(n.name, Variable{std::nullopt, n.origin});
                if (fresh || !it->second.used_at.line) it->second.used_at = n.origin;
                if (n.has_shape) {
                    if (it->second.shape && *it->second.shape != n.integers)
                        fail_at(n.origin, fmt::format("variable '{}' is declared {} here but given as {}", n.name,
                                                      fmt::join(n.integers, "x"), fmt::join(*it->second.shape, "x")));
                    it->second.shape = n.integers;
                }
            } else if (n.kind == Node::Kind::parameter && b_.inputs.count(n.name)) {
                fail_at(n.origin, fmt::format("parameter '{}' has the name of an input given", n.name));
            }
        }
    }

    // ---- shape inference (see build.hpp) ------------------------------------------------------

    bool unknown_shapes() const {
        return std::any_of(variables_.begin(), variables_.end(), [](const auto& v) { return !v.second.shape; });
    }

    void infer_shapes() {
        while (unknown_shapes()) {
            bool found = false;
            for (std::size_t i = 0; i < g_.nodes.size() && !found; ++i) {
                if (!reachable_[i]) continue;
                const Node& n = g_.nodes[i];
                if (n.kind == Node::Kind::add || n.kind == Node::Kind::subtract) found = infer_at_sum(n);
                else if (n.kind == Node::Kind::call && is_penalty(n.name)) found = infer_at_penalty(int(i));
            }
            if (!found) no_shape_found();
        }
    }

    [[noreturn]] void no_shape_found() const {
        for (const auto& [name, v] : variables_) {
            if (v.shape) continue;
            const std::string declare =
                v.used_at.line > 0 ? fmt::format("declare it on a line before the objective: {} = variable(width, height)", name)
                                   : std::string("give its variable node a \"shape\"");
            // a candidate shape that broke a node points, most often, at the real mistake (swapped
            // or surplus arguments, a misspelt field): that error first, in the context of the guess
            if (trial_error_)
                throw ProblemError(fmt::format("{} (with '{}' taken as {}, the shape of the data it meets at {}; if "
                                               "that is not its shape, {})",
                                               trial_error_->error.what(), name, fmt::join(trial_error_->shape, "x"),
                                               trial_error_->site.where(), declare),
                                   trial_error_->error.line(), trial_error_->error.column(), trial_error_->error.node(),
                                   trial_error_->error.field());
            fail_at(v.used_at, fmt::format("the shape of variable '{}' cannot be inferred: no data fix it (an image "
                                           "added to or subtracted from an expression of it that keeps its shape, or "
                                           "a penalty's data image); {}",
                                           name, declare));
        }
        PROXGEN_INTERNAL_ASSERT(false);
    }

    /// Evaluates node i, or nullopt (and the variable) when it needs a shape not known yet.
    std::optional<Value> try_evaluate(int i, std::string* pending = nullptr) {
        try {
            return evaluate(i);
        } catch (const Unresolved& u) {
            if (pending) *pending = u.variable;
            return std::nullopt;
        }
    }

    /// test() with variable v taken as `shape` for the while; false when it fails. `record`: the
    /// site that suggested the shape, to keep the first error for no_shape_found.
    template <class Test>
    bool with_shape(const std::string& v, const std::vector<int>& shape, const Origin* record, Test test) {
        variables_[v].shape = shape;
        memo_.assign(memo_.size(), std::nullopt);
        bool ok = false;
        try {
            ok = test();
        } catch (const Unresolved&) {
        } catch (const ProblemError& e) {
            if (record && !trial_error_) trial_error_ = TrialError{e, shape, *record};
        } catch (const Error&) {
        }
        variables_[v].shape.reset();
        memo_.assign(memo_.size(), std::nullopt);
        return ok;
    }

    /// Node i has v's shape when v has the candidate's, and no other size of v gives node i the
    /// candidate's shape: with a probe 8 wider and 8 higher node i either follows (conv, scale)
    /// or fails (mul_elemwise's weight pins the size). An operator that gives one size from several
    /// (crop, subsample, pad) would leave v's size open, so it fixes nothing.
    bool follows(const std::string& v, int i, const std::vector<int>& shape, const Origin& site) {
        if (!with_shape(v, shape, &site, [&] { return shape_of(evaluate(i)) == shape; })) return false;
        std::vector<int> probe = shape;
        for (std::size_t a = 0; a < std::min<std::size_t>(2, probe.size()); ++a) probe[a] += 8;
        std::vector<int> probed;
        return !with_shape(v, probe, nullptr, [&] { return probed = shape_of(evaluate(i)), true; }) || probed == probe;
    }

    void fix_shape(const std::string& v, const std::vector<int>& shape) {
        variables_[v].shape = shape;
        memo_.assign(memo_.size(), std::nullopt);
    }

    bool infer_at_sum(const Node& n) {
        std::string pending_a, pending_b;
        const auto a = try_evaluate(n.args[0], &pending_a);
        const auto b = try_evaluate(n.args[1], &pending_b);
        if (a.has_value() == b.has_value()) return false;
        const std::vector<int> shape = shape_of(a ? *a : *b);
        const std::string& v = a ? pending_b : pending_a;
        if (shape.empty() || !follows(v, a ? n.args[1] : n.args[0], shape, g_.nodes[std::size_t(a ? n.args[0] : n.args[1])].origin))
            return false;
        fix_shape(v, shape);
        return true;
    }

    bool infer_at_penalty(int i) {
        std::vector<std::vector<int>> images;
        std::string pending;
        int pending_arg = -1;
        for (int a : g_.nodes[std::size_t(i)].args) {
            std::string p;
            const auto v = try_evaluate(a, &p);
            if (!v) {
                pending = p;
                pending_arg = a;
            } else if (auto* d = std::get_if<rt::Data>(&*v)) {
                images.push_back(d->image().sizes());
            }
        }
        if (pending.empty()) return false;
        const Origin& site = g_.nodes[std::size_t(i)].origin;
        for (const auto& shape : images)
            if (follows(pending, pending_arg, shape, site) &&
                with_shape(pending, shape, &site, [&] { return evaluate(i), true; })) {
                fix_shape(pending, shape);
                return true;
            }
        return false;
    }

    // ---- evaluation ---------------------------------------------------------------------------

    Value evaluate(int i) {
        auto& memo = memo_[std::size_t(i)];
        if (memo) return *memo;
        const Node& n = g_.nodes[std::size_t(i)];
        try {
            memo = compute(n);
        } catch (const ProblemError&) {
            throw;
        } catch (const Error& e) {
            fail_at(n.origin, e.what());
        }
        return *memo;
    }

    Value compute(const Node& n) {
        switch (n.kind) {
        case Node::Kind::number: return Scalar{n.value, {}};
        case Node::Kind::integers: return n.integers;
        case Node::Kind::word: return n.name;
        case Node::Kind::name: return named(n);
        case Node::Kind::variable: return variable(n.name);
        case Node::Kind::input: return input(n);
        case Node::Kind::parameter: return parameter(n.name, n.value);
        case Node::Kind::call: return call(n);
        case Node::Kind::add:
        case Node::Kind::subtract: return add(evaluate(n.args[0]), evaluate(n.args[1]), n.kind == Node::Kind::add);
        case Node::Kind::negate: return negate(evaluate(n.args[0]));
        case Node::Kind::multiply: {
            const Value a = evaluate(n.args[0]), b = evaluate(n.args[1]);
            if (n.weight && !std::holds_alternative<rt::Problem>(b))
                throw Error(fmt::format("only penalties have a weight; {} is an operator (scale an expression with a "
                                        "\"scale\" node)",
                                        g_.nodes[std::size_t(n.args[1])].name));
            return multiply(a, b, parameter_values_);
        }
        case Node::Kind::divide: return divide(evaluate(n.args[0]), evaluate(n.args[1]), parameter_values_);
        }
        PROXGEN_INTERNAL_ASSERT(false);
        return Scalar{};
    }

    Value named(const Node& n) {
        if (variables_.count(n.name)) return variable(n.name);
        if (b_.inputs.count(n.name)) return input(n);
        return parameter(n.name, b_.parameters.at(n.name));
    }

    Value variable(const std::string& name) {
        const Variable& v = variables_.at(name);
        if (!v.shape) throw Unresolved{name};
        return rt::variable(name, *v.shape);
    }

    Value input(const Node& n) {
        auto it = b_.inputs.find(n.name);
        if (it == b_.inputs.end())
            fail_at(n.origin, fmt::format("input '{}' is not given (the inputs given: {}){}", n.name,
                                          listing(keys(b_.inputs)), suggestion(n.name, keys(b_.inputs))));
        used_inputs_.insert(n.name);
        return rt::input(n.name, it->second);
    }

    Value parameter(const std::string& name, double default_value) {
        auto it = b_.parameters.find(name);
        if (it != b_.parameters.end()) used_parameters_.insert(name);
        parameter_values_[name] = it != b_.parameters.end() ? it->second : default_value;
        return Scalar{1, {name}};
    }

    bool is_penalty(const std::string& op) const {
        for (const auto& s : rt::catalogue())
            if (s.name == op) return s.penalty;
        return false;
    }

    // ---- calls by name --------------------------------------------------------------------------

    rt::Argument argument(const Value& v, const Node& user, int arg) {
        switch (v.index()) {
        case 0: return std::get<rt::Expr>(v);
        case 1: return std::get<rt::Data>(v);
        case 2: return value_of(std::get<Scalar>(v), parameter_values_);
        case 3: return std::get<std::vector<int>>(v);
        case 4: return std::get<std::string>(v);
        default: break;
        }
        fail_at(arg_origin(user, arg), fmt::format("a penalty cannot be an argument of {} (penalties are the terms of "
                                                   "the objective)",
                                                   user.name));
    }

    Origin arg_origin(const Node& user, int arg) const {
        if (!user.arg_fields.empty()) return user.origin.with_field(user.arg_fields[std::size_t(arg)]);
        return g_.nodes[std::size_t(user.args[std::size_t(arg)])].origin;
    }

    const rt::Signature& signature(const Node& n) const {
        std::vector<std::string> names;
        for (const auto& s : rt::catalogue()) {
            if (s.name == n.name) return s;
            names.push_back(s.name);
        }
        fail_at(n.origin.with_field(n.origin.line == 0 ? "op" : ""),
                fmt::format("unknown operator or penalty '{}'{} (docs/operators.md lists them)", n.name,
                            suggestion(n.name, names)));
    }

    Value call(const Node& n) {
        const rt::Signature& sig = signature(n);
        std::vector<Value> values;
        for (int a : n.args) values.push_back(evaluate(a));
        std::vector<rt::Argument> args;
        if (n.arg_fields.empty()) {
            for (std::size_t a = 0; a < values.size(); ++a) args.push_back(argument(values[a], n, int(a)));
        } else {
            args = by_field(n, sig, values);
        }
        rt::Value v = call_by_name(n.name, args);
        if (auto* e = std::get_if<rt::Expr>(&v)) return *e;
        return std::get<rt::Problem>(v);
    }

    /// rt::call; an image that the node derives data from when it is built (warp's homography,
    /// uneven_subsample's indices) cannot be a named input, and the catalogue does not say which
    /// parameters those are: a call refused with named images is tried once with the images
    /// anonymous (they then stay out of Problem::set_input, which could not change them anyway).
    static rt::Value call_by_name(const std::string& name, std::vector<rt::Argument> args) {
        try {
            return rt::call(name, args);
        } catch (const Error&) {
            bool named = false;
            for (auto& a : args)
                if (auto* d = std::get_if<rt::Data>(&a); d && !d->name().empty()) {
                    a = rt::Data(d->image());
                    named = true;
                }
            if (!named) throw;
            try {
                return rt::call(name, args);
            } catch (const Error&) {
            }
            throw;  // the first error: the names were not the reason
        }
    }

    static bool fits(const Value& v, rt::Parameter::Kind k) {
        using K = rt::Parameter::Kind;
        switch (k) {
        case K::expression: return std::holds_alternative<rt::Expr>(v);
        case K::image: return std::holds_alternative<rt::Data>(v);
        case K::number:
        case K::integer: return std::holds_alternative<Scalar>(v);
        case K::integers: return std::holds_alternative<std::vector<int>>(v);
        case K::word: return std::holds_alternative<std::string>(v);
        case K::operand: return std::holds_alternative<rt::Expr>(v) || std::holds_alternative<rt::Data>(v);
        case K::number_or_word: return std::holds_alternative<Scalar>(v) || std::holds_alternative<std::string>(v);
        }
        return false;
    }

    static const char* expected(rt::Parameter::Kind k) {
        using K = rt::Parameter::Kind;
        switch (k) {
        case K::expression: return "an expression input (a variable or an operator node)";
        case K::image: return "an image input (an input node)";
        case K::number: return "a number";
        case K::integer: return "an integer";
        case K::integers: return "a list of integers";
        case K::word: return "a word";
        case K::operand: return "an expression or an image input";
        case K::number_or_word: return "a number or a word";
        }
        return "?";
    }

    /// JSON: arguments by field name, checked against the signature, in its order.
    std::vector<rt::Argument> by_field(const Node& n, const rt::Signature& sig, const std::vector<Value>& values) {
        for (std::size_t a = 0; a < values.size(); ++a) {
            const std::string& field = n.arg_fields[a];
            if (std::none_of(sig.params.begin(), sig.params.end(), [&](const auto& p) { return p.name == field; }))
                fail_at(n.origin.with_field(field),
                        fmt::format("{} has no field '{}'; {} takes {}", sig.name, field, sig.name, sig.text()));
        }
        std::vector<rt::Argument> args;
        const rt::Parameter* skipped = nullptr;
        for (const rt::Parameter& p : sig.params) {
            std::vector<std::size_t> given;
            for (std::size_t a = 0; a < values.size(); ++a)
                if (n.arg_fields[a] == p.name) given.push_back(a);
            const Origin at = n.origin.with_field(p.name);
            if (given.empty()) {
                if (!p.optional) fail_at(at, fmt::format("missing ({}); {} takes {}", expected(p.kind), sig.name, sig.text()));
                skipped = skipped ? skipped : &p;
                continue;
            }
            if (skipped && skipped->kind == p.kind)
                fail_at(at, fmt::format("given without '{}', which comes before it; give both", skipped->name));
            if (given.size() > 1 && !p.repeated)
                fail_at(at, fmt::format("one input only, got {}", given.size()));
            for (std::size_t a : given) {
                if (!fits(values[a], p.kind))
                    fail_at(at, fmt::format("expected {}, got {}{}", expected(p.kind), value_name(values[a]),
                                            source(n.args[a])));
                args.push_back(argument(values[a], n, int(a)));
            }
        }
        return args;
    }

    /// " (node \"x\")": where an argument came from, when it is another node.
    std::string source(int arg) const {
        const Origin& o = g_.nodes[std::size_t(arg)].origin;
        if (o.field.empty() && !o.node.empty()) return fmt::format(" from node \"{}\"", o.node);
        return {};
    }

    struct Variable {
        std::optional<std::vector<int>> shape;
        Origin used_at;  ///< where it is declared or first used (errors)
    };

    const Graph& g_;
    const Bindings& b_;
    std::vector<std::optional<Value>> memo_;
    std::vector<char> reachable_;
    std::map<std::string, Variable> variables_;
    ParameterValues parameter_values_;
    std::set<std::string> used_inputs_, used_parameters_;
    struct TrialError {
        ProblemError error;
        std::vector<int> shape;
        Origin site;
    };
    std::optional<TrialError> trial_error_;  ///< shape inference: the first error a candidate shape gave
};

}  // namespace

Built build(const Graph& g, const Bindings& bindings, Goal goal) { return Builder(g, bindings).run(goal); }

}  // namespace proxgen::frontend
