"""ProxImaL's black-box operators (LinOpFactory): Python functions run as host callbacks inside
ProxGen's kernels. As NumPy functions they give the functions' values; in a problem they reach the
optimum of the same problem written with built-in operators; a wrong adjoint is refused by the
dot-product test; an exception in a function fails the solve with its message."""

import numpy as np
import pytest

import proxgen as px
from proxgen import LinOpFactory, Problem, Variable, conv, grad, group_norm1, sum_squares

rng = np.random.default_rng(11)
H, W = 14, 18
B = rng.random((H, W))


def shift_forward(i, o):
    o[:] = 2 * np.roll(i, 1, axis=1)  # o(y, x) = 2 i(y, x - 1), circular


def shift_adjoint(i, o):
    o[:] = 2 * np.roll(i, -1, axis=1)


# the same operator built in: a circular convolution whose one tap (centre (1, 1)) reads x - 1
DELTA = np.zeros((3, 3))
DELTA[1, 2] = 2.0


def test_a_black_box_applies_its_functions():
    x = Variable((2, 2))
    op = LinOpFactory((2, 2), (2, 2), lambda i, o: np.copyto(o, 2 * i), lambda i, o: np.copyto(o, 2 * i), 2)
    expr = op(x)
    val = np.arange(4.0).reshape(2, 2)
    x.value = val
    np.testing.assert_allclose(expr.value, 2 * val)
    out = np.zeros((2, 2))
    expr.forward([val], [out])
    np.testing.assert_allclose(out, 2 * val)
    expr.adjoint([val + 1], [out])
    np.testing.assert_allclose(out, 2 * (val + 1))


def test_a_black_box_equals_the_built_in_operator():
    x = Variable((H, W))
    S = LinOpFactory((H, W), (H, W), shift_forward, shift_adjoint)
    np.testing.assert_allclose(S(x).forward([B]), conv(DELTA, x).forward([B]), atol=1e-5)


@pytest.mark.parametrize("solver", ["pc", "ladmm", "admm"])
def test_a_problem_with_a_black_box_reaches_the_built_in_optimum(solver):
    x = Variable((H, W))
    S = LinOpFactory((H, W), (H, W), shift_forward, shift_adjoint)
    got = Problem([sum_squares(S(x) - B), 0.05 * group_norm1(grad(x))]).solve(
        solver=solver, max_iters=3000, eps_abs=1e-6, eps_rel=1e-6)
    y = Variable((H, W))
    ref = Problem([sum_squares(conv(DELTA, y) - B), 0.05 * group_norm1(grad(y))]).solve(
        solver="pc", max_iters=6000, eps_abs=1e-6, eps_rel=1e-6)
    assert abs(got - ref) <= 1e-4 * abs(ref)
    np.testing.assert_allclose(x.value, y.value, atol=2e-3)


def test_a_black_box_of_another_shape():
    """2x2 averaging to half size (ProxImaL's output_shape), against the same sums written in NumPy."""
    def down(i, o):
        o[:] = 0.25 * (i[0::2, 0::2] + i[1::2, 0::2] + i[0::2, 1::2] + i[1::2, 1::2])

    def up(i, o):
        o[:] = 0.25 * np.kron(i, np.ones((2, 2)))

    x = Variable((H, W))
    D = LinOpFactory((H, W), (H // 2, W // 2), down, up)
    assert D(x).shape == (H // 2, W // 2)
    small = rng.random((H // 2, W // 2))
    value = Problem([sum_squares(D(x) - small), 0.01 * group_norm1(grad(x))]).solve(
        solver="pc", max_iters=4000, eps_abs=1e-6, eps_rel=1e-6)
    # the objective at the solution, computed here
    xs = x.value.astype(np.float64)
    d = 0.25 * (xs[0::2, 0::2] + xs[1::2, 0::2] + xs[0::2, 1::2] + xs[1::2, 1::2]) - small
    gx = np.diff(xs, axis=1, append=xs[:, -1:])
    gy = np.diff(xs, axis=0, append=xs[-1:, :])
    assert value == pytest.approx(np.sum(d * d) + 0.01 * np.sum(np.sqrt(gx * gx + gy * gy)), rel=1e-4)
    # and the optimum: no worse than the data-matching upsampled image
    up_x = np.kron(small, np.ones((2, 2)))
    gx = np.diff(up_x, axis=1, append=up_x[:, -1:])
    gy = np.diff(up_x, axis=0, append=up_x[-1:, :])
    assert value <= 0.01 * np.sum(np.sqrt(gx * gx + gy * gy)) + 1e-6


def test_a_wrong_adjoint_is_refused():
    x = Variable((H, W))
    with pytest.raises(px.Error, match="dot-product test"):
        LinOpFactory((H, W), (H, W), shift_forward, lambda i, o: np.copyto(o, 3 * i))(x)
    with pytest.raises(px.Error, match="takes shape"):
        LinOpFactory((H + 1, W), (H + 1, W), shift_forward, shift_adjoint)(x)


def test_an_exception_in_a_function_fails_the_solve_with_its_message():
    broken = [False]

    def flaky(i, o):
        if broken[0]:
            raise ValueError("the lens model is missing")
        shift_forward(i, o)

    x = Variable((H, W))
    S = LinOpFactory((H, W), (H, W), flaky, shift_adjoint, 2.0)
    prob = Problem([sum_squares(S(x) - B), 0.05 * group_norm1(grad(x))])
    broken[0] = True
    with pytest.raises(px.Error, match="the lens model is missing"):
        prob.solve(solver="ladmm")
    broken[0] = False  # and the same problem solves once the function works
    assert np.isfinite(prob.solve(solver="ladmm", max_iters=50))
