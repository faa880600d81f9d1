// Facts and numbers of IR expressions for the run-time planner: the facts through plan/facts.hpp's
// combinators (the ones linear_traits uses at compile time), the norm bounds and min |d| from the
// nodes' data.
#include <cmath>

#include "proxgen/error.hpp"
#include "proxgen/plan/planner.hpp"
#include "proxgen/traits/linear_traits.hpp"
#include "proxgen/user_operator.hpp"

namespace proxgen::plan {

bool is_offset(const ir::Node& n) {
    return n.op == ir::Op::sum && n.args.size() == 2 && n.args[1].op == ir::Op::scale && !n.args[1].args.empty() &&
           n.args[1].args[0].op == ir::Op::constant;
}

Root root_of(const ir::Node& n) {
    if (is_offset(n)) return Root::offset;
    if (n.op == ir::Op::scale) return Root::scale;
    if (n.op == ir::Op::mul_elemwise) return Root::mul_elemwise;
    return Root::other;
}

LinearFacts linear_facts(const ir::Node& n) {
    using ir::Op;
    auto arg = [&](std::size_t i) { return linear_facts(n.args[i]); };
    switch (n.op) {
    case Op::variable: return variable_facts();
    case Op::constant: break;  // only inside an offset, which reads its other operand
    case Op::conv: return conv_facts(arg(0), n.boundary);
    case Op::grad: return grad_facts(arg(0), n.periodic, n.ints.empty());
    case Op::mul_elemwise: return mul_elemwise_facts(arg(0));
    case Op::scale: return scale_facts(arg(0));
    case Op::sum: return is_offset(n) ? offset_facts(arg(0)) : sum_facts(arg(0), arg(1));
    case Op::subsample: return subsample_facts(arg(0));
    case Op::crop: return crop_facts(arg(0));
    case Op::pad: return pad_facts(arg(0));
    case Op::transpose: return transpose_facts(arg(0));
    case Op::reshape: return reshape_facts(arg(0));
    case Op::concat: return concat_facts(arg(0), arg(1));
    case Op::uneven_subsample: return uneven_subsample_facts(arg(0));
    case Op::mul_color: return mul_color_facts(arg(0));
    case Op::pxwise_matmul: return pxwise_matmul_facts(arg(0));
    case Op::warp: return warp_facts(arg(0));
    case Op::user: return user_facts(arg(0));
    }
    PROXGEN_INTERNAL_ASSERT(false && "linear_facts of a constant");
    return {};
}

TermFacts term_facts(const ir::Term& t) { return {penalty_facts(t.penalty), linear_facts(t.expr), !t.arg_weight.empty()}; }

double norm_bound(const ir::Node& n) {
    using ir::Op;
    auto arg = [&](std::size_t i) { return norm_bound(n.args[i]); };
    switch (n.op) {
    case Op::variable: return 1.0;
    case Op::constant: break;
    case Op::conv: {
        // ‖k ⊛ x‖ ≤ ‖k‖₁ ‖x‖ (Young's inequality; also max |OTF| ≤ ‖k‖₁); zero padding only drops
        // terms. Replicate reads an edge pixel up to (⌊kw/2⌋+1)(⌊kh/2⌋+1) times for one shift.
        double l1 = 0;
        const float* k = n.image.data();
        for (std::size_t i = 0; i < n.image.size(); ++i) l1 += std::abs(k[i]);
        if (n.boundary == ir::ConvBoundary::replicate)
            l1 *= std::sqrt(double(n.image.width() / 2 + 1) * double(n.image.height() / 2 + 1));
        return l1 * arg(0);
    }
    // each difference operator has norm ≤ 2: ‖∇‖ ≤ √(4 · number of axes)
    case Op::grad: return std::sqrt(4.0 * double(n.ints.empty() ? 2 : n.ints.size())) * arg(0);
    case Op::mul_elemwise: return traits::abs_range(n.image).second * arg(0);
    case Op::scale: return std::abs(n.scalar) * arg(0);
    case Op::sum: return is_offset(n) ? arg(0) : arg(0) + arg(1);
    case Op::subsample:
    case Op::crop:
    case Op::pad:
    case Op::transpose:
    case Op::reshape: return arg(0);
    case Op::concat: return std::hypot(arg(0), arg(1));
    case Op::uneven_subsample:  // √(most reads of one pixel), set when built
    case Op::warp: return n.norm_factor * arg(0);  // √(largest column sum), set when built
    // ‖M‖₂ ≤ ‖M‖_F
    case Op::mul_color: {
        double f = 0;
        for (std::size_t i = 0; i < n.image.size(); ++i) f += double(n.image.data()[i]) * n.image.data()[i];
        return std::sqrt(f) * arg(0);
    }
    case Op::pxwise_matmul: {  // the largest per-pixel ‖A(p)‖_F
        const Image& A = n.image;
        const std::size_t pixels = std::size_t(A.extent(0)) * A.extent(1), entries = std::size_t(A.extent(2)) * A.extent(3);
        double most = 0;
        for (std::size_t p = 0; p < pixels; ++p) {
            double f = 0;
            for (std::size_t k = 0; k < entries; ++k) f += double(A.data()[p + k * pixels]) * A.data()[p + k * pixels];
            most = std::max(most, f);
        }
        return std::sqrt(most) * arg(0);
    }
    case Op::user: return n.user->norm_bound * arg(0);
    }
    PROXGEN_INTERNAL_ASSERT(false && "norm_bound of a constant");
    return 0;
}

double diagonal_min_abs(const ir::Node& n) {
    switch (n.op) {
    case ir::Op::variable: return 1.0;
    case ir::Op::mul_elemwise: return traits::abs_range(n.image).first * diagonal_min_abs(n.args[0]);
    case ir::Op::scale: return std::abs(n.scalar) * diagonal_min_abs(n.args[0]);
    // e ± b has e's diagonal; d₁ + d₂ may cancel anywhere: no useful bound without every pixel
    case ir::Op::sum: return is_offset(n) ? diagonal_min_abs(n.args[0]) : 0.0;
    default: return 0.0;
    }
}

}  // namespace proxgen::plan
