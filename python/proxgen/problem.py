"""ProxImaL's Problem (proximal.algorithms.Problem) over ProxGen's planner and solvers."""

import math

import numpy as np

from . import _batch, _core
from .lin_ops import _core_shape
from .prox_fns import ProxFn, cg_options, lsqr_options
from .rt import Error
from .utils import Impl

__all__ = ["Problem", "Impl"]

# Every accepted solver name -> its short name (the key of _SOLVER_ONLY), from C++'s algorithm
# table, which the command line and proxgen.rt read too: all accept the same names.
_SOLVERS = {n: short for short, name, aliases in _core.algorithms() for n in [short, name] + list(aliases)}
# solver='auto': chosen when solving by a short probe of the algorithms (ProxGen's Algorithm::automatic)
_SOLVERS.update({"auto": "auto", "automatic": "auto"})

# Keyword arguments of each ProxImaL solver (algorithms/*.py) that ProxGen maps; those of another
# solver are a TypeError, as in ProxImaL.
_SOLVER_ONLY = {
    "pc": {"tau", "sigma", "theta"},
    "ladmm": {"lmb", "mu"},
    "admm": {"rho"},
    "hqs": {"rho_0", "rho_scale", "rho_max", "max_inner_iters"},
    "cv": {"tau", "sigma"},  # (Condat-Vu, ProxGen's: not a ProxImaL solver; Pock-Chambolle's steps)
    "auto": set(),
}
# ProxImaL's options about how it computes, not what: ProxGen plans these itself.
_IGNORED = {"lin_solver", "try_diagonalize", "try_fast_norm", "scaled", "implem"}
# ProxGen's own options, accepted with any solver.
_NATIVE = {"check_every", "track_objective", "accelerate", "adaptive_rho", "precondition", "tier", "cg_tol", "cg_max_iters", "hqs_growth",
           "hqs_every", "hqs_max_ratio", "warm_start"}
# ProxImaL's HQS arguments that set its count of iterations, with their defaults there (its hqs.solve)
HQS_DEFAULTS = {"max_iters": -1, "max_inner_iters": 100, "rho_0": 1.0, "rho_scale": 2.0 * 2.0 ** 0.5, "rho_max": 2.0 ** 8}


def _hqs_iterations(kwargs):
    """ProxImaL's HQS counts outer iterations, one per penalty rho, each of at most max_inner_iters
    inner ones (a negative max_iters: until rho reaches rho_max); ProxGen's max_iters counts every
    iteration, its stages ending early where ProxImaL's inner loops do."""
    values = {k: v if kwargs.get(k) is None else kwargs[k] for k, v in HQS_DEFAULTS.items()}
    inner = max(1, int(values["max_inner_iters"]))
    outer = int(values["max_iters"])
    if outer < 0:
        growth, ratio = float(values["rho_scale"]), float(values["rho_max"]) / float(values["rho_0"])
        outer = 1 + (int(math.ceil(math.log(ratio) / math.log(growth))) if growth > 1 and ratio > 1 else 0)
    return outer * inner


_UNSUPPORTED = {
    "metric": "ProxImaL's image-quality metric printout; pass callback= to follow the iterations",
    "convlog": "ProxImaL's convergence logger; Problem.result.history holds the residual history",
    "adapter": "ProxImaL's CUDA adapter",
    "quad_funcs": "ProxGen chooses which quadratics the x-update absorbs",
}


def _all_variables(fns):
    out = []
    for fn in fns:
        for v in fn.variables():
            if not any(v is o for o in out):
                out.append(v)
    return out


def _core_problem(fns, absorb=True):
    prob = None
    for fn in fns:
        t = fn._terms(absorb)
        if t is not None:
            prob = t if prob is None else prob + t
    if prob is None:
        raise Error("the problem has no terms (only zero functions)")
    return prob


def _objective_at_values(fns):
    """The functions' objective (float64, plus their d's) at the variables' current values; for batched
    data or values (after a batch's solve), one per member (_batch)."""
    values = {}
    for v in _all_variables(fns):
        if v.value is None:
            raise Error("variable {} has no value yet (solve the problem first, or assign x.value)".format(v.varname))
        values[v.varname] = (v.value, v.shape)
    prob, d = _core_problem(fns), sum(fn.d for fn in fns)
    if _batch.of(prob) is not None or any(_batch.size(a, s) is not None for a, s in values.values()):
        return _batch.objective_at_values(prob, values, d)
    values = {name: np.asarray(a, dtype=np.float32).reshape(_core_shape(s)) for name, (a, s) in values.items()}
    return _core.objective(prob, _core._result_from_values(values)) + d


