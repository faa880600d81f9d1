#include "engine.hpp"
#include "per_card.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <new>
#include <numeric>
#include <optional>
#include <system_error>
#include <fmt/ranges.h>

#include "proxgen/algorithms/hqs.hpp"
#include "algorithm_rows.hpp"
#include "../check/inputs.hpp"
#include "../lower/card_lowering.hpp"
#include "proxgen/catalogue/card.hpp"
#include "proxgen/error.hpp"
#include "proxgen/plan/planner.hpp"
#include "proxgen/typed/solve.hpp"

namespace proxgen {

const char* name(Status s) {
    switch (s) {
    case Status::converged: return "converged";
    case Status::max_iterations: return "max_iterations";
    case Status::stopped_by_callback: return "stopped_by_callback";
    case Status::interrupted: return "interrupted";
    case Status::likely_infeasible: return "likely_infeasible";
    case Status::unbounded: return "unbounded";
    case Status::failed: return "failed";
    }
    return "?";
}

namespace detail {

using Clock = std::chrono::steady_clock;

double squared_norm2(const Image& a) {
    double s = 0;
    const float* d = a.data();
    for (std::size_t i = 0; i < a.size(); ++i) s += double(d[i]) * d[i];
    return s;
}

double norm2(const Image& a) { return std::sqrt(squared_norm2(a)); }

double norm2_diff(const Image& a, const Image& b) {
    PROXGEN_INTERNAL_ASSERT(a.size() == b.size());
    double s = 0;
    const float *p = a.data(), *q = b.data();
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = double(p[i]) - q[i];
        s += d * d;
    }
    return std::sqrt(s);
}

const std::vector<double>* warm_steps(const ir::Problem& p, const Result* warm, std::size_t n) {
    if (!warm || warm->algorithm != p.algorithm || warm->steps.size() != n || warm->signature != ir::signature(p))
        return nullptr;
    return &warm->steps;
}

namespace {
/// The state from Options::x0_by_name: each named variable's image in its place, 0 elsewhere.
Image state_from_names(const ir::Problem& p, const std::map<std::string, Image>& named) {
    std::vector<std::string> names;
    for (const auto& v : p.variables) names.push_back(v.name);
    std::vector<Image> values;
    for (const auto& v : p.variables) values.emplace_back(v.shape);
    for (const auto& [name, image] : named) {
        const auto at = std::find(names.begin(), names.end(), name);
        if (at == names.end())
            fail("Options: x0_by_name names '{}', which is no variable of the problem (its variables: {})", name,
                 fmt::join(names, ", "));
        const auto j = std::size_t(at - names.begin());
        if (image.sizes() != p.variables[j].shape)
            fail("Options: x0_by_name['{}'] is {} but the variable is {}", name, image.shape_string(),
                 shape_string(p.variables[j].shape));
        values[j] = image;
    }
    return values.size() == 1 ? values.front().copy() : ir::join_state(p, values);
}
}  // namespace

Image initial_x(const ir::Problem& p, const Options& opt, const Result* warm) {
    if (!opt.x0_by_name.empty()) return state_from_names(p, opt.x0_by_name);
    const Image* from = nullptr;
    if (!opt.x0.empty()) from = &opt.x0;
    else if (warm && !warm->x_iterate.empty()) from = &warm->x_iterate;
    else if (warm && !warm->x.empty()) from = &warm->x;
    if (!from) return Image(p.variable_shape);
    if (from->sizes() != p.variable_shape) {
        if (from == &opt.x0 && p.variables.size() > 1)
            fail("Options: x0 is {} but this problem's {} variables stack to {} values ({}, one after another: what "
                 "Result::x holds); or give each variable's start by name with Options::x0_by_name",
                 from->shape_string(), p.variables.size(), shape_string(p.variable_shape), [&] {
                     std::vector<std::string> v;
                     for (const auto& var : p.variables) v.push_back(var.name + " " + shape_string(var.shape));
                     return fmt::format("{}", fmt::join(v, ", "));
                 }());
        fail("warm start: x0 is {} but the variable is {}", from->shape_string(), shape_string(p.variable_shape));
    }
    check::finite(*from, from == &opt.x0 ? "Options: x0" : "warm start: the earlier result's x");
    return from->copy();
}

std::vector<std::vector<int>> psi_shapes(const ir::Problem& p) {
    std::vector<std::vector<int>> s;
    for (const auto& t : p.psi) s.push_back(t.expr.shape);
    return s;
}

std::vector<std::vector<const ir::Term*>> coupled_blocks(const ir::Problem& p, bool with_omega) {
    // union-find over the variables; a term joins the variables it reads
    std::vector<int> parent(std::max<std::size_t>(p.variables.size(), 1));
    std::iota(parent.begin(), parent.end(), 0);
    auto root = [&](int v) {
        while (parent[std::size_t(v)] != v) v = parent[std::size_t(v)] = parent[std::size_t(parent[std::size_t(v)])];
        return v;
    };
    std::vector<std::pair<const ir::Term*, std::vector<int>>> terms;
    for (const auto* list : {&p.omega, &p.psi})
        if (list == &p.psi || with_omega)
            for (const auto& t : *list) terms.emplace_back(&t, ir::variables_of(t.expr));
    for (const auto& [t, reads] : terms)
        for (std::size_t k = 1; k < reads.size(); ++k) parent[std::size_t(root(reads[k]))] = root(reads[0]);
    std::map<int, std::vector<const ir::Term*>> by_root;  // ordered by variable; a constant term alone
    int alone = 0;
    for (const auto& [t, reads] : terms) by_root[reads.empty() ? --alone : root(reads[0])].push_back(t);
    std::vector<std::vector<const ir::Term*>> blocks;
    for (auto& [r, group] : by_root) blocks.push_back(std::move(group));
    return blocks;
}

double curvature_scale(const ir::Problem& p) {
    double worst = 0;  // Hessians add up within a coupled group, not across groups
    for (const auto& block : coupled_blocks(p, true)) {
        double sum = 0;
        for (const ir::Term* t : block) {
            const double scale = double(t->weight) * t->beta * t->beta * t->norm_bound * t->norm_bound;
            sum += scale * catalogue::card_of(*t).curvature(*t);
        }
        worst = std::max(worst, sum);
    }
    return worst;
}

double smooth_lipschitz(const ir::Problem& p) {
    double sum = 0;  // (a bound: the terms' Hessians add up, their norms at most too)
    for (const ir::Term* t : plan::gradient_terms(p))
        sum += double(t->weight) * t->beta * t->beta * t->norm_bound * t->norm_bound *
               catalogue::card_of(*t).curvature(*t);
    return sum;
}

double stacked_norm_bound(const ir::Problem& p) {
    if (p.psi_norm > 0) return p.psi_norm;
    double worst = 0;  // the largest coupled group's √Σ‖K_i‖²
    for (const auto& block : coupled_blocks(p, false)) {
        double s = 0;
        for (const ir::Term* t : block) s += t->norm_bound * t->norm_bound;
        worst = std::max(worst, s);
    }
    return std::sqrt(worst);
}

std::size_t psi_elements(const ir::Problem& p) {
    std::size_t m = 0;
    for (const auto& t : p.psi) {
        std::size_t e = 1;
        for (int s : t.expr.shape) e *= std::size_t(s);
        m += e;
    }
    return m;
}

// ---- monitor ----------------------------------------------------------------------------------

Monitor::Monitor(const ir::Problem& p, const Options& opt, Result& r)
    : problem_(p), opt_(opt), result_(r), track_(opt.verbose || opt.track_objective),
      check_constraints_(std::any_of(p.psi.begin(), p.psi.end(), unprojected_constraint)),
      may_be_infeasible_(std::any_of(p.psi.begin(), p.psi.end(), restricts_domain) ||
                         std::any_of(p.omega.begin(), p.omega.end(), restricts_domain)),
      start_(Clock::now()) {
    if (opt.verbose) {
        fmt::print("{}", describe_ir(p));
        fmt::print("{:>6} {:>14} {:>11} {:>11} {:>11} {:>11} {:>9}\n", "iter", "objective", "r_primal",
                   "eps_primal", "r_dual", "eps_dual", "time[s]");
    }
}

// With nothing split (Ψ empty) the x-update alone solves the problem: check at once, so that a
// problem it solves exactly stops after one iteration.
bool Monitor::should_check(int it) const {
    return it % opt_.check_every == 0 || it == opt_.max_iters || (it == 1 && problem_.psi.empty());
}

double Monitor::objective_at(const Image& x) {
    if (runs_per_card(problem_, opt_.tier)) {
        if (!per_card_objective_) per_card_objective_ = std::make_shared<PerCardObjective>(problem_);
        double compile_s = 0;
        const double f = (*per_card_objective_)(x, compile_s);
        count_compilation(compile_s);
        return f;
    }
    double compile_s = 0;
    const double f = objective_checked(problem_, x, compile_s);  // the solve validated its problem
    count_compilation(compile_s);
    return f;
}

void Monitor::count_compilation(double seconds) {
    // the iterations' clock started before this compilation: move it on by as much
    start_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    result_.compile_seconds += seconds;
}

bool Monitor::record(int it, const algorithms::Residuals& r, const Image& x, const char* other_step) {
    const double r_pri = r.primal, r_dual = r.dual;
    HistoryEntry h{it, std::numeric_limits<double>::quiet_NaN(), r_pri, r_dual, r.eps_primal, r.eps_dual};
    auto x_finite = [&] {
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!std::isfinite(x.data()[i])) return false;
        return true;
    };
    auto diverged = [&](const char* step) {
        fail("{}: diverged at iteration {}: {} produced non-finite values (primal residual {}, dual residual {}); "
             "reduce the step sizes or check the problem's scaling",
             name(problem_.algorithm), it, step, r_pri, r_dual);
    };
    if (!std::isfinite(r_pri) || !std::isfinite(r_dual)) diverged(x_finite() ? other_step : "the x-update");
    bool converged = r.met(opt_.eps_abs, opt_.eps_rel);
    // With nothing split the residuals never see x (ADMM, L-ADMM), and no x is reported converged
    // unchecked: a non-finite x is divergence there too.
    if ((converged || problem_.psi.empty()) && !x_finite()) diverged("the x-update");
    // The objective of what a solve stopped here would return: x projected onto its own
    // constraints (split ones hold for x only up to the primal residual, and a miss counts as
    // +inf). Computed once, for the tracked history and for the constraint check below.
    std::optional<double> returned_objective;
    auto objective_returned = [&] {
        if (!returned_objective) {
            double compile_s = 0;
            returned_objective = objective_at(feasible_copy(problem_, x, compile_s));
            count_compilation(compile_s);
        }
        return *returned_objective;
    };
    if (track_) h.objective = objective_returned();
    // A constraint on an operator's output has no feasible copy: residuals within tolerance do not
    // make x satisfy it, so converged means the returned x satisfies it too.
    violated_at_tolerance_ = false;
    if (converged && check_constraints_) {
        violated_at_tolerance_ = !std::isfinite(objective_returned());
        converged = !violated_at_tolerance_;
    }
    last_x_ = &x;
    result_.history.push_back(h);
    result_.primal_residual = r_pri;
    result_.dual_residual = r_dual;
    last_ = IterationInfo{it, r_pri, r_dual, r.eps_primal, r.eps_dual, h.objective};
    if (opt_.verbose)
        fmt::print("{:>6} {:>14.6f} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e} {:>9.3f}\n", h.iteration, h.objective, r_pri,
                   r.eps_primal, r_dual, r.eps_dual, std::chrono::duration<double>(Clock::now() - start_).count());
    return converged;
}

