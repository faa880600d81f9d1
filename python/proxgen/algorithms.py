"""ProxImaL's proximal.algorithms: Problem, the transformations absorb_offset, absorb_lin_op,
can_merge, merge_fns, merge_all, and the solver modules admm (admm), pc (pock_chambolle), hqs
(half_quadratic_splitting), ladmm (linearized_admm).

A solver module's solve(psi_fns, omega_fns, ...) takes ProxImaL's arguments (positional or by
name, ProxImaL's defaults) and minimizes the sum of psi_fns and omega_fns (a function in both is
counted twice, as in ProxImaL) with that algorithm, planned by ProxGen: its own split of the
functions, not necessarily the one given (the minimizer and the returned objective, the sum of the
functions' values, are the same; Problem.describe() shows ProxGen's split). partition(prox_fns)
gives ProxImaL's split of the functions themselves.
"""

import types

import numpy as np

from . import offsets
from ._equil import equil, newton_equil  # noqa: F401 (ProxImaL's algorithms.equil)
from .lin_ops import Variable, mul_elemwise, scale
from .problem import HQS_DEFAULTS, Problem, prox_fn_list
from .prox_fns import (ProxFn, group_norm1, nonneg, norm1, poisson_norm, sum_squares, weighted_group_norm1,
                       weighted_nonneg, weighted_norm1, weighted_poisson_norm, weighted_sum_squares, zero_prox)
from .rt import Error

__all__ = ["Problem", "admm", "pc", "hqs", "ladmm", "pock_chambolle", "half_quadratic_splitting",
           "linearized_admm", "absorb_offset", "absorb_lin_op", "absorb_all_lin_ops", "can_merge", "merge_fns",
           "merge_all", "equil", "absorb", "merge", "problem"]


def absorb_offset(prox_fn):
    """prox_fn with its argument's constant moved into b (b - o) and taken out of the argument
    (ProxImaL's absorb_offset; o in NumPy, docs/python.md)."""
    if not offsets.has_constants(prox_fn.lin_op):
        return prox_fn
    o = offsets.offset(prox_fn.lin_op)
    return prox_fn.copy(offsets.linear_part(prox_fn.lin_op), b=np.asarray(prox_fn.b) - o)


# A leading mul_elemwise folds into the weight of these (ProxImaL's absorb.WEIGHTED)
_WEIGHTED = {nonneg: weighted_nonneg, norm1: weighted_norm1, sum_squares: weighted_sum_squares,
             poisson_norm: weighted_poisson_norm, group_norm1: weighted_group_norm1}


def absorb_lin_op(prox_fn):
    """ProxImaL's absorb_lin_op: the argument's leading scale folded into beta (b / s, c s, gamma s^2),
    a leading mul_elemwise into a weighted function's weight; a list of functions."""
    op = prox_fn.lin_op
    if isinstance(op, Variable):
        return [prox_fn]
    if isinstance(prox_fn, zero_prox) and prox_fn.gamma == 0:
        raise Error("absorb_lin_op: pushing a zero_prox's c through {} (its adjoint in NumPy) is not supported; "
                    "ProxGen's Problem plans it".format(type(op).__name__))
    b, c = np.asarray(prox_fn.b, dtype=np.float64), np.asarray(prox_fn.c, dtype=np.float64)
    if isinstance(op, mul_elemwise) and prox_fn.gamma == 0:
        w, kind = op.weight, type(prox_fn)
        nonzero = w != 0
        new_b = np.where(nonzero, np.broadcast_to(b, w.shape) / np.where(nonzero, w, 1), b)
        if kind in _WEIGHTED:
            fn = _WEIGHTED[kind](op.input_nodes[0], *prox_fn.get_data(), w, **_modifiers(prox_fn, new_b, c * w))
            return [fn]
        if kind in _WEIGHTED.values():
            data = prox_fn.get_data()
            data[-1] = data[-1] * w
            return [kind(op.input_nodes[0], *data, **_modifiers(prox_fn, new_b, c * w))]
    if isinstance(op, scale):
        s = op.scalar
        return [prox_fn.copy(op.input_nodes[0], beta=prox_fn.beta * s, b=b / s, c=c * s, gamma=prox_fn.gamma * s * s)]
    return [prox_fn]


def _modifiers(fn, b, c):
    return {"alpha": fn.alpha, "beta": fn.beta, "b": b, "c": c, "gamma": fn.gamma, "d": fn.d,
            "implem": fn.implem_key}