def prox_fn_list(where, fns):
    """fns (one prox function or several) as a list; anything else a TypeError naming `where`."""
    fns = [fns] if isinstance(fns, ProxFn) else list(fns)
    for fn in fns:
        if not isinstance(fn, ProxFn):
            raise TypeError("{}: expected prox functions (sum_squares(...), norm1(...), ...), got {}".format(
                where, type(fn).__name__))
    return fns


class Problem:
    """Minimize the sum of prox functions: Problem(f), Problem([f, g]) or Problem(f + g).

    ProxImaL's planning switches (merge, try_split, try_diagonalize, scale, implem, lin_solver) are
    accepted and ignored: ProxGen's planner makes those decisions. ``absorb`` is kept for what it
    means in ProxImaL beyond planning: with absorb=True a leading scalar factor of an argument is
    folded into beta before the argument's constant is taken out (docs/python.md)."""

    def __init__(self, prox_fns, implem=None, try_diagonalize=True, absorb=True, merge=True, try_split=True,
                 try_fast_norm=True, scale=True, psi_fns=None, omega_fns=None, lin_solver="cg", solver="pc"):
        prox_fns = prox_fn_list("Problem", prox_fns)
        if psi_fns is not None or omega_fns is not None:
            raise Error("Problem: psi_fns / omega_fns are not supported; ProxGen's planner splits the terms "
                        "(describe() shows its split)")
        self.prox_fns = prox_fns
        self.implem = implem
        self.try_diagonalize, self.absorb, self.merge = try_diagonalize, absorb, merge
        self.try_split, self.try_fast_norm, self.scale = try_split, try_fast_norm, scale
        self.lin_solver = lin_solver
        self.solver = solver
        self.result = None  # the last solve's proxgen.rt.Result (history, timings, status); a batch: a list
        self._problem = _core_problem(prox_fns, absorb)
        self._batch = _batch.of(self._problem)  # batched data (docs/python.md, "Batches"), or None

    # ProxImaL's setters
    def set_absorb(self, absorb):
        self.absorb = absorb
        self._problem = _core_problem(self.prox_fns, absorb)
        self._batch = _batch.of(self._problem)

    def set_merge(self, merge):
        self.merge = merge

    def set_automatic_frequency_split(self, freq_split):
        self.freq_split = freq_split

    def set_implementation(self, implem=None):
        self.implem = implem

    def set_solver(self, solver):
        self.solver = solver

    def set_lin_solver(self, lin_solver):
        self.lin_solver = lin_solver

    def variables(self):
        return _all_variables(self.prox_fns)

    def describe(self, solver=None):
        """ProxGen's plan for this problem (as C++'s pg::describe prints it)."""
        return _core.describe(self._problem, _solver_name(solver or self.solver))

    def solve(self, solver=None, test_adjoints=False, test_norm=False, show_graph=False, **kwargs):
        """Solves the problem, sets every variable's value and returns the objective (float64). With
        batched data (n members): x.value of shape (n, *x.shape), the n objectives as an array,
        Problem.result a list of n Results (docs/python.md, "Batches")."""
        name = _solver_name(solver or self.solver)
        for flag, value in (("test_adjoints", test_adjoints), ("test_norm", test_norm), ("show_graph", show_graph)):
            if value:
                raise Error("solve: {} is not supported (ProxGen's adjoints and norm bounds are tested in its "
                            "test suite; describe() prints the plan)".format(flag))
        options = self._options(name, kwargs)
        if self._batch is not None:
            return _batch.solve(self, self._batch, options)
        self.result = _core.solve(self._problem, **options)
        for v in self.variables():
            v.value = self.result[v.varname].reshape(v.shape)
        return _core.objective(self._problem, self.result) + sum(fn.d for fn in self.prox_fns)

    def _options(self, name, kwargs):
        opts = {"algorithm": name}
        if name == "hqs":
            opts["max_iters"] = _hqs_iterations(kwargs)
        variables = self.variables()
        for key, value in kwargs.items():
            owners = [s for s, keys in _SOLVER_ONLY.items() if key in keys]
            owner = owners[0] if owners and name not in owners else None
            if key in _UNSUPPORTED:
                if value is not None:
                    raise Error("solve: the argument '{}' is not supported ({})".format(key, _UNSUPPORTED[key]))
            elif owner is not None and owner != name:
                raise TypeError("solve(solver='{}') got an unexpected keyword argument '{}' (a '{}' option)".format(
                    name, key, owner))
            elif key in _IGNORED:
                pass
            elif key == "max_iters":
                if name != "hqs":  # (HQS's: its outer iterations, counted above)
                    opts["max_iters"] = int(value) if value is not None and value >= 0 else 500
            elif key in ("eps_abs", "eps_rel", "tau", "sigma", "mu", "rho", "lmb"):
                if value is not None:
                    opts[key] = float(value)
            elif key == "theta":
                if value is not None and float(value) != 1.0:
                    raise Error("solve: theta={} is not supported (ProxGen's Pock-Chambolle uses theta = 1, "
                                "accelerated when the problem is strongly convex)".format(value))
            elif key == "verbose":
                opts["verbose"] = bool(value)
            elif key == "conv_check":
                opts["check_every"] = int(value)
            elif key == "x0":
                if value is not None:
                    opts.update(_initial(variables, value))
            elif key == "callback":
                opts["callback"] = value
            elif key == "lin_solver_options":
                if isinstance(value, cg_options):
                    opts["cg_tol"], opts["cg_max_iters"] = float(value.tol), int(value.num_iters)
                elif value is not None and not isinstance(value, lsqr_options):
                    raise Error("solve: lin_solver_options must be cg_options or lsqr_options")
            elif key == "rho_0":
                opts["rho"] = float(value)
            elif key == "rho_scale":
                opts["hqs_growth"] = float(value)
            elif key == "rho_max":
                opts["hqs_max_ratio"] = float(value) / float(kwargs.get("rho_0", 1.0))
            elif key == "max_inner_iters":
                opts["hqs_every"] = int(value)
            elif key in _NATIVE:
                opts[key] = value.result if key == "warm_start" and isinstance(value, Problem) else value
            else:
                raise TypeError("solve() got an unexpected keyword argument '{}'".format(key))
        if name == "pc" and "accelerate" not in kwargs and (
                kwargs.get("theta") is not None or (kwargs.get("tau") is not None and kwargs.get("sigma") is not None)):
            # ProxImaL's Pock-Chambolle runs the steps it is given, unchanged: the accelerated
            # variant would shrink tau and grow sigma every iteration, and its O(1/k^2) rate
            # loses to the fixed steps' linear one where the problem has it
            opts["accelerate"] = False
        if "x0_by_name" not in opts and any(v.initval is not None for v in variables):
            # each variable's own initial value (Variable(value=...)); the others start at 0
            opts["x0_by_name"] = {v.varname: _start(v, v.initval, "the initial value (initval) of " + v.varname) for v in variables
                                  if v.initval is not None}
        return opts