double Monitor::returned_objective(const Image& x) {
    if (track_ && last_x_ == &x && std::isfinite(last_.objective)) return last_.objective;
    double compile_s = 0;
    const Image feasible = feasible_copy(problem_, x, compile_s);
    count_compilation(compile_s);
    return objective_at(feasible);
}

bool Monitor::unbounded_along(const Image& x, const Image& step, int it) {
    if (!(opt_.eps_abs > 0 || opt_.eps_rel > 0)) return false;
    std::array<double, 3> f{};
    const bool falls = algorithms::unbounded_along(norm2(x), norm2(step), [&](double t) {
        if (t == 0) return objective_at(x);
        Image y(x.sizes());
        for (std::size_t i = 0; i < x.size(); ++i) y.data()[i] = float(x.data()[i] + t * step.data()[i]);
        return objective_at(y);
    }, f);
    if (!falls) return false;
    result_.status = Status::unbounded;
    result_.message = fmt::format(
        "the problem looks unbounded: at iteration {} the objective {:.6g} falls to {:.6g} and {:.6g} along the "
        "direction of the last iterations, 100 and 1000 times max(1, ||x||) out (||x|| {:.4g}); the objective has no "
        "minimum (is a data term, a constraint or a regularizer that bounds x missing?)",
        it, f[0], f[1], f[2], norm2(x));
    return true;
}

