// proxgen._core: describe / solve / solve_batch / objective with options as keyword arguments,
// results as NumPy arrays. The GIL is released while solving; after each iteration the callback
// path takes it back briefly to run the user's callback (returning False stops the solve). Ctrl-C
// reaches the solve through Options::stop (SigintWatch), so it also stops what runs on threads of
// ProxGen's own, where Python's handlers cannot run: automatic's candidates, a batch's members.
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include "binding.hpp"
#include "proxgen/check/rules.hpp"
#include "proxgen/error.hpp"

namespace proxgen::python {

namespace {

/// Every name of C++'s algorithm table (ProxImaL's names included: pc, linearized_admm, ...).
Algorithm algorithm_of(const std::string& s) {
    if (auto a = parse_algorithm(s)) return *a;
    fail("unknown solver '{}': the solvers are {}", s, accepted_algorithm_names());
}

struct PyResult {
    Result result;
};

/// What a solve call gets besides Options: the Python callback and a warm start.
struct SolveArgs {
    Options options;
    py::object callback = py::none();
    const Result* warm = nullptr;
};

bool truthy(const py::handle& v) {
    const int r = PyObject_IsTrue(v.ptr());
    if (r < 0) throw py::error_already_set();
    return r != 0;
}

template <class T>
T get(const py::handle& v, const char* key) {
    try {
        return v.cast<T>();
    } catch (const py::cast_error&) {
        throw py::type_error(fmt::format("solve: option '{}' has the wrong type ({})", key,
                                         std::string(py::str(py::type::of(v).attr("__name__")))));
    }
}

/// A numeric option, checked against its range (proxgen/check/rules.hpp: the sentences pg::solve and
/// the command line give) before it is narrowed: max_iters=2**40 is out of range, not a wrong type.
template <class T>
T number(const py::handle& v, const char* key) {
    if (py::isinstance<py::bool_>(v) || !(py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v) ||
                                          py::hasattr(v, "__float__")))
        return get<T>(v, key);  // not a number: the wrong-type message
    double d = 0;
    try {
        d = v.cast<double>();
    } catch (const py::cast_error&) {
        throw Error(fmt::format("solve: {}", rules::option_text(key, std::string(py::str(v)))));
    }
    if (PyErr_Occurred()) PyErr_Clear();
    if (!std::isfinite(d) && py::isinstance<py::int_>(v))  // an int beyond double's range
        throw Error(fmt::format("solve: {}", rules::option_text(key, std::string(py::str(v)))));
    if (std::string m = rules::option(key, d); !m.empty()) throw Error("solve: " + m);
    return static_cast<T>(d);
}

SolveArgs options_of(const py::dict& kw, const PyProblem& prob) {
    SolveArgs a;
    Options& o = a.options;
    for (auto item : kw) {
        const std::string k = item.first.cast<std::string>();
        const py::handle v = item.second;
        if (k == "algorithm" || k == "solver") o.algorithm = algorithm_of(get<std::string>(v, k.c_str()));
        else if (k == "max_iters") o.max_iters = number<int>(v, "max_iters");
        else if (k == "eps_abs") o.eps_abs = number<double>(v, "eps_abs");
        else if (k == "eps_rel") o.eps_rel = number<double>(v, "eps_rel");
        else if (k == "check_every") o.check_every = number<int>(v, "check_every");
        else if (k == "verbose") o.verbose = truthy(v);
        else if (k == "track_objective") o.track_objective = truthy(v);
        else if (k == "tau") o.tau = number<double>(v, "tau");
        else if (k == "sigma") o.sigma = number<double>(v, "sigma");
        else if (k == "accelerate") o.accelerate = truthy(v);
        else if (k == "lambda_" || k == "lmb") o.lambda = number<double>(v, "lambda");
        else if (k == "mu") o.mu = number<double>(v, "mu");
        else if (k == "rho") o.rho = number<double>(v, "rho");
        else if (k == "adaptive_rho") o.adaptive_rho = truthy(v);
        else if (k == "precondition") o.precondition = truthy(v);
        else if (k == "tier") {
            const std::string t = get<std::string>(v, "tier");
            if (t != "fused" && t != "per_card" && t != "auto")
                throw py::value_error(fmt::format("solve: tier must be 'fused', 'per_card' or 'auto', got '{}'", t));
            o.tier = t == "per_card" ? Tier::per_card : t == "auto" ? Tier::automatic : Tier::fused;
        }
        else if (k == "hqs_growth") o.hqs_growth = number<double>(v, "hqs_growth");
        else if (k == "hqs_every") o.hqs_every = number<int>(v, "hqs_every");
        else if (k == "hqs_max_ratio") o.hqs_max_ratio = number<double>(v, "hqs_max_ratio");
        else if (k == "cg_tol") o.cg_tol = number<double>(v, "cg_tol");
        else if (k == "cg_max_iters") o.cg_max_iters = number<int>(v, "cg_max_iters");
        else if (k == "x0") {
            if (!v.is_none()) o.x0 = to_data(v, "solve: x0").data.image().copy();
        } else if (k == "x0_by_name") {
            if (!v.is_none() && !py::isinstance<py::dict>(v))
                throw py::type_error("solve: x0_by_name must be a dict {variable name: array}");
            if (!v.is_none())
                for (const auto& [name, value] : v.cast<py::dict>()) {
                    const std::string n = py::str(name);
                    o.x0_by_name[n] = to_data(value, "solve: x0_by_name['" + n + "']").data.image().copy();
                }
        } else if (k == "callback") {
            if (!v.is_none() && !PyCallable_Check(v.ptr()))
                throw py::type_error("solve: callback must be callable (it receives an IterationInfo; return False to stop)");
            a.callback = py::reinterpret_borrow<py::object>(v);
        } else if (k == "warm_start") {
            if (!v.is_none() && !py::isinstance<PyResult>(v))
                throw py::type_error(fmt::format("solve: warm_start must be a Result (solve_batch: a list of one Result "
                                                 "per member), got {}",
                                                 std::string(py::str(py::type::of(v).attr("__name__")))));
            if (!v.is_none()) a.warm = &v.cast<const PyResult&>().result;
        } else
            throw py::type_error(fmt::format(
                "solve() got an unexpected keyword argument '{}' (options: algorithm, max_iters, eps_abs, eps_rel, "
                "check_every, verbose, track_objective, tau, sigma, accelerate, lmb, mu, rho, adaptive_rho, precondition, tier, "
                "hqs_growth, hqs_every, hqs_max_ratio, cg_tol, cg_max_iters, x0, x0_by_name, callback, warm_start)", k));
    }
    (void)prob;
    return a;
}

/// Set by on_sigint while a SigintWatch is installed; lock-free, so a signal handler may store it.
std::atomic<bool> sigint_seen{false};
static_assert(std::atomic<bool>::is_always_lock_free);
extern "C" void on_sigint(int) { sigint_seen.store(true, std::memory_order_relaxed); }

/// Ctrl-C during a solve called from Python's main thread: while it lives, SIGINT sets a flag the
/// solve reads as Options::stop (its iterations may run on threads where Python's own handler,
/// which only runs on the main thread between bytecodes, cannot be reached); `finish` puts Python's
/// handler back and, if the signal came, raises it there (KeyboardInterrupt, or the user's own
/// signal.signal handler). A SIGINT that Python ignores or leaves at its default is not watched,
/// nor one on another thread's solve (the main thread's Ctrl-C is not that solve's).
class SigintWatch {
public:
    SigintWatch() {
        py::module_ threading = py::module_::import("threading");
        if (!threading.attr("current_thread")().is(threading.attr("main_thread")())) return;
        struct sigaction current{};
        if (sigaction(SIGINT, nullptr, &current) != 0) return;
        if (current.sa_handler == on_sigint) {  // a solve inside a callback of a watched one
            nested_ = true;
            return;
        }
        if ((current.sa_flags & SA_SIGINFO) == 0 && (current.sa_handler == SIG_IGN || current.sa_handler == SIG_DFL))
            return;
        struct sigaction watch{};
        watch.sa_handler = on_sigint;
        sigemptyset(&watch.sa_mask);
        sigint_seen.store(false);
        if (sigaction(SIGINT, &watch, &previous_) == 0) installed_ = true;
    }
    SigintWatch(const SigintWatch&) = delete;
    SigintWatch& operator=(const SigintWatch&) = delete;
    ~SigintWatch() { restore(); }