def _solver_name(solver):
    if not isinstance(solver, str) or solver not in _SOLVERS:
        raise Error("Unknown solver '{}': the solvers are {}".format(solver, _core.accepted_algorithm_names()))
    return _SOLVERS[solver]


def _start(v, value, what):
    """A variable's start: an array of its shape, or flattened."""
    a = np.asarray(value)
    if a.size != v.size:
        raise Error("solve: {} has {} elements, the variable {} has shape {}".format(what, a.size, v.varname, v.shape))
    return np.ascontiguousarray(a, dtype=np.float32).reshape(_core_shape(v.shape))


def _initial(variables, x0):
    """ProxImaL's x0: the variable's value (its shape or flattened); for several variables, their flat
    values one after another in the problem's order of variables (ProxImaL's solvers take that vector),
    or a dict {variable or its name: value}. Returns the solve options that carry it."""
    if isinstance(x0, dict):
        names = {v.varname: v for v in variables}
        starts = {}
        for key, value in x0.items():
            name = key.varname if hasattr(key, "varname") else key
            if name not in names:
                raise Error("solve: x0 names {}, which is no variable of the problem (its variables: {})".format(
                    name, ", ".join(names)))
            starts[name] = _start(names[name], value, "x0['{}']".format(name))
        return {"x0_by_name": starts}
    if len(variables) == 1:
        return {"x0": _start(variables[0], x0, "x0")}
    a = np.asarray(x0).ravel()
    total = sum(v.size for v in variables)
    if a.size != total:
        raise Error("solve: x0 has {} elements; the problem's variables ({}) hold {} together (x0 is their flat values "
                    "one after another, or a dict by variable)".format(
                        a.size, ", ".join("{} {}".format(v.varname, v.shape) for v in variables), total))
    starts, at = {}, 0
    for v in variables:
        starts[v.varname] = _start(v, a[at:at + v.size], "x0")
        at += v.size
    return {"x0_by_name": starts}
