// The per-card tier's operators (per_card.hpp): an expression applied node by node; which plans the
// tier runs; Tier::automatic's switch.
#include "per_card.hpp"

#include <atomic>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/catalogue/ops/constant.hpp"
#include "proxgen/catalogue/ops/variable.hpp"
#include "proxgen/catalogue/penalties/sum_squares.hpp"
#include "proxgen/error.hpp"
#include "proxgen/lower/evaluate.hpp"
#include "engine.hpp"

namespace proxgen::detail {

namespace cat = catalogue;

ir::Node stand_in(int index, const std::vector<int>& shape, std::string name) {
    ir::Node v = cat::node<cat::ops::variable>(shape);
    v.variable = index;
    v.name = std::move(name);
    return v;
}

ir::Problem term_alone(const ir::Term& t, const Image& inner) {
    ir::Problem q;
    // Keyed as Pock–Chambolle's whatever the solve's algorithm: its dual step is Condat–Vũ's too (a
    // term alone has no gradient-step terms), and the split and quadratic kernels re-key it as theirs.
    q.algorithm = Algorithm::pock_chambolle;
    ir::Term u = t;
    u.expr = stand_in(0, t.expr.shape, "Kx");
    if (!inner.empty()) {
        // c = β·w ⊙ inner + offset (w for penalties that weigh elements, not groups)
        const bool elementwise_weight = !t.arg_weight.empty() && !t.penalty->weights_groups();
        Image c(t.expr.shape);
        for (std::size_t e = 0; e < c.size(); ++e) {
            const float a = t.beta * (elementwise_weight ? t.arg_weight.data()[e] : 1.0f);
            c.data()[e] = a * inner.data()[e] + (t.offset.empty() ? 0.0f : t.offset.data()[e]);
        }
        u.offset = c;
    }
    q.variables.push_back({"Kx", t.expr.shape});
    q.variable_shape = t.expr.shape;
    q.psi.push_back(std::move(u));
    ir::assign_slots(q);
    return q;
}

PerCardObjective::PerCardObjective(const ir::Problem& p) : p_(p) {
    SharedBuffers shared;
    for (const auto* terms : {&p.omega, &p.psi})
        for (const ir::Term& t : *terms) {
            const PerCardOperator& op = ops_.emplace_back(p, t.expr, shared, PerCardOutputs::read_at_once);
            alone_.push_back(term_alone(t, op.constant()));
        }
}

double PerCardObjective::operator()(const Image& x, double& compile_seconds) {
    const std::vector<Image> xs = ir::split_state(p_, x);
    double f = 0;
    for (std::size_t i = 0; i < ops_.size(); ++i) f += objective_checked(alone_[i], ops_[i].linear(xs), compile_seconds);
    return f;
}

ir::Problem PerCardOperator::alone(const ir::Node& n) {
    ir::Problem q;
    ir::Node m = n;
    for (std::size_t k = 0; k < m.args.size(); ++k) {
        // built directly, not by variable::make: an operand may have any rank (grad's output is one
        // more than its operand's)
        const std::vector<int> shape = m.args[k].shape;
        ir::Node v = cat::node<cat::ops::variable>(shape);
        v.variable = int(k);
        v.name = "operand" + std::to_string(k);
        q.variables.push_back({v.name, shape});
        m.args[k] = std::move(v);
    }
    q.variable_shape = ir::state_shape(q);
    q.psi.push_back(cat::term<cat::penalties::sum_squares>(std::move(m)));
    ir::assign_slots(q);
    return q;
}

PerCardOperator::PerCardOperator(const ir::Problem& p, const ir::Node& expr, SharedBuffers& shared,
                                 PerCardOutputs outputs) {
    std::size_t nodes = 0;
    ir::for_each_node(expr, [&](const ir::Node&) { ++nodes; });
    steps_.reserve(nodes);  // the kernels bind the steps' buffers by address: no reallocation
    add(expr);
    // the variables' stand-ins (replaced by their values at each apply; an adjoint before the first
    // reads their extents only)
    for (const auto& shape : ir::variable_shapes(p)) inputs_.push_back(shared.zeros(shape));
    zeros_.resize(steps_.size());
    int slot = 0;
    for (std::size_t i = 0; i < steps_.size(); ++i) {
        Step& s = steps_[i];
        // the root's back is the y each adjoint_add is given (bound by address until then); the
        // others are written and read within one adjoint_add: scratch
        if (i + 1 < steps_.size()) s.back = shared.scratch(s.shape, slot++);
        if (s.kind == Step::Kind::card)
            s.value = outputs == PerCardOutputs::kept ? Image(s.shape) : shared.scratch(s.shape, slot++);
        if (!s.reads_variable) zeros_[i] = shared.zeros(s.shape);
    }
    for (Step& s : steps_)
        if (s.kind == Step::Kind::card && s.reads_variable) bind(s);
    if (!steps_.back().reads_variable) zero_out_ = shared.zeros(expr.shape);
    // the constant part: the expression with every variable at 0, computed once (each card is
    // linear in its operands: only constant leaves contribute)
    bool has_constant = false;
    for (const Step& s : steps_) has_constant = has_constant || s.kind == Step::Kind::constant;
    if (!has_constant) return;
    std::vector<Image> v(steps_.size());
    for (std::size_t i = 0; i < steps_.size(); ++i) {
        const Step& s = steps_[i];
        if (s.kind == Step::Kind::constant) v[i] = s.value;
        if (s.kind != Step::Kind::card) continue;
        bool any = false;
        for (int o : s.operands) any = any || !v[std::size_t(o)].empty();
        if (!any) continue;
        std::vector<Image> operands;
        for (int o : s.operands) operands.push_back(v[std::size_t(o)].empty() ? Image(steps_[std::size_t(o)].shape)
                                                                              : v[std::size_t(o)]);
        v[i] = lower::term_forward(s.alone, ir::join_state(s.alone, operands), false);
    }
    constant_ = v.back().empty() ? Image(expr.shape) : v.back();
}

int PerCardOperator::add(const ir::Node& n) {
    Step s;
    s.shape = n.shape;
    if (n.is_variable()) {
        s.kind = Step::Kind::variable;
        s.variable = n.variable;
        s.reads_variable = true;
    } else if (cat::is<cat::ops::constant>(n)) {
        s.kind = Step::Kind::constant;
        s.value = n.image;
    } else {
        for (const auto& a : n.args) {
            const int o = add(a);
            s.operands.push_back(o);
            s.reads_variable = s.reads_variable || steps_[std::size_t(o)].reads_variable;
        }
        s.alone = alone(n);
    }
    steps_.push_back(std::move(s));
    return int(steps_.size()) - 1;
}

void PerCardOperator::bind_operands(const Step& s, jit::Call& c) {
    s.data->bind(c);
    for (std::size_t k = 0; k < s.operands.size(); ++k) {
        const std::size_t o = std::size_t(s.operands[k]);
        const Step& in = steps_[o];
        // what the operand's linear part is: a variable's value, a card's output, or 0
        const Image& value = !in.reads_variable                ? zeros_[o]
                             : in.kind == Step::Kind::variable ? inputs_[std::size_t(in.variable)]
                                                               : in.value;
        c.in(jit::state_name("x", int(k)), value);  // (the adjoint reads its extents only)
    }
}

void PerCardOperator::bind(Step& s) {
    s.data = std::make_unique<lower::DataArgs>(s.alone);
    s.forward = jit::Call(lower::term_forward_kernel(s.alone, false));
    bind_operands(s, s.forward);
    s.forward.out(0, s.value);
}

void PerCardOperator::bind_adjoint(Step& s) {
    s.adjoint = jit::Call(lower::term_adjoint_kernel(s.alone));
    bind_operands(s, s.adjoint);
    s.adjoint.in("y", s.back);
    for (std::size_t k = 0; k < s.operands.size(); ++k) s.adjoint.out(int(k), steps_[std::size_t(s.operands[k])].back);
}

const Image& PerCardOperator::linear(const std::vector<Image>& xs) {
    for (std::size_t j = 0; j < inputs_.size(); ++j) inputs_[j] = xs[j];  // (shares xs[j]'s buffer)
    for (Step& s : steps_)
        if (s.kind == Step::Kind::card && s.reads_variable) s.forward.run();
    const Step& root = steps_.back();
    if (!root.reads_variable) return zero_out_;
    return root.kind == Step::Kind::variable ? inputs_[std::size_t(root.variable)] : root.value;
}

void PerCardOperator::adjoint_add(const Image& y, std::vector<Image>& out) {
    // bound at the first use: an operator that is only applied (the objective's) never obtains
    // its cards' adjoint kernels
    if (!adjoint_bound_) {
        for (Step& s : steps_)
            if (s.kind == Step::Kind::card && s.reads_variable) bind_adjoint(s);
        adjoint_bound_ = true;
    }
    steps_.back().back = y;  // (shares y's buffer; the bound buffer object stays)
    for (std::size_t i = steps_.size(); i-- > 0;) {
        Step& s = steps_[i];
        if (!s.reads_variable) continue;
        if (s.kind == Step::Kind::card) {
            s.adjoint.run();
            continue;
        }
        Image& o = out[std::size_t(s.variable)];
        const float* b = s.back.data();
        float* d = o.data();
        jit::in_pieces(long(o.size()), long(o.size()), [&](long first, long last) {
            for (long e = first; e < last; ++e) d[e] += b[e];
        });
    }
}

namespace {
/// Why a term's expression cannot be applied node by node ("" when it can): every leaf must be a
/// variable or a constant image.
std::string unsupported_leaf(const ir::Term& t) {
    std::string why;
    ir::for_each_node(t.expr, [&](const ir::Node& n) {
        if (why.empty() && n.args.empty() && !n.is_variable() && !cat::is<cat::ops::constant>(n))
            why = fmt::format("{} holds a leaf that is neither a variable nor a constant", t.text);
    });
    return why;
}
}  // namespace

std::string per_card_unsupported(const ir::Problem& p) {
    const bool quadratic = p.algorithm == Algorithm::admm || p.algorithm == Algorithm::hqs;
    if (p.x_update == plan::XUpdate::pixel_block || (p.x_update == plan::XUpdate::cg && !quadratic))
        return fmt::format("its x-update ({}) has no per-card form yet (closed-form, elementwise, FFT and DCT ones "
                           "have, and ADMM's and HQS's CG)",
                           plan::name(p.x_update));
    if (quadratic)
        for (const auto& t : p.omega)
            if (!catalogue::card_of(t).facts().quadratic)
                return fmt::format("its x-update absorbs {}, which is not quadratic", t.text);
    for (const auto& t : p.psi)
        if (std::string why = unsupported_leaf(t); !why.empty()) return why;
    return {};
}

bool objective_runs_per_card(const ir::Problem& p) {
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms)
            if (!unsupported_leaf(t).empty()) return false;
    return true;
}

namespace {
std::atomic<int> forced_switch{0};
}  // namespace

void force_tier_switch(int iteration) { forced_switch = iteration; }
int forced_tier_switch() { return forced_switch.load(); }

bool fused_from_the_start(CacheVerdict& verdict, int switch_at) {
    constexpr auto grace = std::chrono::milliseconds(30);
    return switch_at == 0 && verdict.decided().wait_for(grace) == std::future_status::ready && verdict.decided().get();
}

Handoff::Handoff(const ir::Problem& p, const Options& opt, const Image& x, std::vector<Image> duals) : options(opt) {
    warm.x = x.copy();
    warm.duals = std::move(duals);
    warm.signature = ir::signature(p);
    warm.algorithm = p.algorithm;
    options.x0 = Image();
    options.x0_by_name.clear();
}

}  // namespace proxgen::detail
