// Internal: what rt::Expr and rt::Problem hold. An expression is its IR subtree (ir::Node, written
// by its cards' factories, as the typed front end writes it) plus the names it uses; a problem
// its terms as written (the planner's Draft, once variables are numbered) plus the names.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/plan/planner.hpp"
#include "proxgen/runtime.hpp"

namespace proxgen::rt::detail {

/// The named things an expression or problem uses: variables, inputs and parameters. One name is
/// one thing: a variable has one shape, an input one image, a parameter one value.
struct Names {
    struct Input {
        Image image;
        /// used as a penalty's data (Poisson counts, a mask): a new image passes that card's checks
        const catalogue::PenaltyCard* data_of = nullptr;
    };
    struct Parameter {
        double value = 0;
        bool weight = false;  ///< used as a penalty weight: finite, >= 0
        bool scale = false;   ///< used as a scale factor: finite
    };
    std::vector<VariableInfo> variables;  ///< in order of first use
    std::map<std::string, Input> inputs;
    std::map<std::string, Parameter> parameters;

    void add_variable(const std::string& name, const std::vector<int>& shape);
    void add_input(const std::string& name, const Image& image, const catalogue::PenaltyCard* data_of = nullptr);
    void add_parameter(const std::string& name, double value, bool weight, bool scale);
    void merge(const Names& other);
    /// What `name` is ("variable", "input", "parameter"), or nullptr.
    const char* kind_of(const std::string& name) const;
    int variable_index(const std::string& name) const;
};

struct ExprNode {
    ir::Node ir;
    Names names;
    std::string label;
};

/// One factor of a term's weight: a number or a named parameter.
struct WeightFactor {
    float number = 1.0f;
    std::string parameter;
};

/// A term as written: the IR term (expr = the whole argument; its arg_weight_name and data_name
/// say which named inputs feed arg_weight and data).
struct Term {
    ir::Term ir;
    float base_weight = 1.0f;              ///< as the penalty's card set it (huber: M²)
    std::vector<WeightFactor> factors;     ///< s * term, in order: weight = base · Π factors
};

struct ProblemData {
    std::vector<Term> terms;
    Names names;  ///< declared variables too (Problem::declare): the planner rejects unused ones
};

/// The node of e, or an Error "<op>: ..." when e is empty.
const ExprNode& node_of(const Expr& e, const char* op);
/// The weight of a term from its factors and the parameters' values.
float term_weight(const Term& t, const Names& names);
/// dα/d(parameter `name`) of a term's weight (0 when no factor is that parameter).
double term_weight_derivative(const Term& t, const Names& names, const std::string& name);
/// The problem planned for a, every term carrying its ir::Term::Tangent with respect to the named
/// input or parameter `name` through the rewrite rules (rt::gradient's planning map).
ir::Problem plan_with_tangent(const Problem& prob, Algorithm a, const std::string& name);
/// Registers the named inputs a term's card bound (its weight image and its data).
void register_term_inputs(const ir::Term& t, Names& names);
/// A typed problem's terms as written (typed::to_draft) as a run-time problem: the names its data
/// carry (Node::name, Term::arg_weight_name, data_name) become named inputs, and `parameters[i]`
/// (term i's named weight factors, pg::parameter) named parameters, so that the run-time front
/// end's machinery for names (a generated solver's Data fields) serves typed problems too.
Problem problem_of_terms(const plan::Draft& terms, const std::vector<std::vector<std::pair<std::string, double>>>& parameters);

}  // namespace proxgen::rt::detail
