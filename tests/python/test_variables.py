"""Problems in several variables from Python, as ProxImaL writes them: Variable objects, each with
its own shape, whose .value the solve sets; checked against closed-form solutions."""

import numpy as np
import pytest

import proxgen as pg

H, W = 12, 16


@pytest.mark.parametrize("solver", ["pc", "ladmm", "admm", "hqs"])
def test_coupled_quadratics_reach_the_closed_form(solver):
    # sum_squares(x + y - b) + sum_squares(x - y): x = y = b / 2
    rng = np.random.default_rng(1)
    b = rng.uniform(0, 1, (H, W)).astype(np.float32)
    x, y = pg.Variable((H, W)), pg.Variable((H, W))
    prob = pg.Problem([pg.sum_squares(x + y - b), pg.sum_squares(x - y)])
    # (HQS's max_iters: outer iterations of 100, as in ProxImaL)
    value = prob.solve(solver=solver, max_iters=20 if solver == "hqs" else 2000, eps_abs=1e-7, eps_rel=1e-7)
    assert x.value.shape == (H, W) and y.value.shape == (H, W)
    np.testing.assert_allclose(x.value, b / 2, atol=1e-4)
    np.testing.assert_allclose(y.value, b / 2, atol=1e-4)
    assert value == pytest.approx(0.0, abs=1e-6)


def test_variables_of_different_shapes_in_disjoint_terms():
    x, lo = pg.Variable((H, W)), pg.Variable((H // 2, W // 2))
    prob = pg.Problem([pg.sum_squares(x - 1.0), pg.sum_squares(lo - 2.0), pg.nonneg(lo)])
    prob.solve(max_iters=500)
    assert lo.value.shape == (H // 2, W // 2)
    np.testing.assert_allclose(x.value, 1.0, atol=1e-4)
    np.testing.assert_allclose(lo.value, 2.0, atol=1e-4)
    assert "2 variables" in prob.describe()


def test_result_x_names_the_variables_and_auto_says_what_it_chose():
    x, y = pg.Variable((H, W)), pg.Variable((H, W))
    prob = pg.Problem([pg.sum_squares(x + y - 1.0), pg.sum_squares(x - y)])
    prob.solve(solver="auto", max_iters=200)
    with pytest.raises(pg.Error, match="Result.x: the problem has 2 variables"):
        prob.result.x
    assert set(prob.result.values) == {x.varname, y.varname}
    assert "automatic" in prob.result.choice
    np.testing.assert_allclose(x.value, 0.5, atol=1e-3)


def test_x0_of_several_variables_flat_or_by_variable():
    """ProxImaL's x0 for several variables is their flat values one after another; a dict by variable
    (or its name) works too, and a variable not given starts at 0."""
    b = np.linspace(0, 1, 48, dtype=np.float32).reshape(6, 8)
    x, y = pg.Variable((6, 8), name="x"), pg.Variable((6, 8), name="y")
    fns = [pg.sum_squares(x + y - b), 0.1 * pg.norm1(x), pg.sum_squares(y)]
    opts = dict(solver="pc", max_iters=3, eps_abs=0, eps_rel=0)
    pg.Problem(fns).solve(x0=np.concatenate([np.zeros(48), b.ravel()]), **opts)
    flat = (x.value.copy(), y.value.copy())
    pg.Problem(fns).solve(x0={y: b}, **opts)
    assert np.array_equal(x.value, flat[0]) and np.array_equal(y.value, flat[1])
    pg.Problem(fns).solve(x0={"y": b, "x": np.zeros((6, 8))}, **opts)
    assert np.array_equal(y.value, flat[1])
    pg.Problem(fns).solve(**opts)
    assert not np.array_equal(y.value, flat[1])  # the start mattered
    with pytest.raises(pg.Error, match=r"x0 has 50 elements; the problem's variables \(x \(6, 8\), y \(6, 8\)\) hold 96"):
        pg.Problem(fns).solve(x0=np.zeros(50), **opts)
    with pytest.raises(pg.Error, match="x0 names z, which is no variable of the problem"):
        pg.Problem(fns).solve(x0={"z": b}, **opts)
    with pytest.raises(pg.Error, match=r"x0\['y'\] has 4 elements, the variable y has shape \(6, 8\)"):
        pg.Problem(fns).solve(x0={"y": np.zeros(4)}, **opts)
