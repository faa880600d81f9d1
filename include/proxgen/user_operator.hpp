// User-defined linear operators — an opt-in header: it includes Halide.h (and the program must
// link Halide::Halide), which the rest of ProxGen's public headers avoid.
//
//   #include <proxgen/user_operator.hpp>
//   auto shift = pg::user_operator("shift_right", [](const Halide::Func& in) {
//       Halide::Func out; Halide::Var x, y;
//       out(x, y) = in(x - 1, y);   // in is 0 outside the image: ProxGen pads it
//       return out;
//   });
//   auto prob = pg::sum_squares(shift(x) - b) + ...;
//
// The forward maps a Func of the operand's rank to a Func of the same rank and size, and must be
// linear. Without an adjoint, ProxGen derives it with Halide's autodiff (propagate_adjoints) and
// computes it over the whole image in parallel (scatters with atomic adds). The adjoint, when
// given, is trusted: tests/test_user_operator.cpp shows how to check it with the dot-product test
// (proxgen/lower/evaluate.hpp). The norm bound feeds PC / L-ADMM step sizes; without one, ProxGen
// estimates ‖K‖ by power iteration on a 64 × 64 (× channels) image, times a safety factor of 1.5.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include <Halide.h>

#include "proxgen/catalogue/ops/user_operator.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/typed/linear.hpp"
#include "proxgen/typed/to_ir.hpp"
#include "proxgen/typed/traits.hpp"

namespace proxgen::ir {

/// A user operator's definition: its card's data and the Halide functions.
struct UserOperator : catalogue::ops::UserOperatorData {
    using Map = std::function<Halide::Func(const Halide::Func&)>;
    Map forward;
    Map adjoint;         // empty: derived by autodiff
    /// The functions read their operand whole (host operators: an extern stage), so the kernels
    /// compute the operand over the whole image before them.
    bool reads_operand_whole = false;
};

}  // namespace proxgen::ir

namespace proxgen::lower {
/// ‖K‖ estimated by power iteration on random data of the given shape (library side).
double estimate_norm(const ir::Node& expr, int iterations = 30);
}  // namespace proxgen::lower

namespace proxgen::dsl {

template <class E>
struct user_t {
    using card = catalogue::ops::user_operator;
    static constexpr int rank = E::rank;
    std::shared_ptr<const ir::UserOperator> op;
    E arg;
    std::vector<int> shape;
};
template <class E> struct is_expression<user_t<E>> : std::true_type {};

}  // namespace proxgen::dsl

namespace proxgen::traits {
// Nothing is known about a user's operator: the conservative facts (CG x-update for ADMM / HQS).
template <class E>
struct linear_traits<dsl::user_t<E>> : unary_traits<E> {
    static constexpr LinearFacts facts = catalogue::ops::user_operator::combine(facts_of<E>);
};
}  // namespace proxgen::traits

namespace proxgen::typed {
template <class E>
ir::Node to_ir(const dsl::user_t<E>& e, TypedVariables& vars) {
    return catalogue::ops::user_operator::make(to_ir(e.arg, vars), e.op);
}
}  // namespace proxgen::typed

namespace proxgen {

/// A linear operator given by its Halide forward (and optionally its adjoint); call it on an
/// expression: op(x), op(conv(k, x)), …
class user_operator {
public:
    user_operator(std::string name, ir::UserOperator::Map forward, ir::UserOperator::Map adjoint = {},
                  double norm_bound = 0) {
        if (!forward) fail("user_operator '{}': the forward function is empty", name);
        if (!(norm_bound >= 0) || !std::isfinite(norm_bound))
            fail("user_operator '{}': the norm bound must be finite and >= 0, got {}", name, norm_bound);
        auto op = std::make_shared<ir::UserOperator>();
        op->name = std::move(name);
        op->id = ir::next_code_id();
        op->forward = std::move(forward);
        op->adjoint = std::move(adjoint);
        op->norm_bound = norm_bound;
        op_ = std::move(op);
    }

    template <dsl::Expression E>
    auto operator()(E arg) const {
        std::vector<int> shape = dsl::shape_of(arg);
        if (op_->norm_bound == 0) {
            // estimated once per definition, on a small image of the operand's rank
            std::vector<int> small = shape;
            small[0] = std::min(small[0], 64);
            small[1] = std::min(small[1], 64);
            ir::Node x = catalogue::node<catalogue::ops::variable>(small);
            x.variable = 0;
            op_->norm_bound = 1.5 * lower::estimate_norm(catalogue::ops::user_operator::make(std::move(x), op_));
        }
        return dsl::user_t<E>{op_, std::move(arg), std::move(shape)};
    }
    const ir::UserOperator& definition() const { return *op_; }

private:
    std::shared_ptr<ir::UserOperator> op_;  // its norm bound is filled on first use
};

}  // namespace proxgen