    /// What Options::stop should point at: the flag, or null where nothing is watched.
    const std::atomic<bool>* flag() const { return installed_ || nested_ ? &sigint_seen : nullptr; }
    /// With the GIL held: Python's handler back, and the signal that came delivered to it.
    void finish() {
        const bool seen = installed_ && sigint_seen.load();
        restore();
        if (!seen) return;
        PyErr_SetInterrupt();
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    }

private:
    void restore() {
        if (installed_) sigaction(SIGINT, &previous_, nullptr);
        installed_ = false;
    }
    struct sigaction previous_{};
    bool installed_ = false, nested_ = false;
};

/// Runs the solve without the GIL; Ctrl-C and the callback's verdict stop it between iterations.
Result solve_released(const PyProblem& prob, SolveArgs args) {
    std::optional<py::error_already_set> pending;  // a KeyboardInterrupt or the callback's exception
    bool python_stopped = false;
    const bool has_callback = !args.callback.is_none();
    SigintWatch sigint;
    args.options.stop = sigint.flag();
    if (has_callback) args.options.callback = [&](const IterationInfo& info) -> bool {
        py::gil_scoped_acquire gil;
        try {
            py::object verdict = args.callback(info);
            if (!verdict.is_none() && !py::bool_(verdict)) python_stopped = true;
        } catch (py::error_already_set& e) {
            pending.emplace(std::move(e));
        }
        return !python_stopped && !pending;
    };
    // the C++ table (verbose) goes to C's stdout: flush Python's first so that the two interleave
    py::module_::import("sys").attr("stdout").attr("flush")();
    Result r;
    {
        py::gil_scoped_release release;
        try {
            r = args.warm ? rt::solve(prob.problem, args.options, *args.warm) : rt::solve(prob.problem, args.options);
        } catch (...) {
            std::fflush(stdout);
            throw;
        }
        std::fflush(stdout);
    }
    if (pending) throw std::move(*pending);
    sigint.finish();
    return r;
}

/// A batch member from Python: {name: array} replaces named inputs, {name: number} named parameters.
/// Arrays used without a copy are appended to `keep`, which must outlive the solve.
rt::BatchMember member_of(const py::handle& m, std::size_t i, Keep& keep) {
    if (!py::isinstance<py::dict>(m))
        throw py::type_error(fmt::format("solve_batch: member {} must be a dict {{name: array or number}}, got {}", i,
                                         std::string(py::str(py::type::of(m).attr("__name__")))));
    rt::BatchMember out;
    for (auto item : m.cast<py::dict>()) {
        const std::string name = py::str(item.first);
        if (auto n = number_of(item.second)) {
            out.parameters[name] = *n;
            continue;
        }
        PyData d = to_data(item.second, fmt::format("solve_batch: member {}: input '{}'", i, name));
        if (!d.owner.is_none()) keep.push_back(d.owner);
        out.inputs.emplace(name, d.data.image());
    }
    return out;
}

/// rt::solve_batch without the GIL and without a callback: a callback would make the members run
/// one at a time (and could not say which member it sees). Ctrl-C stops every member through
/// Options::stop (those not started start no more) and raises KeyboardInterrupt when the batch
/// returns.
std::vector<Result> solve_batch_released(const PyProblem& prob, const py::sequence& members, const py::dict& kw) {
    py::dict rest;
    py::object warm_start = py::none();
    for (auto item : kw) {
        const std::string k = item.first.cast<std::string>();
        if (k == "callback" && !item.second.is_none())
            throw Error("solve_batch: callback= is not supported with a batch (its members run side by side); solve "
                        "a member alone to follow its iterations");
        if (k == "warm_start") warm_start = py::reinterpret_borrow<py::object>(item.second);
        else rest[item.first] = item.second;
    }
    const SolveArgs args = options_of(rest, prob);
    Keep keep;
    std::vector<rt::BatchMember> list;
    for (std::size_t i = 0; i < py::len(members); ++i) list.push_back(member_of(members[i], i, keep));
    std::vector<Result> warm;
    if (!warm_start.is_none()) {
        if (!py::isinstance<py::sequence>(warm_start) || py::isinstance<PyResult>(warm_start))
            throw py::type_error(fmt::format("solve_batch: warm_start must be a list of one Result per member (a "
                                             "batch's results), got {}",
                                             std::string(py::str(py::type::of(warm_start).attr("__name__")))));
        for (auto r : warm_start) {
            if (!py::isinstance<PyResult>(r))
                throw py::type_error("solve_batch: warm_start must be a list of Results, one per member");
            warm.push_back(r.cast<const PyResult&>().result);
        }
    }
    // the C++ table (verbose) goes to C's stdout: flush Python's first so that the two interleave
    py::module_::import("sys").attr("stdout").attr("flush")();
    std::vector<Result> out;
    SigintWatch sigint;
    Options options = args.options;
    options.stop = sigint.flag();
    {
        py::gil_scoped_release release;
        try {
            out = warm_start.is_none() ? rt::solve_batch(prob.problem, list, options)
                                       : rt::solve_batch(prob.problem, list, options, warm);
        } catch (...) {
            std::fflush(stdout);
            throw;
        }
        std::fflush(stdout);
    }
    sigint.finish();
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    return out;
}

py::array value_of(const PyResult& r, const std::string& name) { return to_numpy(r.result[name]); }

py::dict as_dict(const IterationInfo& i) {
    return py::dict(py::arg("iteration") = i.iteration, py::arg("primal_residual") = i.primal_residual,
                    py::arg("dual_residual") = i.dual_residual, py::arg("eps_primal") = i.eps_primal,
                    py::arg("eps_dual") = i.eps_dual, py::arg("objective") = i.objective);
}

}  // namespace

