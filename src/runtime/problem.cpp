// Run-time problems (proxgen/runtime.hpp): penalties with the typed DSL's checks, the terms kept
// as written, and describe / solve / objective through the one planner (plan::plan) and the
// back end the typed API uses.
#include <algorithm>
#include <atomic>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "../check/inputs.hpp"
#include "nodes.hpp"
#include "../lower/host_operator.hpp"
#include "proxgen/catalogue/all.hpp"
#include "proxgen/check/rules.hpp"
#include "proxgen/messages.hpp"
#include "proxgen/plan/planner.hpp"
#include "proxgen/typed/solve.hpp"

namespace proxgen::rt {

using detail::ExprNode;
using detail::ProblemData;

namespace detail {

float term_weight(const Term& t, const Names& names) {
    // the product in double: factors that each fit in float32 may multiply to more than it holds
    double w = t.base_weight;
    for (const auto& f : t.factors)
        w *= f.parameter.empty() ? double(f.number)
                                 : double(catalogue::check::weight(names.parameters.at(f.parameter).value, f.parameter));
    return catalogue::check::weight_product(w, ir::name(t.ir));
}

double term_weight_derivative(const Term& t, const Names& names, const std::string& name) {
    // α = base · Π f_j: dα/dp = Σ over the factors f_i = p of base · Π_{j≠i} f_j
    auto value = [&](const WeightFactor& f) {
        return f.parameter.empty() ? double(f.number) : names.parameters.at(f.parameter).value;
    };
    double d = 0;
    for (std::size_t i = 0; i < t.factors.size(); ++i) {
        if (t.factors[i].parameter != name) continue;
        double others = t.base_weight;
        for (std::size_t j = 0; j < t.factors.size(); ++j)
            if (j != i) others *= value(t.factors[j]);
        d += others;
    }
    return d;
}

}  // namespace detail

namespace {

ProblemData& mutable_data(std::shared_ptr<const ProblemData>& d) {
    auto copy = std::make_shared<ProblemData>(*d);
    ProblemData& ref = *copy;
    d = std::move(copy);
    return ref;
}

namespace penalties = catalogue::penalties;

/// A one-term problem: the term its card builds from e's IR (checks and sentences are the card's).
template <class Make>
Problem term(const Expr& e, const char* op, Make make) {
    if (e.empty()) fail("{} ({})", fmt::format(PROXGEN_MSG_TAKES_EXPRESSION("{}"), op), "the expression is empty");
    const ExprNode& a = *e.node();
    auto d = std::make_shared<ProblemData>();
    d->names = a.names;
    detail::Term t;
    t.ir = make(a.ir);
    detail::register_term_inputs(t.ir, d->names);
    t.base_weight = t.ir.weight;
    t.ir.weight = detail::term_weight(t, d->names);
    d->terms.push_back(std::move(t));
    return Problem(std::move(d));
}

template <class Card>
Problem plain(const Expr& e, const char* op) {
    return term(e, op, [](const ir::Node& n) { return catalogue::term<Card>(n); });
}

template <class Card>
Problem weighted(const Data& w, const Expr& e, const char* op, const std::vector<int>& weight_shape) {
    return term(e, op, [&](const ir::Node& n) {
        return penalties::weighted(catalogue::term<Card>(n), {w.image(), w.name()}, weight_shape, op);
    });
}

}  // namespace

namespace detail {

void register_term_inputs(const ir::Term& t, Names& names) {
    if (!t.arg_weight_name.empty()) names.add_input(t.arg_weight_name, t.arg_weight);
    if (!t.data_name.empty()) names.add_input(t.data_name, t.data, &catalogue::card_of(t));
}

}  // namespace detail

// ---- penalties (as the typed front end's) -------------------------------------------------------

Problem sum_squares(const Expr& e) { return plain<penalties::sum_squares>(e, "sum_squares"); }
Problem least_squares(const Expr& e) { return plain<penalties::sum_squares>(e, "least_squares"); }
Problem norm1(const Expr& e) { return plain<penalties::norm1>(e, "norm1"); }
Problem nonneg(const Expr& e) { return plain<penalties::nonneg>(e, "nonneg"); }
Problem sum_entries(const Expr& e) { return plain<penalties::sum_entries>(e, "sum_entries"); }

Problem group_norm1(const Expr& e) {
    return term(e, "group_norm1", [](const ir::Node& n) {
        penalties::group_norm1::check(n.shape);
        return catalogue::term<penalties::group_norm1>(n);
    });
}

Problem host_diff_fn(const Expr& e, std::string name, std::function<double(const Image&)> value,
                     std::function<Image(const Image&)> gradient) {
    return term(e, "diff_fn", [&](const ir::Node& n) {
        ir::Term t = catalogue::term<penalties::diff_fn>(n);
        t.code = lower::host_smooth_code(name, n.shape, std::move(value), std::move(gradient));
        return t;
    });
}

Problem patch_nlm(const Expr& e) {
    return term(e, "patch_nlm", [](const ir::Node& n) {
        penalties::patch_nlm::check(n.shape);
        return catalogue::term<penalties::patch_nlm>(n);
    });
}

Problem poisson_norm(const Expr& e, const Data& counts) {
    return term(e, "poisson_norm", [&](const ir::Node& n) { return penalties::poisson_norm::make(n, {counts.image(), counts.name()}); });
}

Problem masked_nonneg(const Expr& e, const Data& mask) {
    return term(e, "masked_nonneg", [&](const ir::Node& n) { return penalties::masked_nonneg::make(n, {mask.image(), mask.name()}); });
}

Problem box(const Expr& e, double lo, double hi) {
    return term(e, "box", [&](const ir::Node& n) { return penalties::box::make(n, lo, hi); });
}

Problem huber(const Expr& e, double threshold) {
    return term(e, "huber", [&](const ir::Node& n) { return penalties::huber::make(n, threshold); });
}

Problem weighted_sum_squares(const Data& w, const Expr& e) {
    return weighted<penalties::sum_squares>(w, e, "weighted_sum_squares", e.shape());
}
Problem weighted_norm1(const Data& w, const Expr& e) { return weighted<penalties::norm1>(w, e, "weighted_norm1", e.shape()); }
Problem weighted_nonneg(const Data& w, const Expr& e) { return weighted<penalties::nonneg>(w, e, "weighted_nonneg", e.shape()); }
Problem weighted_group_norm1(const Data& w, const Expr& e) {
    return weighted<penalties::group_norm1>(
        w, e, "weighted_group_norm1",
        penalties::group_norm1::weight_shape(detail::node_of(e, "weighted_group_norm1").ir.shape));
}
Problem weighted_poisson_norm(const Data& w, const Expr& e, const Data& counts) {
    return term(e, "weighted_poisson_norm", [&](const ir::Node& n) {
        return penalties::weighted(penalties::poisson_norm::make(n, {counts.image(), counts.name()}),
                                   {w.image(), w.name()}, n.shape, "weighted_poisson_norm");
    });
}

// ---- Problem ----------------------------------------------------------------------------------

Problem::Problem() : data_(std::make_shared<ProblemData>()) {}

std::size_t Problem::size() const { return data_->terms.size(); }

std::vector<VariableInfo> Problem::variables() const { return data_->names.variables; }

std::vector<std::string> Problem::inputs() const {
    std::vector<std::string> out;
    for (const auto& [name, in] : data_->names.inputs) out.push_back(name);
    return out;
}

std::vector<std::string> Problem::parameters() const {
    std::vector<std::string> out;
    for (const auto& [name, p] : data_->names.parameters) out.push_back(name);
    return out;
}

namespace {
template <class Map>
auto& find_name(Map& map, const std::string& name, const char* kind) {
    auto it = map.find(name);
    if (it == map.end()) {
        std::vector<std::string> names;
        for (const auto& [n, v] : map) names.push_back(n);
        fail("this problem has no {} named '{}' (its {}s: {})", kind, name, kind,
             names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")));
    }
    return it->second;
}

/// Calls f on every node of the problem's terms (mutable).
template <class F>
void for_each_node(ir::Node& n, F& f) {
    f(n);
    for (auto& a : n.args) for_each_node(a, f);
}
}  // namespace

namespace detail {

Problem problem_of_terms(const plan::Draft& terms, const std::vector<std::vector<std::pair<std::string, double>>>& parameters) {
    PROXGEN_INTERNAL_ASSERT(parameters.size() == terms.terms.size());
    auto d = std::make_shared<ProblemData>();
    for (const auto& v : terms.variables) d->names.add_variable(v.name, v.shape);
    for (std::size_t i = 0; i < terms.terms.size(); ++i) {
        Term t;
        t.ir = terms.terms[i];
        auto name_inputs = [&](ir::Node& n) {
            if (!n.is_variable() && !n.name.empty() && !n.image.empty()) d->names.add_input(n.name, n.image);
        };
        for_each_node(t.ir.expr, name_inputs);
        register_term_inputs(t.ir, d->names);
        // weight = base · Π parameters: the base is what the numbers made of it
        double base = t.ir.weight;
        for (const auto& [name, value] : parameters[i]) {
            if (value == 0)
                fail("parameter '{}' is 0: a named weight of 0 leaves the rest of its term's weight unknown; give it "
                     "the value the generated solver starts from",
                     name);
            d->names.add_parameter(name, value, true, false);
            t.factors.push_back({1.0f, name});
            base /= value;
        }
        t.base_weight = float(base);
        t.ir.weight = term_weight(t, d->names);
        d->terms.push_back(std::move(t));
    }
    return Problem(std::move(d));
}

}  // namespace detail

const Image& Problem::input(const std::string& name) const {
    return find_name(data_->names.inputs, name, "input").image;
}

double Problem::parameter(const std::string& name) const {
    return find_name(data_->names.parameters, name, "parameter").value;
}

void Problem::set_input(const std::string& name, const Image& image) {
    const auto& in = find_name(data_->names.inputs, name, "input");
    if (image.sizes() != in.image.sizes())
        fail("set_input: input '{}' is {} in this problem, the new image is {} (other sizes make another problem: "
             "build it again, which recompiles nothing)", name, in.image.shape_string(), image.shape_string());
    if (in.data_of) in.data_of->check_data(image, image.sizes());
    ProblemData& d = mutable_data(data_);
    d.names.inputs[name].image = image;
    auto replace = [&](ir::Node& n) {
        if (n.name == name && n.op->image_role()) n.image = image;
    };
    for (auto& t : d.terms) {
        for_each_node(t.ir.expr, replace);
        if (t.ir.arg_weight_name == name) t.ir.arg_weight = image;
        if (t.ir.data_name == name) t.ir.data = image;
    }
}

void Problem::set_parameter(const std::string& name, double value) {
    const auto& p = find_name(data_->names.parameters, name, "parameter");
    if (p.weight) catalogue::check::weight(value, name);
    const float factor = p.scale ? catalogue::check::scale(value) : float(value);
    ProblemData& d = mutable_data(data_);
    d.names.parameters[name].value = value;
    auto replace = [&](ir::Node& n) {
        if (n.name == name && n.op->holds_scalar()) n.scalar = factor;
    };
    for (auto& t : d.terms) {
        for_each_node(t.ir.expr, replace);
        t.ir.weight = detail::term_weight(t, d.names);
    }
}

void Problem::declare(const Expr& variable) {
    if (!variable.is_variable()) fail("declare: {} is not a variable", variable.to_string());
    ProblemData& d = mutable_data(data_);
    d.names.add_variable(variable.variable_name(), variable.shape());
}

std::string Problem::to_string() const {
    std::vector<std::string> terms;
    for (const auto& t : data_->terms) terms.push_back(ir::to_string_named(t.ir));
    return terms.empty() ? std::string("(no terms)") : fmt::format("{}", fmt::join(terms, " + "));
}

Problem& Problem::operator+=(const Problem& other) {
    ProblemData& d = mutable_data(data_);
    d.names.merge(other.data_->names);
    d.terms.insert(d.terms.end(), other.data_->terms.begin(), other.data_->terms.end());
    return *this;
}

Problem operator*(const Scalar& s, const Problem& p) {
    const float w = catalogue::check::weight(s.value(), s.name());
    auto data = p.data();
    ProblemData& d = mutable_data(data);
    d.names.add_parameter(s.name(), s.value(), true, false);
    for (auto& t : d.terms) {
        t.factors.push_back({w, s.name()});
        t.ir.weight = detail::term_weight(t, d.names);
    }
    return Problem(std::move(data));
}

// ---- planning and solving ---------------------------------------------------------------------

namespace {
std::atomic<std::size_t> plan_counter{0};

/// The run-time problem as the planner's Draft, planned for a (each term carrying its derivative
/// with respect to *tangent_of when given).
ir::Problem planned_ir(const Problem& prob, Algorithm a, const std::string* tangent_of = nullptr) {
    if (a == Algorithm::automatic) fail("automatic: the algorithm is chosen when solving (Result::choice); plan one by name");
    ++plan_counter;
    const ProblemData& d = *prob.data();
    // named inputs by their names (the planner names the rest by operator and role)
    for (const auto& [name, in] : d.names.inputs) check::finite(in.image, fmt::format("input '{}'", name));
    plan::Draft draft;
    for (const auto& v : d.names.variables) draft.variables.push_back({v.name, v.shape});
    for (const auto& t : d.terms) {
        ir::Term term = t.ir;
        auto number = [&](ir::Node& n) {
            if (n.is_variable()) n.variable = d.names.variable_index(n.name);
        };
        for_each_node(term.expr, number);
        if (tangent_of) {
            ir::Term::Tangent tangent;
            tangent.of = *tangent_of;
            tangent.weight = detail::term_weight_derivative(t, d.names, *tangent_of);
            if (!term.arg_weight.empty() && term.arg_weight_name == *tangent_of) {
                tangent.arg_weight = Image(term.arg_weight.sizes());
                std::fill_n(tangent.arg_weight.data(), tangent.arg_weight.size(), 1.0f);
            }
            term.tangent = std::move(tangent);
        }
        draft.terms.push_back(std::move(term));
    }
    return plan::plan(draft, a);
}

}  // namespace

namespace detail {
ir::Problem plan_with_tangent(const Problem& prob, Algorithm a, const std::string& name) {
    return planned_ir(prob, a, &name);
}
}  // namespace detail

namespace {

/// Each variable's value in r.named_values (one variable: r.x itself; several: views of x copied out).
void name_values(const std::vector<ir::Variable>& variables, Result& r) {
    const std::vector<Image> values = ir::split_state(variables, r.x);
    for (std::size_t j = 0; j < variables.size(); ++j) r.named_values.insert_or_assign(variables[j].name, values[j]);
}

Result solve_planned(const ir::Problem& p, const Options& opt, const Result* warm) {
    Result r = ::proxgen::detail::solve_ir(p, opt, warm);
    name_values(p.variables, r);
    return r;
}

double objective_planned(const ir::Problem& p, const Result& res) {
    std::vector<Image> values;
    for (const auto& v : p.variables) {
        auto it = res.named_values.find(v.name);
        if (it == res.named_values.end()) return ::proxgen::detail::objective_once(p, res.x);
        values.push_back(it->second);
    }
    return ::proxgen::detail::objective_once(p, ir::join_state(p, values));
}

double objective_of_values(const ir::Problem& p, const std::map<std::string, Image>& given) {
    std::vector<Image> values;
    std::vector<std::string> names;
    for (const auto& v : p.variables) names.push_back(v.name);
    for (const auto& v : p.variables) {
        auto it = given.find(v.name);
        if (it == given.end())
            fail("objective: no value for variable '{}' (the problem's variables: {})", v.name, fmt::join(names, ", "));
        if (it->second.sizes() != v.shape)
            fail("objective: variable '{}' is {} but its value is {}", v.name, shape_string(v.shape),
                 it->second.shape_string());
        values.push_back(it->second);
    }
    for (const auto& [name, img] : given)
        if (std::find(names.begin(), names.end(), name) == names.end())
            fail("objective: the problem has no variable '{}' (its variables: {})", name, fmt::join(names, ", "));
    return ::proxgen::detail::objective_once(p, ir::join_state(p, values));
}

double objective_of_image(const ir::Problem& p, const Image& x) {
    if (p.variables.size() > 1)
        fail("objective: this problem has {} variables; give each one's value by name (objective(problem, "
             "{{{{\"x\", x}}, {{\"y\", y}}}})) or a Result",
             p.variables.size());
    return ::proxgen::detail::objective_once(p, x);
}
}  // namespace

std::size_t detail::plans_made() { return plan_counter.load(); }

Algorithm Plan::algorithm() const { return ir_->algorithm; }
Plan::operator ir::Problem() const { return *ir_; }

Plan plan(const Problem& prob, Algorithm a) { return Plan(std::make_shared<const ir::Problem>(planned_ir(prob, a))); }

namespace {
/// Each candidate's plan for Algorithm::automatic; nullopt where the planner says it cannot run.
std::function<std::optional<ir::Problem>(Algorithm)> candidate_plans(const Problem& prob) {
    // an Error says why a candidate cannot be planned; Algorithm::automatic reports it
    return [prob](Algorithm a) -> std::optional<ir::Problem> { return planned_ir(prob, a); };
}
Result solve_maybe_automatic(const Problem& prob, const Options& opt, const Result* warm) {
    if (opt.algorithm != Algorithm::automatic) return solve_planned(planned_ir(prob, opt.algorithm), opt, warm);
    Result r = ::proxgen::detail::solve_automatic(candidate_plans(prob), opt, warm);
    std::vector<ir::Variable> variables;
    for (const auto& v : prob.data()->names.variables) variables.push_back({v.name, v.shape});
    name_values(variables, r);
    return r;
}
}  // namespace

std::string describe(const Problem& prob, Algorithm a) {
    if (a == Algorithm::automatic) return ::proxgen::detail::describe_automatic(candidate_plans(prob));
    return ::proxgen::detail::describe_ir(planned_ir(prob, a));
}
std::string describe(const Plan& planned) { return ::proxgen::detail::describe_ir(planned.ir()); }


Result solve(const Problem& prob, const Options& opt) { return solve_maybe_automatic(prob, opt, nullptr); }
Result solve(const Problem& prob, const Options& opt, const Result& warm) { return solve_maybe_automatic(prob, opt, &warm); }
Result solve(const Plan& planned, const Options& opt) { return solve_planned(planned.ir(), opt, nullptr); }
Result solve(const Plan& planned, const Options& opt, const Result& warm) { return solve_planned(planned.ir(), opt, &warm); }

double objective(const Problem& prob, const Image& x) {
    return objective_of_image(planned_ir(prob, Algorithm::pock_chambolle), x);
}
double objective(const Problem& prob, const std::map<std::string, Image>& values) {
    return objective_of_values(planned_ir(prob, Algorithm::pock_chambolle), values);
}
double objective(const Problem& prob, const Result& res) {
    return objective_planned(planned_ir(prob, Algorithm::pock_chambolle), res);
}
double objective(const Plan& planned, const Image& x) { return objective_of_image(planned.ir(), x); }
double objective(const Plan& planned, const std::map<std::string, Image>& values) {
    return objective_of_values(planned.ir(), values);
}
double objective(const Plan& planned, const Result& res) { return objective_planned(planned.ir(), res); }

}  // namespace proxgen::rt

namespace proxgen {

const Image& Result::operator[](const std::string& variable) const {
    auto it = named_values.find(variable);
    if (it == named_values.end())
        fail("Result[\"{}\"]: the solved problem has no variable named '{}' (variables are named in problems "
             "built at run time, proxgen/runtime.hpp)", variable, variable);
    return it->second;
}

const Image& Result::operator[](const rt::Expr& variable) const {
    if (!variable.is_variable()) fail("Result[e]: {} is not a variable", variable.to_string());
    return (*this)[variable.variable_name()];
}

}  // namespace proxgen
