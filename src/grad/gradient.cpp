// rt::gradient (proxgen/grad.hpp): the planning map's derivative (named values → the plan's data
// slots), the unrolled reverse pass (its checkpointing: checkpoint.hpp), the implicit adjoint
// iteration.
#include "proxgen/grad.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "../solve/algorithm_rows.hpp"
#include "../solve/engine.hpp"
#include "proxgen/catalogue/card.hpp"
#include "proxgen/error.hpp"
#include "proxgen/typed/solve.hpp"
#include "../plan/slot_jacobian.hpp"
#include "../runtime/nodes.hpp"
#include "checkpoint.hpp"
#include "steppers.hpp"

namespace proxgen {
namespace gradients {
namespace {

// ---- the planning map's derivative ------------------------------------------------------------------

using plan::SlotJacobian;

struct Named {
    std::string name;
    bool parameter = false;
    SlotJacobian J;
    std::vector<int> shape;  // inputs
};

Named differentiate_plan(const rt::Problem& prob, Algorithm a, const std::string& name, const ir::Problem& p0) {
    Named n;
    n.name = name;
    const auto params = prob.parameters();
    const auto inputs = prob.inputs();
    const bool parameter = std::find(params.begin(), params.end(), name) != params.end();
    if (parameter || std::find(inputs.begin(), inputs.end(), name) != inputs.end()) {
        n.parameter = parameter;
        const ir::Problem pt = rt::detail::plan_with_tangent(prob, a, name);
        PROXGEN_INTERNAL_ASSERT(ir::signature(pt) == ir::signature(p0) && pt.image_slots == p0.image_slots &&
                                pt.scalar_slots == p0.scalar_slots);
        n.J = plan::slot_jacobian(pt);
        if (parameter) return n;
        const Image& img = prob.input(name);
        n.shape = img.sizes();
        for (std::size_t s = 0; s < n.J.scalar.size(); ++s)
            if (std::abs(n.J.scalar[s]) > 0)
                fail("gradient with respect to '{}': it changes a scalar of the plan (not supported)", name);
        for (const auto& im : n.J.image)
            if (!im.empty() && im.size() != img.size())
                fail("gradient with respect to '{}': it folds into plan data of another shape (not supported)", name);
        return n;
    }
    fail("gradient: this problem has no input or parameter named '{}' (its inputs: {}; its parameters: {})", name,
         inputs.empty() ? std::string("none") : fmt::format("{}", fmt::join(inputs, ", ")),
         params.empty() ? std::string("none") : fmt::format("{}", fmt::join(params, ", ")));
}

/// An algorithm whose row has no stepper is refused before anything runs.
void check_differentiated(Algorithm a) {
    if (a == Algorithm::automatic || detail::algorithm_row(a).stepper) return;
    fail("gradient: {} is not differentiated (Pock-Chambolle, linearized ADMM and ADMM are)", proxgen::name(a));
}

std::unique_ptr<Stepper> make_stepper(const ir::Problem& p, const Request& req, lower::DataArgs& data) {
    check_differentiated(p.algorithm);
    return detail::algorithm_row(p.algorithm).stepper(p, req, data);
}

std::vector<std::vector<double>> default_steps(const ir::Problem& p, const Options& opt, int n) {
    const auto schedule = detail::algorithm_row(p.algorithm).default_steps;
    return schedule ? schedule(p, opt, n) : std::vector<std::vector<double>>{};
}

/// The initial state: x0 (or 0), x_prev = x0, duals 0.
State initial_state(const ir::Problem& p, const Options& opt, const std::vector<std::vector<int>>& shapes) {
    State s = zeros(shapes);
    if (!opt.x0.empty() || !opt.x0_by_name.empty()) {
        Image x0 = detail::initial_x(p, opt, nullptr);
        copy_into(x0, s[0]);
        if (p.algorithm == Algorithm::pock_chambolle) copy_into(x0, s[1]);
    }
    return s;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace
}  // namespace gradients

namespace rt {

namespace {
Gradient run_gradient(const Problem& prob, const Options& opt, const Loss* loss_ptr, const GradientOptions& go) {
    using namespace gradients;
    const Algorithm alg = opt.algorithm;
    gradients::check_differentiated(alg);
    const bool unrolled = go.mode == GradientMode::unrolled;
    // the options a solve would refuse, and what the gradients do not differentiate, are refused
    // before anything runs
    check_options(opt);
    if (opt.precondition)
        fail("gradient: Options::precondition is not differentiated (the gradients run the unpreconditioned "
             "iteration, whose result differs); set it to false");
    if (unrolled && opt.max_iters < 1) fail("gradient: unrolled mode needs Options::max_iters >= 1, got {}", opt.max_iters);
    if (go.checkpoints < 0) fail("GradientOptions: checkpoints must be >= 0 (0: automatic), got {}", go.checkpoints);
    if (!(go.memory_factor > 0 && std::isfinite(go.memory_factor)))
        fail("GradientOptions: memory_factor must be finite and > 0, got {}", go.memory_factor);
    if (!unrolled && !(go.adjoint_tol > 0 && std::isfinite(go.adjoint_tol)))
        fail("GradientOptions: adjoint_tol must be finite and > 0, got {}", go.adjoint_tol);
    if (!unrolled && go.adjoint_max_iters < 1)
        fail("GradientOptions: adjoint_max_iters must be >= 1, got {}", go.adjoint_max_iters);
    if (!unrolled && (!go.step_schedule.empty() || !go.parameter_schedule.empty()))
        fail("gradient: step and parameter schedules are for unrolled mode (implicit mode differentiates the fixed point)");

    const ir::Problem p0 = rt::plan(prob, alg).ir();
    if (p0.variables.size() > 1)
        fail("gradient: problems in several variables are not differentiated yet (this one has {})", p0.variables.size());
    ir::validate(p0);
    const ir::Problem p = ::proxgen::detail::with_norm_bounds(p0);
    check_differentiable(p);

    // the named values and how the plan's slots depend on them
    std::vector<std::string> names = go.wrt;
    if (names.empty() && loss_ptr) {
        for (auto& n : prob.parameters()) names.push_back(n);
        for (auto& n : prob.inputs()) names.push_back(n);
    }
    std::vector<Named> named;
    std::set<std::string> seen;
    for (const auto& n : names) {
        if (!seen.insert(n).second) continue;
        named.push_back(differentiate_plan(prob, alg, n, p0));
    }
    Request req;
    req.image.assign(std::size_t(p.image_slots), false);
    req.scalar.assign(std::size_t(p.scalar_slots), false);
    for (const auto& n : named) {
        for (std::size_t s = 0; s < n.J.scalar.size(); ++s)
            if (n.J.scalar[s] != 0) req.scalar[s] = true;
        for (std::size_t s = 0; s < n.J.image.size(); ++s)
            if (!n.J.image[s].empty()) req.image[s] = true;
    }

    Gradient g;
    g.algorithm = alg;
    g.mode = go.mode;
    g.step_names = step_names(alg);
    lower::DataArgs data(p);
    auto stepper = make_stepper(p, req, data);
    g.compile_seconds = stepper->compile_seconds;
    const auto shapes = stepper->state_shapes();
    g.state_bytes = bytes_of(shapes);
    const int ns = stepper->step_count();

    Accumulator acc;
    acc.scalar.assign(std::size_t(p.scalar_slots), 0.0);
    acc.image.resize(std::size_t(p.image_slots));
    const lower::DataArgs base(p);
    for (std::size_t s = 0; s < acc.image.size(); ++s)
        if (req.image[s]) acc.image[s].assign(base.images[s].size(), 0.0);

    // per-iteration parameter values (schedules): the plan's scalars at each iteration
    const int N = unrolled ? opt.max_iters : 0;
    std::vector<std::vector<float>> scalars_at;  // per iteration (empty: the base plan's)
    std::map<std::string, std::vector<SlotJacobian>> schedule_J;
    if (!go.parameter_schedule.empty()) {
        for (const auto& [name, values] : go.parameter_schedule) {
            const auto ps = prob.parameters();
            if (std::find(ps.begin(), ps.end(), name) == ps.end())
                fail("gradient: parameter_schedule names '{}', which is not a parameter of this problem", name);
            if (int(values.size()) != N)
                fail("gradient: parameter_schedule['{}'] has {} values for {} iterations", name, values.size(), N);
        }
        std::map<std::vector<double>, std::pair<std::vector<float>, std::map<std::string, SlotJacobian>>> cache;
        for (int k = 0; k < N; ++k) {
            std::vector<double> key;
            for (const auto& [name, values] : go.parameter_schedule) key.push_back(values[std::size_t(k)]);
            auto it = cache.find(key);
            if (it == cache.end()) {
                rt::Problem q = prob;
                for (const auto& [name, values] : go.parameter_schedule) q.set_parameter(name, values[std::size_t(k)]);
                const ir::Problem pk = rt::plan(q, alg).ir();
                if (ir::signature(pk) != ir::signature(p))
                    fail("gradient: a scheduled parameter value changes the plan's structure");
                const lower::DataArgs dk(pk);
                for (std::size_t s = 0; s < dk.images.size(); ++s) {
                    const Image &a = dk.images[s], &b = base.images[s];
                    if (a.size() != b.size() || !std::equal(a.data(), a.data() + a.size(), b.data()))
                        fail("gradient: a scheduled parameter changes the plan's images (only parameters that weigh "
                             "terms or scale operators can be scheduled)");
                }
                std::map<std::string, SlotJacobian> Js;
                for (const auto& [name, values] : go.parameter_schedule) {
                    if (!loss_ptr) break;
                    Named n = differentiate_plan(q, alg, name, pk);
                    Js[name] = n.J;
                    for (std::size_t s = 0; s < n.J.scalar.size(); ++s)
                        if (n.J.scalar[s] != 0 && !req.scalar[s])
                            fail("gradient: schedule a parameter that is also in wrt (add '{}' to wrt)", name);
                }
                it = cache.emplace(key, std::make_pair(dk.scalars, Js)).first;
            }
            scalars_at.push_back(it->second.first);
            for (const auto& [name, J] : it->second.second) schedule_J[name].push_back(J);
        }
    }
    std::vector<std::vector<double>> schedule_scalar_grads;  // per iteration, by scalar slot

    Image gx_loss;
    const auto t0 = std::chrono::steady_clock::now();
    if (unrolled) {
        std::vector<std::vector<double>> steps;
        if (go.step_schedule.empty()) {
            Options o = opt;
            steps = default_steps(p, o, N);
        } else {
            if (int(go.step_schedule.size()) != N)
                fail("gradient: step_schedule has {} iterations but Options::max_iters is {}", go.step_schedule.size(), N);
            for (const auto& s : go.step_schedule) {
                if (int(s.size()) != ns)
                    fail("gradient: each step_schedule entry holds {} step sizes ({}) for {}, got {}", ns,
                         fmt::join(g.step_names, ", "), proxgen::name(alg), s.size());
                for (double v : s)
                    if (!(std::isfinite(v) && v > 0) && !(alg == Algorithm::pock_chambolle && &v == &s[2] && v >= 0))
                        fail("gradient: step sizes must be finite and > 0, got {}", v);
            }
            steps = go.step_schedule;
        }
        g.step_values = steps;
        g.step_gradients.assign(std::size_t(N), std::vector<double>(std::size_t(ns), 0.0));
        auto set_scalars = [&](int k) {
            if (!scalars_at.empty()) data.scalars = scalars_at[std::size_t(k)];
        };

        // slots
        int slots = go.checkpoints;
        const std::size_t sb = g.state_bytes;
        if (slots == 0 && !scalars_at.empty()) slots = N;  // a schedule's recomputation would need its values
        if (slots == 0) {
            // budget: memory_factor × the forward's state (the iterate and its next, double-buffered),
            // less what the reverse pass holds anyway: the states at both ends of an iteration, a work
            // state, two adjoints and the stepper's buffers
            const double budget = go.memory_factor * 2.0 * double(sb);
            const double fixed = 5.0 * double(sb) + double(stepper->bytes());
            slots = std::max(1, int((budget - fixed) / double(sb)));
        }
        slots = std::min(slots, N);
        Engine E(*stepper, steps, shapes);
        const Schedule sched(N, slots);
        g.checkpoints = slots;

        // forward sweep, keeping the spine's states
        const std::vector<int> spine = E.spine(N, slots, sched);
        std::map<int, State> kept;
        State s0 = initial_state(p, opt, shapes);
        E.alloc();  // s0
        State cur = E.alloc();
        copy_state(s0, cur);
        int at = 0;
        for (int m : spine) {
            for (; at < m; ++at) {
                set_scalars(at);
                E.advance(cur, at, at + 1);
            }
            State keep = E.alloc();
            copy_state(cur, keep);
            kept[m] = std::move(keep);
        }
        for (; at < N; ++at) {
            set_scalars(at);
            E.advance(cur, at, at + 1);
        }
        const int sweep_steps = E.forward_steps;
        g.forward_seconds = seconds_since(t0);
        g.x = cur[0].copy();
        if (!loss_ptr) return g;
        const Loss& loss = *loss_ptr;
        g.loss = loss.value(g.x);
        gx_loss = loss.gradient_at(g.x);

        const auto t1 = std::chrono::steady_clock::now();
        State g_out = E.alloc(), g_in = E.alloc();
        copy_into(gx_loss, g_out[0]);
        if (!scalars_at.empty()) schedule_scalar_grads.assign(std::size_t(N), std::vector<double>(acc.scalar.size(), 0.0));
        E.reverse_step = [&](int k, const State& in, const State& out) {
            set_scalars(k);
            for (auto& img : g_in) std::fill(img.data(), img.data() + img.size(), 0.0f);
            acc.steps = &g.step_gradients[std::size_t(k)];
            const std::vector<double> before = acc.scalar;
            stepper->reverse(in, out, g_out, g_in, E.steps(k), E.previous(k), acc,
                             k > 0 ? g.step_gradients[std::size_t(k - 1)].data() : nullptr);
            if (!schedule_scalar_grads.empty())
                for (std::size_t s = 0; s < before.size(); ++s)
                    schedule_scalar_grads[std::size_t(k)][s] = acc.scalar[s] - before[s];
            std::swap(g_out, g_in);
        };
        // the advances of the reverse pass run with their iteration's scalars too
        if (!scalars_at.empty() && slots < N)
            fail("gradient: a parameter schedule needs every state kept (GradientOptions::checkpoints = max_iters)");
        E.reverse(0, N, s0, cur, slots, sched, true, &kept);
        g.backward_seconds = seconds_since(t1);
        g.forward_steps = E.forward_steps;
        (void)sweep_steps;
        g.backward_bytes = std::size_t(E.peak_) * sb + stepper->bytes();
        g.iterations = N;
    } else {
        // implicit: solve to tolerance, then iterate the reverse step at the fixed point
        g.solve = ::proxgen::detail::solve_ir(p0, opt, nullptr);
        g.iterations = g.solve.iterations;
        const Result& r = g.solve;
        // the implicit gradient is the derivative of the fixed point: elsewhere it is no gradient
        if (!r.converged)
            fail("gradient (implicit): the forward solve did not converge ({} after {} iterations; primal residual "
                 "{:.3g}, dual {:.3g}), and the implicit gradient holds only at its fixed point: raise "
                 "Options::max_iters or loosen eps_abs / eps_rel, or use unrolled mode",
                 proxgen::name(r.status), r.iterations, r.primal_residual, r.dual_residual);
        State fixed = zeros(shapes), next = zeros(shapes);
        const Image& xs = r.x_iterate.empty() ? r.x : r.x_iterate;
        copy_into(xs, fixed[0]);
        std::vector<double> st;
        const std::size_t m = p.psi.size();
        if (alg == Algorithm::pock_chambolle) {
            copy_into(xs, fixed[1]);
            for (std::size_t i = 0; i < m; ++i) copy_into(r.duals[i], fixed[2 + i]);
            Options o = opt;
            o.accelerate = false;  // any fixed steps share the fixed point: the unaccelerated rule's
            const steps::PockChambolle s = ::proxgen::detail::pc_steps(p, o);
            st = r.steps.size() >= 2 && !::proxgen::detail::pc_steps(p, opt).accelerated ? std::vector<double>{r.steps[1], r.steps[0], 1.0}
                                                                                 : std::vector<double>{s.sigma, s.tau, 1.0};
        } else {
            for (std::size_t i = 0; i < 2 * m; ++i) copy_into(r.duals[i], fixed[1 + i]);
            st = alg == Algorithm::ladmm ? std::vector<double>{r.steps[0], r.steps[1]} : std::vector<double>{r.steps[0]};
        }
        g.step_values = {st};
        stepper->forward(fixed, next, st.data(), st.data());
        g.forward_seconds = seconds_since(t0);
        g.x = xs.copy();
        const Loss& loss = *loss_ptr;
        g.loss = loss.value(g.x);
        gx_loss = loss.gradient_at(g.x);
        const auto t1 = std::chrono::steady_clock::now();
        State w = zeros(shapes), g_out = zeros(shapes), g_in = zeros(shapes);
        Accumulator scratch;
        scratch.scalar.assign(acc.scalar.size(), 0.0);
        scratch.image.resize(acc.image.size());
        for (std::size_t s = 0; s < acc.image.size(); ++s) scratch.image[s].assign(acc.image[s].size(), 0.0);
        std::vector<double> step_scratch(std::size_t(ns), 0.0);
        scratch.steps = &step_scratch;
        double change = INFINITY;
        int k = 0;
        for (; k < go.adjoint_max_iters; ++k) {
            for (std::size_t i = 0; i < w.size(); ++i) copy_into(w[i], g_out[i]);
            for (std::size_t i = 0; i < gx_loss.size(); ++i) g_out[0].data()[i] += gx_loss.data()[i];
            for (auto& img : g_in) std::fill(img.data(), img.data() + img.size(), 0.0f);
            stepper->reverse(fixed, next, g_out, g_in, st.data(), st.data(), scratch, nullptr);
            double d2 = 0, n2 = 0;
            for (std::size_t i = 0; i < w.size(); ++i)
                for (std::size_t j = 0; j < w[i].size(); ++j) {
                    const double a = g_in[i].data()[j], b = w[i].data()[j];
                    d2 += (a - b) * (a - b);
                    n2 += a * a;
                }
            std::swap(w, g_in);
            change = n2 > 0 ? std::sqrt(d2 / n2) : 0.0;
            if (!std::isfinite(change))
                fail("gradient (implicit): the adjoint iteration diverged at iteration {}", k + 1);
            if (change <= go.adjoint_tol) {
                ++k;
                break;
            }
        }
        g.adjoint_iterations = k;
        g.adjoint_residual = change;
        g.adjoint_converged = change <= go.adjoint_tol;
        if (!g.adjoint_converged)
            fail("gradient (implicit): the adjoint iteration did not converge in {} iterations (relative change "
                 "{:.3g} > adjoint_tol {:.3g}): raise GradientOptions::adjoint_max_iters or adjoint_tol",
                 k, change, go.adjoint_tol);
        // the parameters' gradient at the fixed point's adjoint
        for (std::size_t i = 0; i < w.size(); ++i) copy_into(w[i], g_out[i]);
        for (std::size_t i = 0; i < gx_loss.size(); ++i) g_out[0].data()[i] += gx_loss.data()[i];
        std::vector<double> step_grads(std::size_t(ns), 0.0);
        acc.steps = &step_grads;
        stepper->reverse(fixed, next, g_out, g_in, st.data(), st.data(), acc, nullptr);
        g.backward_seconds = seconds_since(t1);
        g.backward_bytes = 5 * g.state_bytes + stepper->bytes();
    }

    // chain through the planning map
    for (const auto& n : named) {
        double total = 0;
        std::vector<double> img(n.parameter ? 0 : [&] {
            std::size_t k = 1;
            for (int d : n.shape) k *= std::size_t(d);
            return k;
        }());
        for (std::size_t s = 0; s < n.J.scalar.size(); ++s) total += n.J.scalar[s] * acc.scalar[s];
        for (std::size_t s = 0; s < n.J.image.size(); ++s) {
            if (n.J.image[s].empty()) continue;
            const auto& J = n.J.image[s];
            const auto& a = acc.image[s];
            if (n.parameter)
                for (std::size_t k = 0; k < J.size(); ++k) total += J[k] * a[k];
            else
                for (std::size_t k = 0; k < J.size(); ++k) img[k] += J[k] * a[k];
        }
        if (n.parameter) {
            g.parameters[n.name] = total;
        } else {
            Image out(n.shape);
            for (std::size_t k = 0; k < img.size(); ++k) out.data()[k] = float(img[k]);
            g.inputs[n.name] = out;
        }
    }
    // a gradient that is not a number is refused, with where it came from
    auto refuse_non_finite = [&](const std::string& what) {
        fail("gradient: {} is not finite: the {} iteration{} produced non-finite values (a step schedule that "
             "diverges, or data and weights the problem cannot take); nothing is returned",
             what, proxgen::name(alg), unrolled ? "s" : "");
    };
    for (std::size_t i = 0; i < g.x.size(); ++i)
        if (!std::isfinite(g.x.data()[i])) refuse_non_finite("the solution x");
    for (const auto& [n, v] : g.parameters)
        if (!std::isfinite(v)) refuse_non_finite(fmt::format("dL/d{}", n));
    for (const auto& [n, img] : g.inputs)
        for (std::size_t i = 0; i < img.size(); ++i)
            if (!std::isfinite(img.data()[i])) refuse_non_finite(fmt::format("dL/d{}", n));
    for (const auto& [name, Js] : schedule_J) {
        std::vector<double> per(std::size_t(N), 0.0);
        for (int k = 0; k < N; ++k)
            for (std::size_t s = 0; s < Js[std::size_t(k)].scalar.size(); ++s)
                per[std::size_t(k)] += Js[std::size_t(k)].scalar[s] * schedule_scalar_grads[std::size_t(k)][s];
        g.schedule_gradients[name] = per;
    }
    return g;
}
}  // namespace

Gradient gradient(const Problem& prob, const Options& opt, const Loss& loss, const GradientOptions& g) {
    return run_gradient(prob, opt, &loss, g);
}

Image unrolled(const Problem& prob, const Options& opt, const GradientOptions& g) {
    GradientOptions f = g;
    f.mode = GradientMode::unrolled;
    f.wrt = {};
    f.checkpoints = 1;
    return run_gradient(prob, opt, nullptr, f).x;
}

}  // namespace rt
}  // namespace proxgen