bool Monitor::likely_infeasible() {
    // Measured on box(x, -2, -1) + nonneg(x) with every algorithm: one residual settles at a
    // constant (the distance between the constraint sets, seen through the splitting) while the
    // other is exactly or nearly 0, from the first checks on. A feasible problem's residuals keep
    // falling, or both stall near their tolerances. Stop after 20 checks without a 1 % change.
    constexpr int kChecks = 20;
    if (!(opt_.eps_abs > 0 || opt_.eps_rel > 0) || result_.history.empty()) return false;
    const HistoryEntry& h = result_.history.back();
    const bool primal_stuck = h.primal_residual > 100 * h.eps_primal && h.dual_residual <= h.eps_dual;
    const bool dual_stuck = h.dual_residual > 100 * h.eps_dual && h.primal_residual <= h.eps_primal;
    const double r = primal_stuck ? h.primal_residual : dual_stuck ? h.dual_residual : 0;
    if (r == 0 || std::abs(r - stall_reference_) > 0.01 * stall_reference_) {
        stalled_checks_ = 0;
        stall_reference_ = r;
        return false;
    }
    // where the stall began: an unbounded problem stalls the same way, but its x runs away while
    // the objective falls (a copy once per stall, which a healthy solve rarely enters)
    if (++stalled_checks_ == 1 && last_x_) stall_x_ = last_x_->copy();
    if (stalled_checks_ < kChecks) return false;
    if (last_x_ && !stall_x_.empty()) {
        const double n0 = norm2(stall_x_), n1 = norm2(*last_x_);
        const double f0 = objective_at(stall_x_), f1 = objective_at(*last_x_);
        // falling by more than rounding while x grew by more than 1 %: no minimum to reach
        if (std::isfinite(f0) && f1 < f0 - 1e-6 * std::max(1.0, std::abs(f0)) && n1 > 1.01 * n0) {
            result_.status = Status::unbounded;
            result_.message = fmt::format(
                "the problem looks unbounded: over the last {} checks (to iteration {}) the objective fell from "
                "{:.6g} to {:.6g} while ||x|| grew from {:.4g} to {:.4g} and the {} residual stayed at {:.4g}; the "
                "objective has no minimum (is a data term, a constraint or a regularizer that bounds x missing?)",
                kChecks, h.iteration, f0, f1, n0, n1, primal_stuck ? "primal" : "dual", r);
            return true;
        }
    }
    if (!may_be_infeasible_) {
        // every term is finite everywhere, so the problem has feasible points: the stall is slow
        // progress (a badly conditioned problem), not infeasibility; watch the next stall for
        // an unbounded one
        stalled_checks_ = 0;
        return false;
    }
    result_.status = Status::likely_infeasible;
    result_.message = fmt::format(
        "likely infeasible: after {} iterations the {} residual has stayed at {:.4g} ({:.3g}x its tolerance) for {} "
        "checks while the {} residual is within tolerance; the constraints (or the domains of the penalties) "
        "probably have no point in common",
        h.iteration, primal_stuck ? "primal" : "dual", r, r / (primal_stuck ? h.eps_primal : h.eps_dual), kChecks,
        primal_stuck ? "dual" : "primal");
    return true;
}

