// Typed expression → run-time IR (ir::Node). The only place that walks the DSL node types for the
// back end; the Halide lowering in src/lower/ works on the IR and is compiled once, in the library.
#pragma once

#include <boost/hana/for_each.hpp>
#include <boost/hana/range.hpp>

#include "proxgen/ir/ir.hpp"
#include "proxgen/plan/normalize.hpp"
#include "proxgen/plan/plan.hpp"

namespace proxgen::lower {

// Declared first: the recursive calls are dependent but the arguments live in proxgen::dsl, so
// argument-dependent lookup would not find overloads declared later in this namespace.
template <class Tag, int R> ir::Node to_ir(const dsl::variable_t<Tag, R>& v);
template <class E, class B> ir::Node to_ir(const dsl::conv_t<E, B>& e);
template <class E, class B, class A> ir::Node to_ir(const dsl::grad_t<E, B, A>& e);
template <class E> ir::Node to_ir(const dsl::mul_elemwise_t<E>& e);
template <class E> ir::Node to_ir(const dsl::scale_t<E>& e);
template <class E> ir::Node to_ir(const dsl::subsample_t<E>& e);
template <class A, class B> ir::Node to_ir(const dsl::sum_t<A, B>& e);
template <class E> ir::Node to_ir(const dsl::offset_t<E>& e);
template <class E> ir::Node to_ir(const dsl::crop_t<E>& e);
template <class E> ir::Node to_ir(const dsl::pad_t<E>& e);
template <class E> ir::Node to_ir(const dsl::transpose_t<E>& e);
template <class E, int R> ir::Node to_ir(const dsl::reshape_t<E, R>& e);
template <class A, class B> ir::Node to_ir(const dsl::concat_t<A, B>& e);
template <class E> ir::Node to_ir(const dsl::uneven_subsample_t<E>& e);
template <class E> ir::Node to_ir(const dsl::warp_t<E>& e);
template <class E> ir::Node to_ir(const dsl::mul_color_t<E>& e);
template <class E> ir::Node to_ir(const dsl::pxwise_matmul_t<E>& e);
template <class E> ir::Node to_ir(const dsl::user_t<E>& e);  // defined in proxgen/user_operator.hpp
template <class E> ir::Node to_ir(const dsl::smooth_arg_t<E>& e);  // defined in proxgen/diff_fn.hpp

inline ir::Node unary(ir::Op op, const std::vector<int>& shape, ir::Node arg) {
    ir::Node n;
    n.op = op;
    n.shape = shape;
    n.args.push_back(std::move(arg));
    return n;
}

template <class Tag, int R>
ir::Node to_ir(const dsl::variable_t<Tag, R>& v) {
    ir::Node n;
    n.op = ir::Op::variable;
    n.shape = v.shape;
    return n;
}
template <class E, class B>
ir::Node to_ir(const dsl::conv_t<E, B>& e) {
    auto n = unary(ir::Op::conv, e.shape, to_ir(e.arg));
    n.image = e.kernel;
    n.boundary = std::is_same_v<B, dsl::zero_boundary_t> ? ir::ConvBoundary::zero
                 : std::is_same_v<B, dsl::replicate_t>   ? ir::ConvBoundary::replicate
                                                         : ir::ConvBoundary::circular;
    return n;
}
template <class E, class B, class A>
ir::Node to_ir(const dsl::grad_t<E, B, A>& e) {
    auto n = unary(ir::Op::grad, e.shape, to_ir(e.arg));
    n.periodic = dsl::grad_t<E, B, A>::periodic;
    if constexpr (!std::is_same_v<A, dsl::xy_axes>) n.ints = A::list();  // x and y stay the empty default
    return n;
}
template <class E>
ir::Node to_ir(const dsl::mul_elemwise_t<E>& e) {
    auto n = unary(ir::Op::mul_elemwise, e.shape, to_ir(e.arg));
    n.image = e.weight;
    return n;
}
template <class E>
ir::Node to_ir(const dsl::scale_t<E>& e) {
    auto n = unary(ir::Op::scale, e.shape, to_ir(e.arg));
    n.scalar = e.factor;
    return n;
}
template <class E>
ir::Node to_ir(const dsl::subsample_t<E>& e) {
    auto n = unary(ir::Op::subsample, e.shape, to_ir(e.arg));
    n.step_x = e.step_x;
    n.step_y = e.step_y;
    return n;
}
template <class A, class B>
ir::Node to_ir(const dsl::sum_t<A, B>& e) {
    ir::Node n;
    n.op = ir::Op::sum;
    n.shape = e.shape;
    n.args.push_back(to_ir(e.lhs));
    n.args.push_back(to_ir(e.rhs));
    return n;
}
/// e ± b becomes sum(e, scale(±1, constant b)): the sign stays a bound scalar, not structure.
template <class E>
ir::Node to_ir(const dsl::offset_t<E>& e) {
    ir::Node c;
    c.op = ir::Op::constant;
    c.shape = e.shape;
    c.image = e.offset;
    auto signed_c = unary(ir::Op::scale, e.shape, std::move(c));
    signed_c.scalar = e.sign;
    ir::Node n;
    n.op = ir::Op::sum;
    n.shape = e.shape;
    n.args.push_back(to_ir(e.arg));
    n.args.push_back(std::move(signed_c));
    return n;
}

template <class E>
ir::Node to_ir(const dsl::crop_t<E>& e) {
    auto n = unary(ir::Op::crop, e.shape, to_ir(e.arg));
    n.ints = {e.x0, e.y0, e.shape[0], e.shape[1]};
    return n;
}
template <class E>
ir::Node to_ir(const dsl::pad_t<E>& e) {
    auto n = unary(ir::Op::pad, e.shape, to_ir(e.arg));
    const auto& in = dsl::shape_of(e.arg);
    n.ints = {e.left, e.top, e.shape[0] - in[0] - e.left, e.shape[1] - in[1] - e.top};
    return n;
}
template <class E>
ir::Node to_ir(const dsl::transpose_t<E>& e) {
    auto n = unary(ir::Op::transpose, e.shape, to_ir(e.arg));
    n.ints = e.perm;
    return n;
}
template <class E, int R>
ir::Node to_ir(const dsl::reshape_t<E, R>& e) {
    auto n = unary(ir::Op::reshape, e.shape, to_ir(e.arg));
    n.ints = e.shape;  // the target shape is structure: the pipeline's index arithmetic uses it
    return n;
}
template <class A, class B>
ir::Node to_ir(const dsl::concat_t<A, B>& e) {
    ir::Node n;
    n.op = ir::Op::concat;
    n.shape = e.shape;
    n.ints = {e.axis};
    n.args.push_back(to_ir(e.lhs));
    n.args.push_back(to_ir(e.rhs));
    return n;
}
template <class E>
ir::Node to_ir(const dsl::uneven_subsample_t<E>& e) {
    auto n = unary(ir::Op::uneven_subsample, e.shape, to_ir(e.arg));
    n.image = e.index;
    return n;
}
template <class E>
ir::Node to_ir(const dsl::warp_t<E>& e) {
    auto n = unary(ir::Op::warp, e.shape, to_ir(e.arg));
    n.image = e.homography;
    // the adjoint's gather window, then the output size when it is not the input's
    n.ints = {int(e.homography(0, 0, 2)), int(e.homography(1, 0, 2))};
    const auto& in = dsl::shape_of(e.arg);
    if (e.shape[0] != in[0] || e.shape[1] != in[1]) n.ints.insert(n.ints.end(), {e.shape[0], e.shape[1]});
    return n;
}
template <class E>
ir::Node to_ir(const dsl::mul_color_t<E>& e) {
    auto n = unary(ir::Op::mul_color, e.shape, to_ir(e.arg));
    n.image = e.matrix;
    return n;
}
template <class E>
ir::Node to_ir(const dsl::pxwise_matmul_t<E>& e) {
    auto n = unary(ir::Op::pxwise_matmul, e.shape, to_ir(e.arg));
    n.image = e.matrices;
    return n;
}

inline ir::Penalty to_ir(dsl::penalty_kind k) {
    switch (k) {
    case dsl::penalty_kind::sum_squares: return ir::Penalty::sum_squares;
    case dsl::penalty_kind::norm1: return ir::Penalty::norm1;
    case dsl::penalty_kind::group_norm1: return ir::Penalty::group_norm1;
    case dsl::penalty_kind::nonneg: return ir::Penalty::nonneg;
    case dsl::penalty_kind::poisson: return ir::Penalty::poisson;
    case dsl::penalty_kind::sum_entries: return ir::Penalty::sum_entries;
    case dsl::penalty_kind::masked_nonneg: return ir::Penalty::masked_nonneg;
    case dsl::penalty_kind::box: return ir::Penalty::box;
    case dsl::penalty_kind::huber: return ir::Penalty::huber;
    case dsl::penalty_kind::patch_nlm: return ir::Penalty::patch_nlm;
    case dsl::penalty_kind::diff_fn: return ir::Penalty::diff_fn;
    }
    return ir::Penalty::sum_squares;
}

/// The run-time image of plan_t<normalized problem, A>: Ω and Ψ terms in source order, slots
/// numbered. `problem` must already be normalized (plan::normalize).
template <Algorithm A, class... Terms>
ir::Problem to_ir(const dsl::problem_t<Terms...>& problem) {
    using Plan = plan::plan_t<dsl::problem_t<Terms...>, A>;
    ir::Problem p;
    p.algorithm = A;
    p.x_update = Plan::x_update;
    boost::hana::for_each(boost::hana::make_range(boost::hana::size_c<0>, boost::hana::size_c<sizeof...(Terms)>),
                          [&](auto i) {
        const auto& term = problem.terms[i];
        using T = std::remove_cvref_t<decltype(term)>;
        using lt = traits::linear_traits<typename T::argument_type>;
        ir::Term t;
        t.penalty = to_ir(T::kind);
        t.weight = term.weight;
        t.beta = term.beta;
        t.arg_weight = term.arg_weight;
        t.offset = term.offset;
        t.data = term.data;
        t.constant = term.constant;
        t.expr = to_ir(term.arg);
        if constexpr (T::kind == dsl::penalty_kind::diff_fn) t.smooth = term.arg.fn;
        t.norm_bound = lt::norm_bound(term.arg);
        t.text = ir::to_string(t);
        if constexpr (Plan::in_omega[decltype(i)::value]) {
            if constexpr (T::kind == dsl::penalty_kind::sum_squares && lt::is_diagonal) {
                // curvature of α‖β w ⊙ d ⊙ x + c‖² is 2α β² w² d²; terms add up.
                double dmin = lt::diagonal_min_abs(term.arg) * std::abs(term.beta);
                if (!term.arg_weight.empty()) dmin *= traits::abs_range(term.arg_weight).first;
                p.omega_strong_convexity += 2.0 * term.weight * dmin * dmin;
            }
            p.omega.push_back(std::move(t));
        } else {
            p.psi.push_back(std::move(t));
        }
    });
    ir::for_each_node(p, [&](const ir::Node& n) {
        if (n.op == ir::Op::variable) p.variable_shape = n.shape;
    });
    ir::assign_slots(p);
    return p;
}

}  // namespace proxgen::lower
