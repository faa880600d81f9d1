// The data folding of the rewrite rules (plan/rules/*.hpp): ONE implementation on IR terms, run by
// the run-time planner for typed and run-time problems alike. The decisions (when a rule applies)
// are the constexpr functions in the rules' headers.
#include "proxgen/ir/ir.hpp"
#include "proxgen/plan/planner.hpp"
#include "proxgen/plan/rules/absorb_offset.hpp"
#include "proxgen/plan/rules/absorb_scale.hpp"
#include "proxgen/plan/rules/absorb_weights.hpp"
#include "proxgen/plan/rules/merge_quadratics.hpp"

namespace proxgen::plan::rules {

namespace {

/// acc + s · (w ⊙ b) as a new image (acc and w may be empty: 0 and 1).
Image axpy(const Image& acc, float s, const Image& w, const Image& b) {
    Image out(b.sizes());
    for (std::size_t i = 0; i < b.size(); ++i)
        out.data()[i] = (acc.empty() ? 0.0f : acc.data()[i]) + s * (w.empty() ? 1.0f : w.data()[i]) * b.data()[i];
    return out;
}

/// a ⊙ b as a new image (a may be empty: 1).
Image product(const Image& a, const Image& b) {
    Image out(b.sizes());
    for (std::size_t i = 0; i < b.size(); ++i) out.data()[i] = (a.empty() ? 1.0f : a.data()[i]) * b.data()[i];
    return out;
}

/// ‖c‖² in float64 (0 for an empty image).
double sq(const Image& c) {
    double s = 0;
    for (std::size_t i = 0; i < c.size(); ++i) s += double(c.data()[i]) * c.data()[i];
    return s;
}

/// Replaces a node by its first operand.
void drop_root(ir::Node& n) {
    ir::Node operand = std::move(n.args[0]);
    n = std::move(operand);
}

}  // namespace

void absorb_offset::apply(ir::Term& t) {
    // e ± b is sum(e, scale(±1, constant b)) (the sum card's offset)
    const ir::Node& signed_b = t.expr.args[1];
    const float sign = signed_b.scalar;
    const Image& b = signed_b.args[0].image;
    const bool grouped = t.penalty->weights_groups();
    t.offset = axpy(t.offset, t.beta * sign, grouped ? Image() : t.arg_weight, b);
    drop_root(t.expr);
}

void absorb_scale::apply(ir::Term& t) {
    t.beta = t.beta * t.expr.scalar;
    drop_root(t.expr);
}

void absorb_weights::apply(ir::Term& t) {
    t.arg_weight = product(t.arg_weight, t.expr.image);
    drop_root(t.expr);
}

void merge_quadratics::merge(ir::Term& into, const ir::Term& t) {
    const ir::Term a = into;
    const ir::Term& b = t;
    const double wa = double(a.weight) * a.beta, wb = double(b.weight) * b.beta;  // α β
    const double A = wa * a.beta + wb * b.beta;                                    // Σ α β²
    into.weight = float(A);
    into.beta = 1.0f;
    into.constant = a.constant + b.constant;
    if (a.offset.empty() && b.offset.empty()) return;
    if (!(A > 0)) {  // both weights 0: the sum is the constant alone
        into.offset = Image();
        into.constant += a.weight * sq(a.offset) + b.weight * sq(b.offset);
        return;
    }
    const Image& shape = a.offset.empty() ? b.offset : a.offset;
    Image c(shape.sizes());
    for (std::size_t i = 0; i < c.size(); ++i) {
        const double ca = a.offset.empty() ? 0.0 : a.offset.data()[i];
        const double cb = b.offset.empty() ? 0.0 : b.offset.data()[i];
        c.data()[i] = float((wa * ca + wb * cb) / A);
    }
    into.offset = c;
    into.constant += a.weight * sq(a.offset) + b.weight * sq(b.offset) - A * sq(c);
}

bool merge_quadratics::same_operator(const ir::Node& a, const ir::Node& b) {
    // data-free operators (the variable and grad) are equal when their structure is
    if (!linear_facts(a).data_free || ir::name(a) != ir::name(b) || a.shape != b.shape || a.ints != b.ints ||
        a.variable != b.variable || a.args.size() != b.args.size())
        return false;
    for (std::size_t i = 0; i < a.args.size(); ++i)
        if (!same_operator(a.args[i], b.args[i])) return false;
    return true;
}

}  // namespace proxgen::plan::rules
