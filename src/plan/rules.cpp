// The data folding of the rewrite rules (plan/rules/*.hpp): ONE implementation on IR terms, run by
// the run-time planner for typed and run-time problems alike. The decisions (when a rule applies)
// are the constexpr functions in the rules' headers.
#include "proxgen/error.hpp"
#include "proxgen/ir/ir.hpp"
#include "proxgen/plan/planner.hpp"
#include "proxgen/plan/rules/absorb_offset.hpp"
#include "proxgen/plan/rules/absorb_scale.hpp"
#include "proxgen/plan/rules/absorb_weights.hpp"
#include "proxgen/plan/rules/merge_quadratics.hpp"

namespace proxgen::plan::rules {

namespace {

// Where a rule's result is an operand unchanged, it shares the operand's storage (without its
// name: it is no longer the named data) instead of copying it: a 17-term problem at 512² copied 17
// MB of masks into fresh pages before its first iteration. Nothing writes a term's images in place.

/// acc + s · (w ⊙ b) (acc and w may be empty: 0 and 1).
Image axpy(const Image& acc, float s, const Image& w, const Image& b) {
    if (acc.empty() && w.empty() && s == 1.0f) return b.named("");
    Image out(b.sizes());
    const std::size_t n = b.size();
    const float *a = acc.empty() ? nullptr : acc.data(), *wd = w.empty() ? nullptr : w.data(), *bd = b.data();
    float* o = out.data();
    for (std::size_t i = 0; i < n; ++i) o[i] = (a ? a[i] : 0.0f) + s * (wd ? wd[i] : 1.0f) * bd[i];
    return out;
}

/// a ⊙ b (a may be empty: 1).
Image product(const Image& a, const Image& b) {
    if (a.empty()) return b.named("");
    Image out(b.sizes());
    const std::size_t n = b.size();
    const float *ad = a.data(), *bd = b.data();
    float* o = out.data();
    for (std::size_t i = 0; i < n; ++i) o[i] = ad[i] * bd[i];
    return out;
}

/// ‖c‖² in float64 (0 for an empty image).
double sq(const Image& c) {
    double s = 0;
    for (std::size_t i = 0; i < c.size(); ++i) s += double(c.data()[i]) * c.data()[i];
    return s;
}

/// ⟨a, b⟩ in float64 (0 when either is empty).
double inner(const Image& a, const Image& b) {
    if (a.empty() || b.empty()) return 0;
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += double(a.data()[i]) * b.data()[i];
    return s;
}

/// d(node data)/d(the tangent's value): 1 per pixel or for the scale factor where the node holds
/// the value by name, else 0.
bool holds(const ir::Node& n, const ir::Term::Tangent& t) { return !t.of.empty() && n.name == t.of; }

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
    const Image w = grouped ? Image() : t.arg_weight;
    if (t.tangent) {
        // c += β s (w ⊙ b): dc += s (dβ w ⊙ b + β dw ⊙ b + β w ⊙ db)
        ir::Term::Tangent& d = *t.tangent;
        const Image dw = grouped ? Image() : d.arg_weight;
        const bool db = holds(signed_b.args[0], d);
        Image dc(b.sizes());
        for (std::size_t i = 0; i < b.size(); ++i) {
            const double wi = w.empty() ? 1.0 : w.data()[i], dwi = dw.empty() ? 0.0 : dw.data()[i];
            const double bi = b.data()[i];
            dc.data()[i] = float((d.offset.empty() ? 0.0 : d.offset.data()[i]) +
                                 sign * (d.beta * wi * bi + t.beta * dwi * bi + (db ? t.beta * wi : 0.0)));
        }
        d.offset = dc;
    }
    t.offset = axpy(t.offset, t.beta * sign, w, b);
    drop_root(t.expr);
}

void absorb_scale::apply(ir::Term& t) {
    if (t.tangent) t.tangent->beta = t.tangent->beta * t.expr.scalar + (holds(t.expr, *t.tangent) ? t.beta : 0.0);
    t.beta = t.beta * t.expr.scalar;
    drop_root(t.expr);
}

void absorb_weights::apply(ir::Term& t) {
    if (t.tangent) {
        // w ← w ⊙ m: dw ← dw ⊙ m + w ⊙ dm
        ir::Term::Tangent& d = *t.tangent;
        const Image& m = t.expr.image;
        const bool dm = holds(t.expr, d);
        if (!d.arg_weight.empty() || dm) {
            Image dw(m.sizes());
            for (std::size_t i = 0; i < m.size(); ++i)
                dw.data()[i] = float((d.arg_weight.empty() ? 0.0 : double(d.arg_weight.data()[i]) * m.data()[i]) +
                                     (dm ? (t.arg_weight.empty() ? 1.0 : t.arg_weight.data()[i]) : 0.0));
            d.arg_weight = dw;
        }
    }
    t.arg_weight = product(t.arg_weight, t.expr.image);
    drop_root(t.expr);
}

namespace {
/// merge_quadratics::merge's values.
void merge_values(ir::Term& into, const ir::Term& t) {
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
}  // namespace

void merge_quadratics::merge(ir::Term& into, const ir::Term& t) {
    const ir::Term before = into;
    merge_values(into, t);
    if (into.tangent) merge_tangent(into, before, t);
}

void merge_quadratics::merge_tangent(ir::Term& into, const ir::Term& a, const ir::Term& b) {
    // the derivatives of merge's formulas, each term's (α, β, c, d) moving with its tangent
    PROXGEN_INTERNAL_ASSERT(a.tangent && b.tangent);
    const ir::Term::Tangent &ta = *a.tangent, &tb = *b.tangent;
    ir::Term::Tangent d;
    d.of = ta.of;
    const double wa = double(a.weight) * a.beta, wb = double(b.weight) * b.beta;
    const double dwa = ta.weight * a.beta + a.weight * ta.beta, dwb = tb.weight * b.beta + b.weight * tb.beta;
    const double A = wa * a.beta + wb * b.beta;
    const double dA = dwa * a.beta + wa * ta.beta + dwb * b.beta + wb * tb.beta;
    d.weight = dA;
    d.beta = 0;  // β = 1 whatever the value
    d.constant = ta.constant + tb.constant + ta.weight * sq(a.offset) + 2.0 * a.weight * inner(a.offset, ta.offset) +
                 tb.weight * sq(b.offset) + 2.0 * b.weight * inner(b.offset, tb.offset);
    if (!into.offset.empty()) {
        // c = (wa ca + wb cb)/A: dc = (dwa ca + wa dca + dwb cb + wb dcb − c dA)/A
        const Image& c = into.offset;
        Image dc(c.sizes());
        auto at = [](const Image& i, std::size_t k) { return i.empty() ? 0.0 : double(i.data()[k]); };
        for (std::size_t k = 0; k < c.size(); ++k)
            dc.data()[k] = float((dwa * at(a.offset, k) + wa * at(ta.offset, k) + dwb * at(b.offset, k) +
                                  wb * at(tb.offset, k) - double(c.data()[k]) * dA) / A);
        d.constant -= dA * sq(c) + 2.0 * A * inner(c, dc);
        d.offset = dc;
    }
    into.tangent = d;
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
