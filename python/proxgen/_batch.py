"""Batches, by NumPy's convention: an array with one more leading axis than the expression it
stands against, (n, *shape), holds one array per member; Problem.solve then solves the n problems
of one structure in one call (_core.solve_batch, C++'s rt::solve_batch), each member with its own
slices and the other data shared.

The operators and prox functions check their data against the shape they expect (``check``) and
keep a batch as one NumPy array with its leading axis, so NumPy's arithmetic (b / s, a weight's
zeros, offsets) applies to every member at once. Where an array becomes
ProxGen data (``data``), a batch becomes a named input of a reserved name ('batched_<role>_<k>')
holding member 0's slice, which is what the problem is planned with; a member is the problem with
each such input set to its own slice, as rt::solve_batch's BatchMember.inputs sets it. The slice
is a view into the whole stack (stored so that every member's slice is in ProxGen's layout and is
used without a copy), and the expressions built from it keep it, hence the stack, alive: the
registry below only maps names to live stacks.
"""

import itertools
import weakref

import numpy as np

from . import _core, rt
from .rt import Error

_PREFIX = "batched_"
_count = itertools.count()
# name -> member 0's slice (a _First, whose .stack is the whole batch); entries go with the slice
_registry = weakref.WeakValueDictionary()


class _First(np.ndarray):
    """Member 0's slice of a batch, carrying the batch (``stack``): the array ProxGen borrows."""


def _core_shape(shape):
    """lin_ops' rule (which imports this module): a 1-D (m,) is held as (1, m)."""
    return (1,) + tuple(shape) if len(shape) == 1 else tuple(shape)


def size(a, shape):
    """n when the array a holds one array of `shape` per member, (n, *shape); None otherwise."""
    s = np.shape(a)
    return s[0] if len(s) == len(shape) + 1 and tuple(s[1:]) == tuple(shape) else None


def check(a, shape, what):
    """n when a is a batch of `shape`; None when a has not one axis more than `shape`; an error naming
    `what` when it has, but is not a batch of `shape` (its extra axis elsewhere than in front, or
    other sizes)."""
    s = tuple(np.shape(a))
    if len(s) != len(shape) + 1:
        return None
    if size(a, shape) is not None:
        return s[0]
    raise Error("{}: an array of shape {} against an expression of shape {}: an array with one more axis is a "
                "batch, its members along the FIRST axis, each of the expression's shape: (n, {}); this one's "
                "axes after the first are {} (np.moveaxis(a, axis, 0) puts the members' axis first)".format(
                    what, s, tuple(shape), ", ".join(str(d) for d in shape), s[1:]))


def broadcast(a, shape, what):
    """a broadcast to `shape`, or kept a batch of it (n, *shape)."""
    n = check(a, shape, what)
    return np.broadcast_to(a, shape if n is None else (n,) + tuple(shape))


def core(a, shape):
    """a (of ProxImaL shape `shape`, or a batch of it) in ProxGen's shape (a 1-D (m,) is (1, m))."""
    n = size(a, shape)
    return np.reshape(a, _core_shape(shape) if n is None else (n,) + _core_shape(shape))


def sizes(pairs, what):
    """The common n of the batches among (array, shape) pairs, or None if none is a batch; members
    of different n are an error naming both."""
    found = [(size(a, s), label) for a, s, label in pairs if size(a, s) is not None]
    for n, label in found[1:]:
        if n != found[0][0]:
            raise Error("{}: {} holds {} batch members, {} holds {}: every batched array of one problem needs the "
                        "same number of members".format(what, found[0][1], found[0][0], label, n))
    return found[0][0] if found else None


def decide(test, a, shape, what):
    """test(array of `shape`) where it decides the problem's structure (which terms exist): for a batch,
    the answer every member gives; members that answer differently would each be another problem
    (not solvable in one batch), which is an error."""
    n = size(a, shape)
    if n is None:
        return test(a)
    answers = [bool(test(a[i])) for i in range(n)]
    if len(set(answers)) > 1:
        raise Error("{}: batch member {} and member {} differ in it, which makes them problems of different "
                    "structure; solve them in separate batches".format(what, answers.index(True),
                                                                      answers.index(False)))
    return answers[0]


def _stacked(a):
    """a (n, *core) as float32 whose slices a[i] are each in ProxGen's layout (x fastest, then y, then
    the further axes: arrays.hpp), so that ProxGen uses every slice without a copy."""
    a = np.asarray(a)
    r = a.ndim - 1
    if r <= 2:
        return np.ascontiguousarray(a, dtype=np.float32)
    # stored (n, s[r-1], ..., s[2], s[0], s[1]) in C order, viewed as (n, s[0], s[1], ..., s[r-1])
    storage = np.empty((a.shape[0],) + a.shape[r:2:-1] + a.shape[1:3], dtype=np.float32)
    where = [r - 1, r] + [r - k for k in range(2, r)]  # storage axis of each member axis
    stack = storage.transpose([0] + where)
    stack[...] = a
    return stack