bool Monitor::after_iteration(int it) {
    if (opt_.stop && opt_.stop->load(std::memory_order_relaxed)) {
        interrupted_ = true;
        return false;
    }
    if (!opt_.callback) return true;
    IterationInfo info = last_.iteration == it ? last_ : IterationInfo{it};
    return opt_.callback(info);
}

void Monitor::finish(int it, bool converged, bool stopped) {
    result_.iterations = it;
    result_.converged = converged;
    if (result_.status != Status::likely_infeasible && result_.status != Status::unbounded)
        result_.status = converged  ? Status::converged
                         : !stopped ? Status::max_iterations
                         : interrupted_ ? Status::interrupted
                                        : Status::stopped_by_callback;
    if (result_.status == Status::max_iterations && violated_at_tolerance_ && result_.message.empty()) {
        std::vector<std::string> constraints;
        for (const auto& t : problem_.psi)
            if (unprojected_constraint(t)) constraints.push_back(t.text);
        result_.message = fmt::format(
            "not converged: the residuals met their tolerances, but x still violates {} by more than a relative "
            "1e-4 (the objective is +inf there); more iterations or smaller tolerances reach it",
            fmt::join(constraints, ", "));
    }
    result_.solve_seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    result_.algorithm = problem_.algorithm;
    result_.signature = ir::signature(problem_);
    if (opt_.verbose) {
        fmt::print("{} after {} iterations, {:.3f} s ({:.3f} ms/iteration); JIT compilation apart: {:.3f} s\n",
                   name(result_.status), it, result_.solve_seconds, it ? 1e3 * result_.solve_seconds / it : 0.0,
                   result_.compile_seconds);
        if (!result_.message.empty()) fmt::print("{}\n", result_.message);
    }
}

