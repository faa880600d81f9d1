"""ProxImaL-style scripts (`from proxgen import *`, ProxImaL's names and keywords) reach what the C++
tests reach: the canonical problems of tests/test_canonical.cpp on the same data (the typed C++
API's objective after the same iterations, and the long-run optimum within 1e-4), and the
solutions of tests ported from ProxImaL's own test suite."""

import functools
import itertools

import numpy as np
import pytest

from proxgen import *  # noqa: F401,F403  (what a ProxImaL script writes)
import proxgen

SIZE = 64
LONG_RUN = 3000


def numpy_order(flat, sizes):
    a = np.asarray(flat, dtype=np.float32).reshape(tuple(reversed(sizes)))
    r = len(sizes)
    return np.transpose(a, [r - 1 - h for h in [1, 0] + list(range(2, r))])


@functools.lru_cache(maxsize=None)
def canonical_data(reference, kind):
    return {k: numpy_order(*v) for k, v in reference.canonical_data(kind, SIZE).items()}


@functools.lru_cache(maxsize=None)
def long_run_optimum(reference, kind):
    objective, shift, _ = reference.solve_canonical(kind, SIZE, "admm", LONG_RUN)
    return objective + shift


def script(kind, data):
    """The canonical problem as a ProxImaL user writes it: (problem, variable, x0)."""
    b = data["b"]
    x = Variable(b.shape)
    if kind == "denoise":
        return Problem(sum_squares(x - b) + 0.1 * group_norm1(grad(x), [2])), x, None
    if kind == "deconv":
        K = data["kernel"]
        return Problem(sum_squares(conv(K, x) - b) + 0.002 * group_norm1(grad(x), [2]) + nonneg(x)), x, None
    K = data["kernel"]
    return Problem(poisson_norm(conv(K, x), b) + 0.02 * group_norm1(grad(x), [2])), x, b


# (problem, solver, iterations): the budgets of tests/test_canonical.cpp; denoise's from bench traces
RUNS = [("denoise", "pc", 300), ("denoise", "admm", 400), ("deconv", "admm", 500), ("deconv", "ladmm", 1000),
        ("poisson", "admm", 800), ("poisson", "pc", 1200)]


@pytest.mark.parametrize("kind,solver,iters", RUNS)
def test_canonical_script_reaches_the_cpp_objective(reference, kind, solver, iters):
    prob, x, x0 = script(kind, canonical_data(reference, kind))
    value = prob.solve(solver=solver, max_iters=iters, eps_abs=0, eps_rel=0, x0=x0)
    cpp_objective, shift, cpp_iters = reference.solve_canonical(kind, SIZE, solver, iters)
    assert prob.result.iterations == cpp_iters == iters
    assert x.value.shape == (SIZE, SIZE) and x.value.dtype == np.float32
    # the typed C++ API and the Python script plan and run the same problem: the same objective
    assert value == pytest.approx(cpp_objective, rel=1e-9, abs=1e-9)
    best = long_run_optimum(reference, kind)
    assert abs(value + shift - best) <= 1e-4 * abs(best)