void bind_solve(py::module_& m) {
    py::class_<IterationInfo>(m, "IterationInfo", "What a callback sees after each iteration (residuals are NaN "
                                                  "on iterations where they were not measured).")
        .def_readonly("iteration", &IterationInfo::iteration)
        .def_readonly("primal_residual", &IterationInfo::primal_residual)
        .def_readonly("dual_residual", &IterationInfo::dual_residual)
        .def_readonly("eps_primal", &IterationInfo::eps_primal)
        .def_readonly("eps_dual", &IterationInfo::eps_dual)
        .def_readonly("objective", &IterationInfo::objective)
        .def("as_dict", &as_dict)
        .def("__repr__", [](const IterationInfo& i) {
            return fmt::format("IterationInfo(iteration={}, primal_residual={}, dual_residual={}, objective={})",
                               i.iteration, i.primal_residual, i.dual_residual, i.objective);
        });

    py::class_<PyResult>(m, "Result", "A solve's values (NumPy arrays by variable name), status and history.")
        .def("__getitem__", &value_of)
        .def("__getitem__", [](const PyResult& r, const PyExpr& v) { return to_numpy(r.result[v.expr]); })
        .def_property_readonly("values", [](const PyResult& r) {
            py::dict d;
            for (const auto& [name, img] : r.result.named_values) d[py::str(name)] = to_numpy(img);
            return d;
        })
        .def_property_readonly("x", [](const PyResult& r) {
            if (r.result.named_values.size() > 1)
                fail("Result.x: the problem has {} variables; take each by name (result['x'], result.values)",
                     r.result.named_values.size());
            return to_numpy(r.result.x);
        }, "The variable's value (a problem in one variable; several: result[name], result.values).")
        .def_property_readonly("choice", [](const PyResult& r) { return r.result.choice; },
                               "solver='auto': what it probed, measured and chose (empty otherwise).")
        .def_property_readonly("iterations", [](const PyResult& r) { return r.result.iterations; })
        .def_property_readonly("converged", [](const PyResult& r) { return r.result.converged; })
        .def_property_readonly("status", [](const PyResult& r) { return std::string(name(r.result.status)); })
        .def_property_readonly("message", [](const PyResult& r) { return r.result.message; },
                               "Why the solve stopped, when that needs a sentence (likely_infeasible).")
        .def_property_readonly("primal_residual", [](const PyResult& r) { return r.result.primal_residual; })
        .def_property_readonly("dual_residual", [](const PyResult& r) { return r.result.dual_residual; })
        .def_property_readonly("solve_seconds", [](const PyResult& r) { return r.result.solve_seconds; })
        .def_property_readonly("compile_seconds", [](const PyResult& r) { return r.result.compile_seconds; })
        .def_property_readonly("algorithm", [](const PyResult& r) { return std::string(short_name(r.result.algorithm)); })
        .def_property_readonly("cg_iterations", [](const PyResult& r) { return r.result.cg_iterations; })
        .def_property_readonly("per_card_iterations", [](const PyResult& r) { return r.result.per_card_iterations; },
                               "How many iterations ran in the per-card tier (tier='per_card' or 'auto').")
        .def_property_readonly("history", [](const PyResult& r) {
            py::list out;
            for (const auto& h : r.result.history)
                out.append(py::dict(py::arg("iteration") = h.iteration, py::arg("objective") = h.objective,
                                    py::arg("primal_residual") = h.primal_residual,
                                    py::arg("dual_residual") = h.dual_residual, py::arg("eps_primal") = h.eps_primal,
                                    py::arg("eps_dual") = h.eps_dual));
            return out;
        }, "One dict per residual check: iteration, objective (NaN unless tracked), residuals, tolerances.")
        .def("__repr__", [](const PyResult& r) {
            return fmt::format("Result({}, {} after {} iterations, {:.3f} s)", short_name(r.result.algorithm),
                               name(r.result.status), r.result.iterations, r.result.solve_seconds);
        });

    // The algorithm table, for python/proxgen/problem.py (ProxImaL's solver= names) and users.
    m.def("algorithms", [] {
        py::list out;
        for (const AlgorithmNames& n : algorithm_table) {
            py::list aliases;
            for (std::string_view alias : n.aliases)
                if (!alias.empty()) aliases.append(py::str(alias.data(), alias.size()));
            out.append(py::make_tuple(py::str(n.short_name.data(), n.short_name.size()),
                                      py::str(n.name.data(), n.name.size()), aliases));
        }
        return out;
    }, "Every algorithm as (short name, name, [aliases]), in C++'s algorithm table: solve and describe accept "
       "each of these names and print the short one.");
    m.def("accepted_algorithm_names", [] { return accepted_algorithm_names(); },
          "The accepted names as error messages list them.");
    m.def("solve", [](const PyProblem& p, const py::kwargs& kw) { return PyResult{solve_released(p, options_of(kw, p))}; },
          py::arg("problem"),
          "solve(problem, algorithm='pc', max_iters=500, eps_abs=1e-4, eps_rel=1e-4, verbose=False, callback=None, "
          "x0=None, warm_start=None, ...): the options of pg::Options as keywords.");
    m.def("solve_batch", [](const PyProblem& p, const py::sequence& members, const py::kwargs& kw) {
        py::list out;
        for (Result& r : solve_batch_released(p, members, kw)) out.append(PyResult{std::move(r)});
        return out;
    }, py::arg("problem"), py::arg("members"),
          "solve_batch(problem, members, **options): rt::solve_batch, one Result per member; each member a dict "
          "{name: array} of the named inputs it replaces and {name: number} of the named parameters; options as "
          "solve's (no callback), warm_start a list of one Result per member. A member that cannot be solved has "
          "status 'failed' and a message naming its index; the others are solved.");
    m.def("describe", [](const PyProblem& p, const std::string& algorithm) {
        return rt::describe(p.problem, algorithm_of(algorithm));
    }, py::arg("problem"), py::arg("algorithm") = "pc", "The plan's text, as pg::describe prints it.");
    m.def("objective", [](const PyProblem& p, const py::object& at) {
        if (py::isinstance<PyResult>(at)) return rt::objective(p.problem, at.cast<const PyResult&>().result);
        return rt::objective(p.problem, to_data(at, "objective: x").data.image());
    }, py::arg("problem"), py::arg("at"), "The objective (float64) at a Result or at an array x.");
    // the same as methods of Problem: prob.solve(...), prob.describe(...), prob.objective(...)
    py::object cls = py::type::of<PyProblem>();
    for (const char* name : {"solve", "describe", "objective"}) {
        py::object f = m.attr(name);
        // a function object that binds `self` as its first argument when read from an instance
        py::setattr(cls, name, py::reinterpret_steal<py::object>(PyInstanceMethod_New(f.ptr())));
    }
    m.def("_result_from_values", [](const py::dict& values) {
        // A Result holding only variable values: objective() at values set from Python (ProxImaL's
        // ProxFn.value after x.value = ...).
        PyResult r;
        for (auto item : values) {
            Image img = to_data(item.second, "value").data.image().copy();
            if (r.result.x.empty()) r.result.x = img;
            r.result.named_values.emplace(item.first.cast<std::string>(), img);
        }
        return r;
    });
}

}  // namespace proxgen::python