// ---- objective --------------------------------------------------------------------------------

TermValues::TermValues(const ir::Problem& p) : StatePipeline(p) {
    const lower::State xin = x.lowered();
    lower::Lowerer L(p, params, xin);
    std::vector<Halide::Func> outs;
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) {
            lower::Stages st;
            const lower::ProxSpec spec = L.prox_spec(t, xin, st);
            const Halide::Func arg = L.term_argument(t, spec, xin, st);
            const int r = catalogue::card_of(t).summand_rank(int(t.expr.shape.size()));
            Halide::Func v("term_summand");
            lower::Back b{&L, st};
            v(lower::args(r)) = lower::lowering(*t.penalty).summand(b, spec, arg, L.extents(t.expr));
            lower::schedule_output(v, r, st);
            outs.push_back(v);
        }
    pipeline = Halide::Pipeline(outs);
}

double objective_ir(const ir::Problem& p, const Image& x) {
    double compile_s = 0;
    return objective_ir(p, x, compile_s);
}

namespace {
void check_objective_input(const ir::Problem& problem, const Image& x) {
    ir::validate(problem);
    if (x.sizes() != problem.variable_shape)
        fail("objective: x is {} but the variable is {}", x.shape_string(), shape_string(problem.variable_shape));
}
}  // namespace

// A value asked for once would compile a kernel of the problem's whole structure for one call
// (0.3-1 s, once per structure); the kernels of its cards are in the kernel pack or shared with
// every problem that holds the same cards. A solve that tracks its objective at every check keeps
// the structure's kernel (Monitor::objective_at): one call each check, per card about 2x slower.
double objective_once(const ir::Problem& p, const Image& x) {
    check_objective_input(p, x);
    double compile_s = 0;
    if (objective_runs_per_card(p)) return PerCardObjective(p)(x, compile_s);
    return objective_checked(p, x, compile_s);
}

