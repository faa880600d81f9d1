// Typed expression → IR (ir::Node), and a typed problem → its plan::Draft: the typed front end's
// only walk over the DSL node types. Each node is written by its factory in ir/build.hpp (shared
// with the run-time front end); the planning happens in plan::plan (plan/planner.hpp), shared too.
#pragma once

#include <string>
#include <typeindex>
#include <vector>

#include <boost/hana/for_each.hpp>

#include "proxgen/dsl/color.hpp"
#include "proxgen/dsl/layout.hpp"
#include "proxgen/dsl/penalty.hpp"
#include "proxgen/dsl/sampling.hpp"
#include "proxgen/ir/build.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/plan/planner.hpp"
#include "proxgen/traits/linear_traits.hpp"

namespace proxgen::lower {

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

private:
    std::vector<std::type_index> tags_;
    std::vector<ir::Variable> variables_;
};

// Declared first: the recursive calls are dependent but the arguments live in proxgen::dsl, so
// argument-dependent lookup would not find overloads declared later in this namespace.
template <class Tag, int R> ir::Node to_ir(const dsl::variable_t<Tag, R>& v, TypedVariables& vars);
template <class E, class B> ir::Node to_ir(const dsl::conv_t<E, B>& e, TypedVariables& vars);
template <class E, class B, class A> ir::Node to_ir(const dsl::grad_t<E, B, A>& e, TypedVariables& vars);
template <class E> ir::Node to_ir(const dsl::mul_elemwise_t<E>& e, TypedVariables& vars);
template <class E> ir::Node to_ir(const dsl::scale_t<E>& e, TypedVariables& vars);
template <class E> ir::Node to_ir(const dsl::subsample_t<E>& e, TypedVariables& vars);
template <class A, class B> ir::Node to_ir(const dsl::sum_t<A, B>& e, TypedVariables& vars);
template <class E> ir::Node to_ir(const dsl::offset_t<E>& e, TypedVariables& vars);
template <class E> ir::Node to_ir(const dsl::crop_t<E>& e, TypedVariables& vars);
template <class E> ir::Node to_ir(const dsl::pad_t<E>& e, TypedVariables& vars);
template <class E> ir::Node to_ir(const dsl::transpose_t<E>& e, TypedVariables& vars);
template <class E, int R> ir::Node to_ir(const dsl::reshape_t<E, R>& e, TypedVariables& vars);
template <class A, class B> ir::Node to_ir(const dsl::concat_t<A, B>& e, TypedVariables& vars);
template <class E> ir::Node to_ir(const dsl::uneven_subsample_t<E>& e, TypedVariables& vars);
template <class E> ir::Node to_ir(const dsl::warp_t<E>& e, TypedVariables& vars);
template <class E> ir::Node to_ir(const dsl::mul_color_t<E>& e, TypedVariables& vars);
template <class E> ir::Node to_ir(const dsl::pxwise_matmul_t<E>& e, TypedVariables& vars);
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
    return ir::make::variable(i, vars.list()[i].name, v.shape);
}
template <class E, class B>
ir::Node to_ir(const dsl::conv_t<E, B>& e, TypedVariables& vars) {
    return ir::make::conv(to_ir(e.arg, vars), e.kernel, traits::conv_boundary<B>(), e.shape);
}
template <class E, class B, class A>
ir::Node to_ir(const dsl::grad_t<E, B, A>& e, TypedVariables& vars) {
    return ir::make::grad(to_ir(e.arg, vars), A::list(), dsl::grad_t<E, B, A>::periodic, e.shape);
}
template <class E>
ir::Node to_ir(const dsl::mul_elemwise_t<E>& e, TypedVariables& vars) {
    return ir::make::mul_elemwise(to_ir(e.arg, vars), e.weight, e.shape);
}
template <class E>
ir::Node to_ir(const dsl::scale_t<E>& e, TypedVariables& vars) {
    return ir::make::scale(to_ir(e.arg, vars), e.factor, e.shape);
}
template <class E>
ir::Node to_ir(const dsl::subsample_t<E>& e, TypedVariables& vars) {
    return ir::make::subsample(to_ir(e.arg, vars), e.step_x, e.step_y, e.shape);
}
template <class A, class B>
ir::Node to_ir(const dsl::sum_t<A, B>& e, TypedVariables& vars) {
    ir::Node a = to_ir(e.lhs, vars);
    return ir::make::sum(std::move(a), to_ir(e.rhs, vars), e.shape);
}
template <class E>
ir::Node to_ir(const dsl::offset_t<E>& e, TypedVariables& vars) {
    return ir::make::offset(to_ir(e.arg, vars), e.offset, e.sign, e.shape);
}
template <class E>
ir::Node to_ir(const dsl::crop_t<E>& e, TypedVariables& vars) {
    return ir::make::crop(to_ir(e.arg, vars), e.x0, e.y0, e.shape);
}
template <class E>
ir::Node to_ir(const dsl::pad_t<E>& e, TypedVariables& vars) {
    return ir::make::pad(to_ir(e.arg, vars), e.left, e.top, dsl::shape_of(e.arg), e.shape);
}
template <class E>
ir::Node to_ir(const dsl::transpose_t<E>& e, TypedVariables& vars) {
    return ir::make::transpose(to_ir(e.arg, vars), e.perm, e.shape);
}
template <class E, int R>
ir::Node to_ir(const dsl::reshape_t<E, R>& e, TypedVariables& vars) {
    return ir::make::reshape(to_ir(e.arg, vars), e.shape);
}
template <class A, class B>
ir::Node to_ir(const dsl::concat_t<A, B>& e, TypedVariables& vars) {
    ir::Node a = to_ir(e.lhs, vars);
    return ir::make::concat(std::move(a), to_ir(e.rhs, vars), e.axis, e.shape);
}
template <class E>
ir::Node to_ir(const dsl::uneven_subsample_t<E>& e, TypedVariables& vars) {
    return ir::make::uneven_subsample(to_ir(e.arg, vars), e.index, e.multiplicity, e.shape);
}
template <class E>
ir::Node to_ir(const dsl::warp_t<E>& e, TypedVariables& vars) {
    return ir::make::warp(to_ir(e.arg, vars), e.homography, e.norm, dsl::shape_of(e.arg), e.shape);
}
template <class E>
ir::Node to_ir(const dsl::mul_color_t<E>& e, TypedVariables& vars) {
    return ir::make::mul_color(to_ir(e.arg, vars), e.matrix, e.shape);
}
template <class E>
ir::Node to_ir(const dsl::pxwise_matmul_t<E>& e, TypedVariables& vars) {
    return ir::make::pxwise_matmul(to_ir(e.arg, vars), e.matrices, e.shape);
}

/// A typed problem as the planner's input: its terms as written (source order, before the rewrite
/// rules: plan::plan applies them) and its variables.
template <class... Terms>
plan::Draft to_draft(const dsl::problem_t<Terms...>& problem) {
    plan::Draft d;
    TypedVariables vars;
    boost::hana::for_each(problem.terms, [&](const auto& term) {
        using T = std::remove_cvref_t<decltype(term)>;
        ir::Term t;
        t.penalty = T::kind;
        t.weight = term.weight;
        t.beta = term.beta;
        t.arg_weight = term.arg_weight;
        t.offset = term.offset;
        t.data = term.data;
        t.constant = term.constant;
        t.expr = to_ir(term.arg, vars);
        if constexpr (T::kind == dsl::penalty_kind::diff_fn) t.smooth = term.arg.fn;
        d.terms.push_back(std::move(t));
    });
    d.variables = vars.list();
    return d;
}

}  // namespace proxgen::lower