def data(a, core_shape, role):
    """a as ProxGen data against an expression of ProxGen shape `core_shape`: a itself, or for a batch
    (n, *core_shape) a named input holding member 0's slice (module docstring). ``role`` names it
    ('offset', 'weight', ...) in the problem's text and in messages."""
    if np.ndim(a) != len(core_shape) + 1:
        return a
    stack = _stacked(a)
    first = stack[0].view(_First)
    first.stack = stack
    name = "{}{}_{}".format(_PREFIX, role, next(_count))
    d = rt.input(name, first)
    if not d.borrowed:  # the problem keeps the stack alive through this slice
        raise AssertionError("proxgen: a batch's slice was copied (a proxgen bug)")
    _registry[name] = first
    return d


class Batch:
    """The batched data of a core problem: n, and each reserved input's stack."""

    def __init__(self, stacks):
        self.stacks = stacks
        self.n = next(iter(stacks.values())).shape[0]

    def members(self):
        """rt::solve_batch's members: each one's slices by input name."""
        return [{name: s[i] for name, s in self.stacks.items()} for i in range(self.n)]

    def member(self, core_problem, i):
        """The core problem with member i's data (what the batch solves for member i)."""
        p = core_problem.copy()
        for name, s in self.stacks.items():
            p.set_input(name, s[i])
        return p


def of(core_problem):
    """The Batch of a core problem, or None if it holds no batched data; batches of different n are an
    error naming both sizes."""
    stacks = {}
    for name in core_problem.inputs():
        if name.startswith(_PREFIX):
            first = _registry.get(name)
            if first is None:
                raise AssertionError("proxgen: batched input '{}' has no stack (a proxgen bug)".format(name))
            stacks[name] = first.stack
    if not stacks:
        return None
    (name0, s0), *rest = stacks.items()
    for name, s in rest:
        if s.shape[0] != s0.shape[0]:
            raise Error("Problem: its batched data disagree on the number of members: {} has {} members, {} has {}; "
                        "every batched array of one problem needs the same leading size n".format(
                            _described(name0), s0.shape[0], _described(name), s.shape[0]))
    return Batch(stacks)


def _described(name):
    role = name[len(_PREFIX):].rsplit("_", 1)[0].replace("_", " ")
    return "the batched {} '{}'".format(role, name)


def solve(problem, batch, options):
    """Problem.solve for a batch (docs/python.md, "Batches"): one _core.solve_batch call; sets each
    variable's value to (n, *shape) (NaN for a failed member) and Problem.result to the n Results;
    returns the n objectives; raises after that if any member failed."""
    if options.get("callback") is not None:
        raise Error("solve: callback= is not supported with a batch (its {} members run side by side); solve a "
                    "member alone to follow its iterations".format(batch.n))
    results = list(_core.solve_batch(problem._problem, batch.members(), **options))
    problem.result = results
    failed = [i for i, r in enumerate(results) if r.status == "failed"]
    for v in problem.variables():
        value = np.full((batch.n,) + v.shape, np.nan, dtype=np.float32)
        for i, r in enumerate(results):
            if i not in failed:
                value[i] = r[v.varname].reshape(v.shape)
        v._value = value
    d = sum(fn.d for fn in problem.prox_fns)
    objectives = np.full(batch.n, np.nan)
    for i, r in enumerate(results):
        if i not in failed:
            objectives[i] = _core.objective(batch.member(problem._problem, i), r) + d
    if failed:
        e = Error("solve: {} of {} batch members failed, the others are solved (the variables' values hold them, "
                  "NaN for the failed; Problem.result[i] has each member's status and message): {}".format(
                      len(failed), batch.n, "; ".join(results[i].message for i in failed)))
        e.failed, e.objectives = failed, objectives
        raise e
    return objectives


def objective_at_values(core_problem, values, d):
    """The objective (plus d) at the variables' values {name: (value, shape)} where the problem or a
    value is a batch: one objective per member (float64 array), NaN where a member's values are."""
    batch = of(core_problem)
    n = sizes([(v, s, "the value of variable '{}'".format(name)) for name, (v, s) in values.items()],
              "ProxFn.value")
    if batch is not None and n is not None and n != batch.n:
        raise Error("ProxFn.value: the variables' values hold {} batch members, the problem's data {}".format(
            n, batch.n))
    n = batch.n if batch is not None else n
    out = np.full(n, np.nan)
    for i in range(n):
        member = {name: (v[i] if size(v, s) is not None else v) for name, (v, s) in values.items()}
        if any(np.isnan(v).any() for v in member.values()):
            continue  # a failed member's values
        prob = core_problem if batch is None else batch.member(core_problem, i)
        at = _core._result_from_values({name: core(v, values[name][1]) for name, v in member.items()})
        out[i] = _core.objective(prob, at) + d
    return out
