"""Several variables in every ProxImaL feature the package has: ProxImaL's modifiers and offsets,
the solver modules' solve(psi_fns, omega_fns), operators as NumPy functions, black-box operators and
diff_fn over expressions of two variables, the transforms (absorb, merge) and batches — each against
a closed form or a reference computed here."""

import numpy as np
import pytest

import proxgen as px
from proxgen.algorithms import absorb_lin_op, absorb_offset, admm, hqs, ladmm, merge_all, pc

rng = np.random.default_rng(21)
SHAPE = (6, 5)
B = rng.standard_normal(SHAPE)
C = rng.standard_normal(SHAPE)
TIGHT = dict(max_iters=4000, eps_abs=1e-7, eps_rel=1e-7)
SOLVERS = ["pc", "ladmm", "admm", "hqs"]


@pytest.mark.parametrize("solver", SOLVERS)
def test_offsets_and_beta_of_a_two_variable_argument_mean_what_they_mean_in_proximal(solver):
    # ProxImaL absorbs the argument's constant unscaled: sum_squares(x + y - B, beta=2) is
    # ||2 (x + y) - B||^2, minimised with ||x - y - C||^2 at x + y = B/2, x - y = C
    x, y = px.Variable(SHAPE), px.Variable(SHAPE)
    prob = px.Problem([px.sum_squares(x + y - B, beta=2), px.sum_squares(x - y - C)])
    prob.solve(solver=solver, **TIGHT)
    tol = 1e-3 if solver == "hqs" else 1e-4
    np.testing.assert_allclose(x.value, (B / 2 + C) / 2, atol=tol)
    np.testing.assert_allclose(y.value, (B / 2 - C) / 2, atol=tol)


@pytest.mark.parametrize("module", [admm, pc, ladmm, hqs], ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_solver_modules_split_and_solve_two_coupled_variables(module):
    x, y = px.Variable(SHAPE), px.Variable(SHAPE)
    # positive data: the constraint is inactive at the normal equations' solution (a pure
    # least-squares problem has nothing to split: partition says so, as ProxImaL's does)
    b, c = 1 + np.abs(B), 1 + np.abs(C)
    fns = [px.sum_squares(x - b), px.sum_squares(y - c), px.sum_squares(x - y), px.nonneg(x)]
    psi, omega = module.partition(fns)
    assert sorted(map(id, psi + omega)) == sorted(map(id, fns))
    value = module.solve(psi, omega, max_iters=4000, eps_abs=1e-7, eps_rel=1e-7)
    xs, ys = (2 * b + c) / 3, (b + 2 * c) / 3  # the normal equations' solution
    tol = 1e-3 if module is hqs else 1e-4
    np.testing.assert_allclose(x.value, xs, atol=tol)
    np.testing.assert_allclose(y.value, ys, atol=tol)
    expected = ((xs - b) ** 2).sum() + ((ys - c) ** 2).sum() + ((xs - ys) ** 2).sum()
    assert value == pytest.approx(expected, rel=1e-4)


def test_an_expression_of_two_variables_as_a_numpy_function():
    x, y = px.Variable(SHAPE), px.Variable(SHAPE)
    k = rng.random((3, 3))
    e = px.conv(k, x) + px.mul_elemwise(B, y) + C
    K = px.CompGraph(e)
    assert K.input_size == 2 * B.size and K.output_size == B.size
    u, w = rng.standard_normal(K.input_size), rng.standard_normal(K.output_size)
    assert K.forward(u) @ w == pytest.approx(u @ K.adjoint(w), rel=1e-5)  # the dot-product test
    X, Y = rng.standard_normal(SHAPE), rng.standard_normal(SHAPE)
    x.value, y.value = X, Y
    conv_x = px.conv(k, px.Variable(SHAPE)).forward([X])
    np.testing.assert_allclose(e.value, conv_x + B * Y + C, atol=1e-5)
    np.testing.assert_allclose(e.get_offset(), C)
    assert not e.is_diag() and px.mul_elemwise(B, y).is_diag()


@pytest.mark.parametrize("solver", ["pc", "ladmm", "admm"])
def test_a_black_box_beside_a_second_variable(solver):
    def double(a, out):
        out[:] = 2 * a

    op = px.LinOpFactory(SHAPE, SHAPE, double, double, norm_bound=2.0)
    x, y = px.Variable(SHAPE), px.Variable(SHAPE)
    px.Problem([px.sum_squares(op(x) + y - B), px.sum_squares(y - C)]).solve(solver=solver, **TIGHT)
    np.testing.assert_allclose(y.value, C, atol=1e-4)
    np.testing.assert_allclose(x.value, (B - C) / 2, atol=1e-4)


@pytest.mark.parametrize("solver", ["pc", "ladmm", "admm"])
def test_a_diff_fn_of_two_variables(solver):
    x, y = px.Variable(SHAPE), px.Variable(SHAPE)
    f = px.diff_fn(x + y, lambda t: 0.5 * ((t - B) ** 2).sum(), lambda t: t - B)
    px.Problem([f, px.sum_squares(x - y - C)]).solve(solver=solver, **TIGHT)
    np.testing.assert_allclose(x.value + y.value, B, atol=1e-4)
    np.testing.assert_allclose(x.value - y.value, C, atol=1e-4)


def test_transforms_keep_a_function_of_two_variables():
    x, y = px.Variable(SHAPE), px.Variable(SHAPE)
    f = px.sum_squares(px.mul_elemwise(B, x) + y - C)
    x.value, y.value = rng.standard_normal(SHAPE), rng.standard_normal(SHAPE)
    absorbed = absorb_lin_op(absorb_offset(f))
    assert sum(g.value for g in absorbed) == pytest.approx(f.value, rel=1e-5)
    merged = merge_all([f, px.sum_squares(x), px.norm1(y)])
    assert sum(g.value for g in merged) == pytest.approx(f.value + (x.value ** 2).sum() + np.abs(y.value).sum(),
                                                         rel=1e-5)