def test_readme_denoising_script():
    """ProxImaL's README example (scipy's 'ascent' replaced by a synthetic image)."""
    yy, xx = np.mgrid[0:96, 0:128]
    I = 255.0 * ((xx // 32 + yy // 24) % 2) * 0.6 + 40.0
    np.random.seed(1)
    b = I + 10 * np.random.randn(*I.shape)

    x = Variable(I.shape)
    prob = Problem(sum_squares(x - b / 255) + .1 * norm1(grad(x)) + nonneg(x))
    result = prob.solve()
    assert np.isfinite(result)
    assert x.value.shape == I.shape and x.value.min() >= 0
    noisy_error = np.abs(b / 255 - I / 255).mean()
    assert np.abs(x.value - I / 255).mean() < 0.5 * noisy_error
    assert result == pytest.approx(sum(fn.value for fn in prob.prox_fns), rel=1e-9)


def test_proximal_single_prox_fn():
    """proximal/tests/test_algs.py::test_admm_single_prox_fn (with Problem.solve)."""
    X = Variable((10, 5))
    B = np.reshape(np.arange(50), (10, 5)) * 1.
    sltn = Problem([sum_squares(X, b=B)]).solve(solver="admm", eps_abs=1e-4, eps_rel=1e-4)
    np.testing.assert_allclose(X.value, B, atol=2e-2)
    assert abs(sltn) < 1e-3
    sltn = Problem([norm1(X, b=B, beta=2)]).solve(solver="admm")
    np.testing.assert_allclose(X.value, B / 2., atol=2e-2)
    assert abs(sltn) < 1e-2


@pytest.mark.parametrize("solver", ["admm", "pc", "ladmm", "hqs"])
def test_proximal_two_prox_fns(solver):
    """test_admm_two_prox_fn: norm1(X) + sum_squares(X, b=B); the solution is a soft threshold."""
    X = Variable((10, 5))
    B = np.reshape(np.arange(50), (10, 5)) * 1.
    iterations = 20 if solver == "hqs" else 2000  # (HQS's: outer iterations of 100, as in ProxImaL)
    sltn = Problem([norm1(X), sum_squares(X, b=B)]).solve(solver=solver, eps_rel=1e-5, eps_abs=1e-5,
                                                          max_iters=iterations)
    expected = np.sign(B) * np.maximum(np.abs(B) - 0.5, 0)
    # HQS solves a penalized problem whose solution tends to the true one as rho grows: ProxGen
    # stops growing it at rho_0 * 1e5, which leaves a bias of a few hundredths here
    np.testing.assert_allclose(X.value, expected, atol=5e-2 if solver == "hqs" else 2e-2)
    assert sltn == pytest.approx(np.abs(expected).sum() + ((expected - B) ** 2).sum(), rel=1e-3)


def test_proximal_extra_params():
    """test_admm_extra_param: sum_squares with alpha, beta, gamma and c:
    0.1 (2x - B)^2 + x^2 + |x| + B x per element, minimized at -max(0.6 B - 1, 0) / 2.8 (B >= 0)."""
    X = Variable((10, 5))
    B = np.reshape(np.arange(50), (10, 5)) * 1.
    sltn = Problem([norm1(X), sum_squares(X, b=B, alpha=0.1, beta=2., gamma=1, c=B)]).solve(
        solver="admm", eps_rel=1e-5, eps_abs=1e-5, max_iters=3000)
    expected = -np.maximum(0.6 * B - 1, 0) / 2.8
    np.testing.assert_allclose(X.value, expected, atol=2e-2)
    cost = 0.1 * (2 * expected - B) ** 2 + expected ** 2 + np.abs(expected) + B * expected
    assert sltn == pytest.approx(cost.sum(), rel=1e-3)


def test_proximal_1d_conv_with_nonneg():
    """The 1-D convolution of test_admm_extra_param: nonneg(x) + sum_squares(conv(kernel, x), b=b),
    against the non-negative least-squares solution (every support tried)."""
    kernel = np.array([1, 2, 3])
    x = Variable(3)
    b = np.array([-41, 413, 2])
    sltn = Problem([nonneg(x), sum_squares(conv(kernel, x), b=b)]).solve(
        solver="admm", eps_abs=1e-5, eps_rel=1e-5, max_iters=5000)
    K = np.array([[2, 1, 3], [3, 2, 1], [1, 3, 2]], dtype=float)  # ProxImaL's circular kernel matrix
    best = None
    for support in itertools.product([0, 1], repeat=3):
        cols = [i for i in range(3) if support[i]]
        z = np.zeros(3)
        if cols:
            z[cols] = np.linalg.lstsq(K[:, cols], b, rcond=None)[0]
        if (z >= -1e-12).all() and (best is None or np.sum((K @ z - b) ** 2) < np.sum((K @ best - b) ** 2)):
            best = z
    np.testing.assert_allclose(x.value, best, atol=2e-2 * max(1, np.abs(best).max()))
    assert np.sqrt(sltn) == pytest.approx(np.linalg.norm(K @ best - b), rel=2e-2)


def test_proximal_semantics_names_exported():
    """`from proxgen import *` brings ProxImaL's names (and shadows sum as ProxImaL's does)."""
    for name in ["Variable", "Problem", "conv", "conv_nofft", "grad", "mul_elemwise", "subsample", "uneven_subsample",
                 "vstack", "hstack", "warp", "mul_color", "reshape", "transpose", "scale", "sum", "copy", "Constant",
                 "sum_squares", "weighted_sum_squares", "least_squares", "norm1", "weighted_norm1", "group_norm1",
                 "weighted_group_norm1", "nonneg", "weighted_nonneg", "masked_nonneg", "poisson_norm",
                 "weighted_poisson_norm", "sum_entries", "zero_prox", "patch_NLM", "Impl", "cg_options"]:
        assert name in globals(), name
    assert sum([1, 2, 3]) == 6  # not a lin op: Python's sum