def absorb_all_lin_ops(prox_funcs):
    """absorb_lin_op repeated until nothing changes."""
    done, ready = [], list(prox_funcs)
    while ready:
        fn = ready.pop(0)
        absorbed = absorb_lin_op(fn)
        if len(absorbed) == 1 and absorbed[0] is fn:
            done.append(fn)
        else:
            ready += absorbed
    return done


def can_merge(lh_prox, rh_prox):
    """Whether two functions of the same argument merge into one: one is a zero_prox or a sum_squares."""
    return lh_prox.lin_op is rh_prox.lin_op and any(type(f) in (zero_prox, sum_squares) for f in (lh_prox, rh_prox))


def merge_fns(lh_prox, rh_prox):
    """The two functions as one: a zero_prox's c, gamma, d, or a sum_squares expanded into c, gamma, d,
    added to the other's."""
    if not can_merge(lh_prox, rh_prox):
        raise Error("merge_fns: these functions cannot be merged (can_merge is False)")
    c = np.asarray(lh_prox.c) + np.asarray(rh_prox.c)
    gamma, d = lh_prox.gamma + rh_prox.gamma, lh_prox.d + rh_prox.d
    pair = [lh_prox, rh_prox]
    kinds = [type(f) for f in pair]
    if zero_prox in kinds:
        return pair[1 - kinds.index(zero_prox)].copy(c=c, gamma=gamma, d=d)
    i = kinds.index(sum_squares)
    sq, other = pair[i], pair[1 - i]
    b = np.asarray(sq.b, dtype=np.float64)
    # alpha ||beta v - b||^2 = alpha beta^2 ||v||^2 - 2 alpha beta <b, v> + alpha ||b||^2
    return other.copy(c=c - 2 * sq.alpha * sq.beta * b, gamma=gamma + sq.alpha * sq.beta ** 2,
                      d=d + sq.alpha * float(np.sum(np.broadcast_to(b, sq.lin_op.shape) ** 2)))


def merge_all(prox_fns):
    """merge_fns applied while any pair can merge."""
    fns = list(prox_fns)
    merged_any = True
    while merged_any:
        merged_any = False
        for i in range(len(fns)):
            for j in range(i + 1, len(fns)):
                if can_merge(fns[i], fns[j]):
                    new = merge_fns(fns[i], fns[j])
                    fns = [new] + [f for k, f in enumerate(fns) if k not in (i, j)]
                    merged_any = True
                    break
            if merged_any:
                break
    return fns


# Each solver module's solve(psi_fns, omega_fns, ...) arguments after the two lists, in ProxImaL's
# order, with ProxImaL's defaults.
_SIGNATURES = {
    "admm": (("rho", 1.0), ("max_iters", 1000), ("eps_abs", 1e-3), ("eps_rel", 1e-3), ("x0", None),
             ("lin_solver", "cg"), ("lin_solver_options", None), ("try_diagonalize", True),
             ("try_fast_norm", False), ("scaled", True), ("conv_check", 100), ("implem", None), ("metric", None),
             ("convlog", None), ("verbose", 0)),
    "pc": (("tau", None), ("sigma", None), ("theta", None), ("max_iters", 1000), ("eps_abs", 1e-3),
           ("eps_rel", 1e-3), ("x0", None), ("lin_solver", "cg"), ("lin_solver_options", None),
           ("conv_check", 100), ("try_diagonalize", True), ("try_fast_norm", False), ("scaled", True),
           ("implem", None), ("metric", None), ("convlog", None), ("verbose", 0), ("callback", None),
           ("adapter", None)),
    "hqs": tuple((k, HQS_DEFAULTS[k]) for k in ("rho_0", "rho_scale", "rho_max", "max_iters", "max_inner_iters")) + (
            ("x0", None), ("eps_rel", 1e-3), ("eps_abs", 1e-3), ("lin_solver", "cg"),
            ("lin_solver_options", None), ("try_diagonalize", True), ("scaled", False), ("try_fast_norm", False),
            ("metric", None), ("convlog", None), ("verbose", 0)),
    "ladmm": (("lmb", 1.0), ("mu", None), ("quad_funcs", None), ("max_iters", 1000), ("eps_abs", 1e-3),
              ("eps_rel", 1e-3), ("lin_solver", "cg"), ("lin_solver_options", None), ("implem", None),
              ("try_diagonalize", True), ("try_fast_norm", True), ("scaled", False), ("metric", None),
              ("convlog", None), ("verbose", 0), ("conv_check", 20)),
}


