// Typed expression → IR (ir::Node), and a typed problem → its plan::Draft: the typed front end's
// only walk over its node types. Each node is written by its card's factory (`make`, shared with
// the run-time front end); the planning happens in plan::plan (plan/planner.hpp), shared too.
#pragma once

#include <string>
#include <typeindex>
#include <vector>

#include <boost/hana/for_each.hpp>

#include "proxgen/catalogue/ops/variable.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/plan/planner.hpp"
#include "proxgen/typed/card_node.hpp"
#include "proxgen/typed/color.hpp"
#include "proxgen/typed/layout.hpp"
#include "proxgen/typed/penalty.hpp"
#include "proxgen/typed/sampling.hpp"
#include "proxgen/typed/traits.hpp"

namespace proxgen::typed {

namespace ops = catalogue::ops;

/// The variables met while writing a typed problem as IR: each variable type gets the next index
/// (in order of first use) and a name: x, then y, z, then x3, x4, ...
class TypedVariables {
public:
    template <class Tag>
    int index(const std::vector<int>& shape) {
        const std::type_index tag(typeid(Tag));
        for (std::size_t i = 0; i < tags_.size(); ++i)
            if (tags_[i] == tag) return int(i);
        tags_.push_back(tag);
        const std::size_t i = variables_.size();
        variables_.push_back({i < 3 ? std::string(1, "xyz"[i]) : "x" + std::to_string(i), shape});
        return int(i);
    }
    const std::vector<ir::Variable>& list() const { return variables_; }
    /// Each variable's tag (variable_t's Tag), in list() order.
    const std::vector<std::type_index>& tags() const { return tags_; }

private:
    std::vector<std::type_index> tags_;
    std::vector<ir::Variable> variables_;
};

// Declared first: the recursive calls are dependent but the arguments live in proxgen::dsl, so
// argument-dependent lookup would not find overloads declared later in this namespace.
template <class Tag, int R> ir::Node to_ir(const dsl::variable_t<Tag, R>& v, TypedVariables& vars);
template <class E, class B> ir::Node to_ir(const dsl::conv_t<E, B>& e, TypedVariables& vars);
template <class E, class B, class A> ir::Node to_ir(const dsl::grad_t<E, B, A>& e, TypedVariables& vars);
template <class A, class B> ir::Node to_ir(const dsl::sum_t<A, B>& e, TypedVariables& vars);
template <class A, class B> ir::Node to_ir(const dsl::concat_t<A, B>& e, TypedVariables& vars);
template <class Card, int R, class E> ir::Node to_ir(const dsl::card_t<Card, R, E>& e, TypedVariables& vars);
template <class E> ir::Node to_ir(const dsl::user_t<E>& e, TypedVariables& vars);       // proxgen/user_operator.hpp
template <class E> ir::Node to_ir(const dsl::smooth_arg_t<E>& e, TypedVariables& vars);  // proxgen/diff_fn.hpp

/// A lone typed expression as IR (its variables numbered from 0).
template <dsl::Expression E>
ir::Node to_ir(const E& e) {
    TypedVariables vars;
    return to_ir(e, vars);
}

template <class Tag, int R>
ir::Node to_ir(const dsl::variable_t<Tag, R>& v, TypedVariables& vars) {
    const int i = vars.index<Tag>(v.shape);
    return ops::variable::make(i, vars.list()[i].name, v.shape);
}
template <class E, class B>
ir::Node to_ir(const dsl::conv_t<E, B>& e, TypedVariables& vars) {
    return ops::conv::make(to_ir(e.arg, vars), e.kernel, traits::conv_boundary<B>());
}
template <class E, class B, class A>
ir::Node to_ir(const dsl::grad_t<E, B, A>& e, TypedVariables& vars) {
    return ops::grad::make(to_ir(e.arg, vars), A::list(), dsl::grad_t<E, B, A>::periodic);
}
template <class A, class B>
ir::Node to_ir(const dsl::sum_t<A, B>& e, TypedVariables& vars) {
    ir::Node a = to_ir(e.lhs, vars);
    return ops::sum::make(std::move(a), to_ir(e.rhs, vars));
}
template <class A, class B>
ir::Node to_ir(const dsl::concat_t<A, B>& e, TypedVariables& vars) {
    ir::Node a = to_ir(e.lhs, vars);
    return ops::concat::make(std::move(a), to_ir(e.rhs, vars), e.axis);
}
template <class Card, int R, class E>
ir::Node to_ir(const dsl::card_t<Card, R, E>& e, TypedVariables& vars) {
    ir::Node n = e.node;
    n.args.front() = to_ir(e.arg, vars);  // the operand; a card's other arguments (an offset's image) stay
    return n;
}

/// A typed problem as the planner's input: its terms as written (source order, before the rewrite
/// rules: plan::plan applies them) and its variables; `tags`, when given, receives each variable's
/// tag in the draft's order.
/// Data named by pg::input (proxgen/typed/named.hpp) keep their names in the IR, as rt::input's do.
inline void name_data(ir::Node& n) {
    if (!n.is_variable() && n.name.empty()) n.name = n.image.name();
    for (ir::Node& a : n.args) name_data(a);
}

template <class... Terms>
plan::Draft to_draft(const dsl::problem_t<Terms...>& problem, std::vector<std::type_index>* tags = nullptr) {
    plan::Draft d;
    TypedVariables vars;
    boost::hana::for_each(problem.terms, [&](const auto& term) {
        using T = std::remove_cvref_t<decltype(term)>;
        ir::Term t;
        t.penalty = &catalogue::card<typename T::card>();
        t.weight = term.weight;
        t.beta = term.beta;
        t.arg_weight = term.arg_weight;
        t.offset = term.offset;
        t.data = term.data;
        t.ints = term.ints;
        t.constant = term.constant;
        t.expr = to_ir(term.arg, vars);
        name_data(t.expr);
        t.arg_weight_name = term.arg_weight.name();
        t.data_name = term.data.name();
        if constexpr (std::is_same_v<typename T::card, catalogue::penalties::diff_fn>) t.code = term.arg.fn;
        d.terms.push_back(std::move(t));
    });
    d.variables = vars.list();
    if (tags) *tags = vars.tags();
    return d;
}

}  // namespace proxgen::typed
