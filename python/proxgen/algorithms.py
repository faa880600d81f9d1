"""ProxImaL's proximal.algorithms: Problem, the transformations absorb_offset, absorb_lin_op,
can_merge, merge_fns, merge_all, and the solver modules admm (admm), pc (pock_chambolle), hqs
(half_quadratic_splitting), ladmm (linearized_admm).

A solver module's solve(psi_fns, omega_fns, ...) and partition(prox_fns) are ProxImaL's manual
split of the functions between the algorithm's two parts; ProxGen's planner makes that split
itself, so they raise proxgen.Error: Problem(fns).solve(solver=...) solves the same problem.
"""

import types

import numpy as np

from . import offsets
from .lin_ops import Variable, mul_elemwise, scale
from .problem import Problem
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


def equil(*args, **kwargs):
    raise Error("equil: ProxImaL's matrix equilibration is not supported (ProxGen chooses its own steps)")


def _not_yet(name, what):
    def refuse(*args, **kwargs):
        raise Error("{}.{}: ProxImaL's manual split of the functions (psi_fns / omega_fns) is not supported yet; "
                    "use Problem(prox_fns).solve(solver='{}'), whose planner splits them".format(name, what, name))

    refuse.__name__ = what
    return refuse


def _solver_module(name, full_name):
    m = types.ModuleType("proxgen.algorithms." + full_name, "ProxImaL's {} module: its solve and partition "
                         "(a manual split) are not supported yet; Problem.solve(solver='{}') is.".format(full_name, name))
    m.solve = _not_yet(name, "solve")
    m.partition = _not_yet(name, "partition")
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