namespace {
/// The terms of p as a problem that does not depend on the plan's algorithm or on which terms it
/// split: every term in Ψ, in the order of their signatures. The objective's kernel then serves
/// every algorithm and tier that evaluates a problem (a problem solved by several algorithms, or
/// `automatic`'s probes, compile one objective, not one each). order[i]: the position in q.psi of
/// p's i-th term (Ω then Ψ).
ir::Problem objective_form(const ir::Problem& p, std::vector<std::size_t>& order) {
    std::vector<const ir::Term*> terms;
    for (const auto* ts : {&p.omega, &p.psi})
        for (const auto& t : *ts) terms.push_back(&t);
    std::vector<std::string> signatures;
    for (const ir::Term* t : terms) signatures.push_back(ir::signature(*t));
    std::vector<std::size_t> sorted(terms.size());
    std::iota(sorted.begin(), sorted.end(), std::size_t(0));
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](std::size_t a, std::size_t b) { return signatures[a] < signatures[b]; });
    ir::Problem q;
    q.variables = p.variables;
    q.variable_shape = p.variable_shape;
    order.assign(terms.size(), 0);
    for (std::size_t k = 0; k < sorted.size(); ++k) {
        order[sorted[k]] = k;
        q.psi.push_back(*terms[sorted[k]]);
    }
    ir::assign_slots(q);
    return q;
}
}  // namespace

double objective_ir(const ir::Problem& problem, const Image& x, double& compile_s) {
    check_objective_input(problem, x);
    return objective_checked(problem, x, compile_s);
}

double objective_checked(const ir::Problem& problem, const Image& x, double& compile_s) {
    PROXGEN_INTERNAL_ASSERT(x.sizes() == problem.variable_shape);
    std::vector<std::size_t> order;
    const ir::Problem p = objective_form(problem, order);
    auto values_kernel = cached_as<jit::Kernel>("objective:" + ir::signature(p), [&] {
        LazyPipelines<TermValues> tv(p);
        return kernel_for(p, "objective", tv.source(&TermValues::pipeline));
    }, compile_s);
    jit::Call call(values_kernel);
    const lower::DataArgs data(p);
    data.bind(call);
    call.in_state("x", x, ir::variable_shapes(p));
    // each term's summand over the first summand_rank axes of its argument
    std::vector<Halide::Runtime::Buffer<double>> summands;
    for (const auto& t : p.psi) {
        const int r = catalogue::card_of(t).summand_rank(int(t.expr.shape.size()));
        summands.emplace_back(std::vector<int>(t.expr.shape.begin(), t.expr.shape.begin() + r));
    }
    for (std::size_t i = 0; i < summands.size(); ++i) call.out(int(i), summands[i].raw_buffer());
    call.run();
    // summed in the problem's own order (Ω then Ψ), as before the terms were sorted
    double f = 0;
    for (const std::size_t k : order) {
        const ir::Term& term = p.psi[k];
        const Halide::Runtime::Buffer<double>& s = summands[k];
        const std::optional<double> host = catalogue::card_of(term).host_value(term, [&] {
            Image argument(term.expr.shape);  // a host function's summand is its float32 argument
            std::copy(s.data(), s.data() + s.number_of_elements(), argument.data());
            return argument;
        });
        double value = 0;
        if (host) value = *host;
        else
            for (std::size_t e = 0, n = s.number_of_elements(); e < n; ++e) value += s.data()[e];
        f += double(term.weight) * value + term.constant;
    }
    return f;
}

// ---- feasible copy ----------------------------------------------------------------------------

FeasibleCopy::FeasibleCopy(const ir::Problem& p) : StatePipeline(p) {
    const lower::State xin = x.lowered();
    lower::Lowerer L(p, params, xin);
    lower::Stages st;
    const std::vector<Halide::Func> outs = lower::feasible_state(L, xin, st);
    std::vector<int> ranks;
    for (const auto& v : xin) ranks.push_back(v.rank());
    lower::schedule_outputs(outs, ranks, st);
    pipeline = Halide::Pipeline(outs);
}

namespace {
/// p's constraints on its variables alone (what the feasible copy reads), so that the kernel is
/// shared by every structure with those constraints whatever its other terms.
ir::Problem constraints_alone(const ir::Problem& p) {
    ir::Problem q;
    q.variables = p.variables;
    q.variable_shape = p.variable_shape;
    for (const ir::Term& t : p.omega)
        if (lower::projects_onto(t)) q.omega.push_back(t);
    for (const ir::Term& t : p.psi)
        if (lower::projects_onto(t)) q.psi.push_back(t);
    ir::assign_slots(q);
    return q;
}
}  // namespace