def _module_solve(name, full_name):
    params = _SIGNATURES[name]
    names = [n for n, _ in params]

    def solve(psi_fns, omega_fns, *args, **kwargs):
        where = "{}.solve".format(full_name)
        if len(args) > len(names):
            raise TypeError("{}() takes at most {} positional arguments after psi_fns and omega_fns ({} given)".format(
                where, len(names), len(args)))
        values = dict(params)
        values.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError("{}() got an unexpected keyword argument '{}'".format(where, key))
            if key in names[:len(args)]:
                raise TypeError("{}() got multiple values for argument '{}'".format(where, key))
            values[key] = value
        fns = []
        for what, given in (("psi_fns", psi_fns), ("omega_fns", omega_fns), ("quad_funcs", values.pop("quad_funcs", None))):
            fns += prox_fn_list("{}: {}".format(where, what), [] if given is None else given)
        if not fns:
            raise Error("{}: psi_fns and omega_fns are both empty (nothing to minimize)".format(where))
        return Problem(fns).solve(solver=name, **values)

    solve.__name__ = "solve"
    solve.__doc__ = ("ProxImaL's {0}.solve(psi_fns, omega_fns, {1}, ...): minimizes the sum of psi_fns and "
                     "omega_fns with {0}, split by ProxGen's planner; sets the variables' values and returns "
                     "the objective.".format(full_name, ", ".join(names[:3])))
    return solve


def _diagonal_quadratics(prox_fns, freq):
    """ProxImaL's quadratics that the x-update takes: sum_squares of an operator diagonal in space
    (freq False) or in frequency (freq True)."""
    return [fn for fn in prox_fns if isinstance(fn, sum_squares) and fn.lin_op.is_diag(freq=freq)]


def _without(fns, removed):
    return [fn for fn in fns if all(fn is not r for r in removed)]


def _module_partition(name, full_name):
    def partition(prox_fns, try_diagonalize=True):
        """ProxImaL's split of prox_fns into (psi_fns, omega_fns), as lists of the functions given."""
        fns = prox_fn_list(full_name + ".partition", prox_fns)
        if name in ("admm", "hqs"):
            # the quadratics of the x-update's linear solve, when every operator keeps it diagonal
            options = {freq: _diagonal_quadratics(fns, freq) if all(fn.lin_op.is_gram_diag(freq=freq) for fn in fns)
                       else [] for freq in (True, False)}
            omega = options[True] if len(options[True]) >= len(options[False]) else options[False]
        else:
            # the largest set of diagonal quadratics, else one function of the bare variable
            spatial, freq = _diagonal_quadratics(fns, False), _diagonal_quadratics(fns, True)
            omega = spatial if len(spatial) >= len(freq) else freq
            if not omega:
                omega = [fn for fn in fns if isinstance(fn.lin_op, Variable)][:1]
        psi = _without(fns, omega)
        if not psi:
            raise Error("{}.partition: the split leaves psi_fns empty (is it a pure least-squares problem?); "
                        "Problem(prox_fns).solve(solver='{}') solves it".format(full_name, name))
        return psi, omega

    partition.__name__ = "partition"
    return partition


def _solver_module(name, full_name):
    m = types.ModuleType("proxgen.algorithms." + full_name, "ProxImaL's {} module: solve(psi_fns, omega_fns, ...) "
                         "and partition(prox_fns).".format(full_name))
    m.solve = _module_solve(name, full_name)
    m.partition = _module_partition(name, full_name)
    return m


admm = _solver_module("admm", "admm")
pc = pock_chambolle = _solver_module("pc", "pock_chambolle")
hqs = half_quadratic_splitting = _solver_module("hqs", "half_quadratic_splitting")
ladmm = linearized_admm = _solver_module("ladmm", "linearized_admm")


def _namespace(name, **members):
    m = types.ModuleType("proxgen.algorithms." + name)
    m.__dict__.update(members)
    return m


absorb = _namespace("absorb", absorb_offset=absorb_offset, absorb_lin_op=absorb_lin_op,
                    absorb_all_lin_ops=absorb_all_lin_ops)
merge = _namespace("merge", can_merge=can_merge, merge_fns=merge_fns, merge_all=merge_all)
problem = _namespace("problem", Problem=Problem)
