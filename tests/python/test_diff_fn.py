"""ProxImaL's diff_fn with Python functions: its prox (L-BFGS on the host inside ProxGen's kernels)
against closed forms, with modifiers; problems with one reach the optimum computed here; bounds and
failing functions are clear errors."""

import numpy as np
import pytest

import proxgen as px
from proxgen import Problem, Variable, diff_fn, sum_squares

rng = np.random.default_rng(12)


def squares(x):
    return np.square(x).sum()


def squares_grad(x):
    return 2 * x


def test_prox_of_squares_and_of_neg_log_match_their_closed_forms():
    v = np.arange(10) * 1.0 - 5.0
    x = diff_fn(Variable(10), squares, squares_grad).prox(1.0, v.copy())
    np.testing.assert_allclose(x, v / 3, atol=1e-5)
    v = np.arange(5) * 2.0 + 1
    x = diff_fn(Variable(5), lambda t: -np.log(t).sum(), lambda t: -1.0 / t).prox(2.0, v.copy())
    np.testing.assert_allclose(x, (v + np.sqrt(v ** 2 + 2)) / 2, rtol=1e-5)


def test_prox_with_alpha_and_a_problem_with_beta():
    # alpha ||t||^2 + rho/2 ||t - v||^2: t = rho v / (rho + 2 alpha)
    v = rng.standard_normal((6, 7))
    x = diff_fn(Variable((6, 7)), squares, squares_grad, alpha=3.0).prox(2.0, v.copy())
    np.testing.assert_allclose(x, 2.0 * v / (2.0 + 2 * 3.0), atol=1e-5)
    # ||x - b||^2 + ||beta x||^2 is least at x = b / (1 + beta^2)
    b = rng.random((6, 7))
    y = Variable((6, 7))
    Problem([sum_squares(y - b), diff_fn(y, squares, squares_grad, beta=0.5)]).solve(
        solver="pc", max_iters=2000, eps_abs=1e-7, eps_rel=1e-7)
    np.testing.assert_allclose(y.value, b / 1.25, atol=1e-3)


@pytest.mark.parametrize("solver", ["pc", "ladmm", "admm"])
def test_a_problem_with_a_python_diff_fn_reaches_its_optimum(solver):
    b = rng.random((9, 11))
    x = Variable((9, 11))
    value = Problem([sum_squares(x - b), diff_fn(x, squares, squares_grad, alpha=2.0)]).solve(
        solver=solver, max_iters=2000, eps_abs=1e-7, eps_rel=1e-7)
    # ||x - b||^2 + 2 ||x||^2 is least at x = b / 3, where it is (2/3) ||b||^2
    np.testing.assert_allclose(x.value, b / 3, atol=1e-3)
    assert value == pytest.approx(2.0 / 3.0 * np.square(b).sum(), rel=1e-4)


def test_bounds_and_failing_functions_are_errors():
    x = Variable((4, 5))
    with pytest.raises(px.Error, match="bounds are not supported"):
        diff_fn(x, squares, squares_grad, bounds=[(0, 1)] * 20)

    def bad_gradient(t):
        raise RuntimeError("the gradient is not implemented")

    prob = Problem([sum_squares(x - 1.0), diff_fn(x, squares, bad_gradient)])
    with pytest.raises(px.Error, match="the gradient is not implemented"):
        prob.solve(solver="pc", max_iters=10)
    with pytest.raises(px.Error, match="fprime returned 3 values for an argument of shape"):
        Problem([sum_squares(x - 1.0), diff_fn(x, squares, lambda t: np.zeros(3))]).solve(solver="pc", max_iters=10)