Image feasible_copy(const ir::Problem& problem, const Image& x, double& compile_s) {
    if (!lower::has_feasible_copy(problem)) return x;
    const ir::Problem p = constraints_alone(problem);
    auto kernel = cached_as<jit::Kernel>("feasible:" + ir::signature(p), [&] {
        LazyPipelines<FeasibleCopy> fc(p);
        return kernel_for(p, "feasible", fc.source(&FeasibleCopy::pipeline));
    }, compile_s);
    const auto shapes = ir::variable_shapes(p);
    Image out(x.sizes());
    jit::Call call(kernel);
    const lower::DataArgs data(p);
    data.bind(call);
    call.in_state("x", x, shapes);
    call.out_state(0, out, shapes);
    call.run();
    return out;
}

bool unprojected_constraint(const ir::Term& t) {
    return catalogue::card_of(t).facts().indicator && !lower::projects_onto(t);
}

bool restricts_domain(const ir::Term& t) { return !catalogue::card_of(t).facts().finite_everywhere; }

// ---- describe / dispatch ----------------------------------------------------------------------

std::string describe_ir(const ir::Problem& planned) {
    const NormEstimates est = estimate_norms(planned);
    ir::Problem p = est.problem;
    p.psi_norm = est.stacked;
    const Algorithm a = p.algorithm;
    std::string s = fmt::format("ProxGen plan ({}), variable {}\n", name(a), shape_string(p.variable_shape));
    if (p.variables.size() > 1) {
        std::vector<std::string> vars;
        for (const auto& v : p.variables) vars.push_back(fmt::format("{} {}", v.name, shape_string(v.shape)));
        s = fmt::format("ProxGen plan ({}), {} variables: {}\n", name(a), p.variables.size(), fmt::join(vars, ", "));
        s += "  variables stacked into one x; the x-update by blocks:\n";
        auto texts = [](const std::vector<const ir::Term*>& ts) {
            std::vector<std::string> out;
            for (const ir::Term* t : ts) out.push_back(t->text);
            return out.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(out, ", "));
        };
        std::vector<const ir::Term*> coupled_omega, coupled_psi;
        for (const auto& t : p.omega)
            if (ir::variables_of(t.expr).size() > 1) coupled_omega.push_back(&t);
        for (const auto& t : p.psi)
            if (ir::variables_of(t.expr).size() > 1) coupled_psi.push_back(&t);
        for (std::size_t j = 0; j < p.variables.size(); ++j) {
            std::vector<const ir::Term*> own;
            for (const auto& t : p.omega)
                if (ir::variables_of(t.expr) == std::vector<int>{int(j)}) own.push_back(&t);
            s += fmt::format("    {} ({} x-update): absorbs {}\n", p.variables[j].name,
                             plan::name(ir::block_update(p, int(j))), texts(own));
        }
        if (!coupled_omega.empty())
            s += fmt::format("    coupling the blocks {}: {}\n",
                             plan::gradient_steps(a) ? "through the gradient step"
                                                     : "in the x-update (one joint solve)",
                             texts(coupled_omega));
        if (!coupled_psi.empty()) s += fmt::format("    coupling terms split: {}\n", texts(coupled_psi));
    }
    s += fmt::format("  x-update: {}\n", x_update_description(p));
    s += "  Omega (absorbed by the x-update):\n";
    if (p.omega.empty()) s += "    (none: the x-update is the identity)\n";
    for (const auto& t : p.omega)
        s += plan::gradient_step(p, t) ? fmt::format("    {}   gradient step, ||A|| <= {:.4g}\n", t.text, t.norm_bound)
                                       : fmt::format("    {}\n", t.text);
    s += "  Psi (split z_i = K_i x, proxed):\n";
    if (p.psi.empty()) s += "    (none)\n";
    for (std::size_t i = 0; i < p.psi.size(); ++i)
        s += fmt::format("    {}   ||K|| {} {:.4g}\n", p.psi[i].text,
                         est.estimated[i] ? "~ (estimated on the data)" : "<=", p.psi[i].norm_bound);
    s += fmt::format("  ||K|| (stacked Psi operators): {} {:.4g}\n", est.stacked_estimated ? "~ (estimated on the data)" : "<=",
                     stacked_norm_bound(p));
    return s + algorithm_row(a).describe_steps(p, Options{});
}

