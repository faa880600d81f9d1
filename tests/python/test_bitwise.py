"""Every operator and penalty through Python gives the C++ result bit for bit: each problem of
reference_cases.cpp, built in C++ and in Python (proxgen.rt, and ProxImaL's names where they mean
the same), solved for a fixed number of iterations."""

import functools

import numpy as np
import pytest

import cases
import proxgen as pg
from proxgen import rt

ITERS = 30
# every case with Pock-Chambolle; the other solvers on the smallest case (what they add is the
# binding's options and the algorithm's plan: JIT-compiling the large cases once more per solver
# would add minutes of CI time and test the same prox and operator code)
RUNS = [(name, "pc") for name in sorted(cases.RT)] + [("rt_only", alg) for alg in ("admm", "ladmm", "hqs")]


def numpy_order(flat, sizes):
    """Flat Halide-order values (x fastest) as a NumPy array [y, x, c, ...]."""
    a = np.asarray(flat, dtype=np.float32).reshape(tuple(reversed(sizes)))  # axes: ..., c, y, x
    r = len(sizes)
    return np.transpose(a, [r - 1 - h for h in [1, 0] + list(range(2, r))])


@functools.lru_cache(maxsize=None)
def _reference(module, name, alg):
    flat, sizes, objective = module.solve(name, alg, ITERS)
    return numpy_order(flat, sizes), objective


def check_same(x, objective, ref_x, ref_objective):
    assert x.dtype == np.float32
    assert x.shape == ref_x.shape
    assert np.ptp(ref_x) > 0, "the reference solution is constant: the case tests nothing"
    mismatch = np.flatnonzero(x.ravel() != ref_x.ravel())
    assert mismatch.size == 0, "{} of {} values differ, e.g. {} vs {}".format(
        mismatch.size, x.size, x.ravel()[mismatch[:3]], ref_x.ravel()[mismatch[:3]])
    assert objective == ref_objective


@pytest.mark.parametrize("name,alg", RUNS)
def test_rt_matches_cpp(reference, name, alg):
    ref_x, ref_objective = _reference(reference, name, alg)
    prob = cases.RT[name]()
    assert rt.describe(prob, alg) == reference.describe(name, alg)
    res = rt.solve(prob, algorithm=alg, max_iters=ITERS, eps_abs=0, eps_rel=0)
    assert res.iterations == ITERS
    check_same(res["x"], rt.objective(prob, res), ref_x, ref_objective)


@pytest.mark.parametrize("name", sorted(cases.PROXIMAL))
def test_proximal_names_match_cpp(reference, name):
    ref_x, ref_objective = _reference(reference, name, "pc")
    x, fns = cases.PROXIMAL[name]()
    prob = pg.Problem(fns)
    assert prob.describe("pc") == reference.describe(name, "pc")
    objective = prob.solve(solver="pc", max_iters=ITERS, eps_abs=0, eps_rel=0)
    check_same(x.value, objective, ref_x, ref_objective)


def test_every_catalogue_entry_is_covered():
    """Each operator and penalty of the run-time catalogue appears in a case (or is one whose code is
    the program's — Halide in C++, host functions in Python — which a case shared with C++ cannot carry)."""
    import inspect

    source = inspect.getsource(cases)
    needs_halide = {"user_operator", "diff_fn"}
    arithmetic = {"add", "subtract", "negate", "scale"}  # Python's operators: +, -, unary -, s *
    missing = [s["name"] for s in rt.catalogue()
               if s["name"] not in needs_halide | arithmetic and "rt.{}(".format(s["name"]) not in source]
    assert missing == []