std::string x_update_description(const ir::Problem& p) {
    switch (p.x_update) {
    case plan::XUpdate::closed_form_prox:
        return "closed-form prox of Omega per pixel (diagonal quadratics and interval constraints)";
    case plan::XUpdate::elementwise: return "elementwise solve (the Gram matrix is diagonal)";
    case plan::XUpdate::fft:
        return plan::linearized(p.algorithm)
                   ? "FFT solve of the Omega quadratics' prox (circular conv and periodic grad are diagonal in the DFT)"
                   : "FFT solve (every operator is diagonal in the DFT: circular conv, periodic grad)";
    case plan::XUpdate::dct:
        return plan::linearized(p.algorithm)
                   ? "DCT solve of the Omega quadratics' prox (exact: Neumann grad is diagonal in the DCT-II)"
                   : "DCT solve (exact: every operator is a multiple of the identity or a Neumann grad, which "
                     "the DCT-II diagonalizes)";
    case plan::XUpdate::cg:
        return "conjugate gradient, warm-started (no single basis diagonalizes every operator)";
    case plan::XUpdate::pixel_block:
        return "per-pixel block solve (the variables are coupled pixel by pixel: one small symmetric system "
               "per pixel, solved in closed form)";
    }
    return "?";
}

Result solve_ir(const ir::Problem& planned, const Options& opt, const Result* warm) {
    check_options(opt);
    ir::validate(planned);
    // memory that is not there is an error naming the variable whose solve needed it
    const std::string var = planned.variables.empty() ? std::string("x") : planned.variables.front().name;
    double elements = 1;
    for (int e : planned.variable_shape) elements *= e;
    const std::string solving = fmt::format("solving for variable '{}' ({}, {:.0f} bytes per float32 copy)", var,
                                            shape_string(planned.variable_shape), 4 * elements);
    if (opt.tier == Tier::per_card)
        if (const std::string why = per_card_unsupported(planned); !why.empty())
            fail("the per-card tier cannot run this plan: {}", why);
    try {
        const bool per_card = runs_per_card(planned, opt.tier);
        // Tier::automatic starts a structure it has no fused kernels for at once: on the planner's
        // bounds where its tight norms are still to be estimated (beside the run)
        std::optional<QuickStart> quick;
        if (opt.tier == Tier::automatic && per_card) {
            quick.emplace();
            if (starts_on_bounds(planned)) try {
                    quick->norms.emplace(planned, quick->head);
                } catch (const std::system_error&) {  // no thread: the estimates first, as in the other tiers
                }
        }
        // A small solve runs its own kernels serially (threads it starts keep the pool). Not before
        // the quick start's choice: SerialKernels from the caller means a batch member, which starts
        // no thread of its own.
        std::optional<jit::SerialKernels> small;
        if (jit::small_enough_to_run_serially(elements)) small.emplace();
        const ir::Problem p =
            quick && quick->norms ? with_planner_bounds(planned) : with_norm_bounds(planned, per_card);
        // The plan was made for one algorithm (its Ω / Ψ split and x-update depend on it): that one
        // runs. opt.algorithm is what a front end plans with, and is not read again here.
        Result r = algorithm_row(p.algorithm).solve(p, opt, warm, quick ? &*quick : nullptr);
        // A split constraint holds for the algorithm's x only up to the primal residual (and the
        // objective counts any miss as +inf): return its projection, and keep the iterate for warm
        // starts.
        Image feasible = feasible_copy(p, r.x, r.compile_seconds);
        if (feasible.data() != r.x.data()) {
            if (r.x_iterate.empty()) r.x_iterate = r.x;
            r.x = feasible;
        }
        return r;
    } catch (const OutOfMemory& e) {
        throw OutOfMemory(fmt::format("{}: {}", solving, e.what()));
    } catch (const std::bad_alloc&) {
        throw OutOfMemory(fmt::format("{}: not enough memory for the solver's state", solving));
    }
    return {};
}

}  // namespace detail
}  // namespace proxgen
