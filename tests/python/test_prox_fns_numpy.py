"""ProxFn.prox(rho, v) with ProxImaL's modifiers: argmin_x alpha f(beta x - b) + <c, x> +
gamma ||x||^2 + rho/2 ||x - v||^2, computed by the penalty's card prox (ProxGen's lowering), against
closed forms computed here: soft-thresholding, projections, sum_squares' linear solution, the
Poisson prox's root, group shrinkage (over any axes); the modifiers by ProxImaL's change of variables, and for
smooth f by the optimality condition itself."""

import numpy as np
import pytest

import proxgen as px
from proxgen import (Variable, grad, group_norm1, masked_nonneg, nonneg, norm1, poisson_norm, sum_entries, sum_squares,
                     weighted_group_norm1, weighted_norm1, zero_prox)

rng = np.random.default_rng(7)
SHAPE = (6, 5)
V = 2 * rng.standard_normal(SHAPE)
B = rng.standard_normal(SHAPE)
C = rng.standard_normal(SHAPE)
MODIFIERS = dict(alpha=1.7, beta=-0.6, b=B, c=C, gamma=0.3)


def soft(v, t):
    return np.sign(v) * np.maximum(np.abs(v) - t, 0)


def with_modifiers(prox_f, rho, v, alpha=1.0, beta=1.0, b=0.0, c=0.0, gamma=0.0):
    """ProxImaL's reduction to f's own prox: x = (prox_f(rho_hat, w) + b) / beta with
    rho_hat = (rho + 2 gamma) / (alpha beta^2), w = beta (rho v - c) / (rho + 2 gamma) - b."""
    rho_hat = (rho + 2 * gamma) / (alpha * beta ** 2)
    w = beta * (rho * v - c) / (rho + 2 * gamma) - b
    return (prox_f(rho_hat, w) + b) / beta


CASES = {
    "norm1": (norm1, lambda rho, w: soft(w, 1 / rho)),
    "nonneg": (nonneg, lambda rho, w: np.maximum(w, 0)),
    "sum_squares": (sum_squares, lambda rho, w: rho / (rho + 2) * w),
    "zero_prox": (zero_prox, lambda rho, w: w),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("modified", [False, True], ids=["plain", "modifiers"])
def test_prox_against_closed_forms(name, modified):
    make, prox_f = CASES[name]
    kwargs = MODIFIERS if modified else {}
    fn = make(Variable(SHAPE), **kwargs)
    for rho in (0.5, 3.0):
        expected = with_modifiers(prox_f, rho, V, **kwargs)
        np.testing.assert_allclose(fn.prox(rho, V), expected, rtol=1e-5, atol=1e-5)


def test_sum_squares_prox_meets_the_optimality_condition():
    """2 alpha beta (beta x - b) + c + 2 gamma x + rho (x - v) = 0, without ProxImaL's formula."""
    m = MODIFIERS
    rho = 1.3
    x = sum_squares(Variable(SHAPE), **m).prox(rho, V).astype(np.float64)
    residual = 2 * m["alpha"] * m["beta"] * (m["beta"] * x - m["b"]) + m["c"] + 2 * m["gamma"] * x + rho * (x - V)
    assert np.abs(residual).max() < 1e-4


def test_weighted_norm1():
    w = rng.standard_normal(SHAPE)
    fn = weighted_norm1(Variable(SHAPE), w, alpha=2.0, b=B)
    np.testing.assert_allclose(fn.prox(1.5, V), soft(V - B, 2.0 * np.abs(w) / 1.5) + B, rtol=1e-5, atol=1e-5)


def test_group_norm1_shrinks_each_group():
    v = rng.standard_normal(SHAPE + (2,))
    rho = 0.8
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    expected = np.maximum(1 - 1 / (rho * norms), 0) * v
    np.testing.assert_allclose(group_norm1(Variable(SHAPE + (2,))).prox(rho, v), expected, rtol=1e-5, atol=1e-5)


def test_group_norm1_over_other_axes():
    """Groups along the first axis, and colour TV (channels x directions): the card's group
    shrinkage through the transposes and reshapes that bring the groups last."""
    rho = 1.1
    v = rng.standard_normal(SHAPE)
    norms = np.linalg.norm(v, axis=0, keepdims=True)
    np.testing.assert_allclose(group_norm1(Variable(SHAPE), [0]).prox(rho, v),
                               np.maximum(1 - 1 / (rho * norms), 0) * v, rtol=1e-5, atol=1e-5)
    g = rng.standard_normal(SHAPE + (3, 2))
    norms = np.linalg.norm(g.reshape(SHAPE + (6,)), axis=-1)[..., None, None]
    np.testing.assert_allclose(group_norm1(grad(Variable(SHAPE + (3,)), 2), [2, 3], alpha=0.5).prox(rho, g),
                               np.maximum(1 - 0.5 / (rho * norms), 0) * g, rtol=1e-5, atol=1e-5)
    wg = rng.standard_normal(g.shape)  # elementwise data of a 4-D argument keep their places
    np.testing.assert_allclose(weighted_norm1(grad(Variable(SHAPE + (3,)), 2), wg, b=wg).prox(rho, g),
                               soft(g - wg, np.abs(wg) / rho) + wg, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("modified", [False, True], ids=["plain", "modifiers"])
def test_masked_nonneg_projects_onto_its_set(modified):
    """ProxImaL's masked_nonneg: x >= 0 on the mask, x == 0 off it (two of ProxGen's constraints,
    projected onto in turn)."""
    mask = (rng.random(SHAPE) > 0.5).astype(float)
    kwargs = MODIFIERS if modified else {}
    got = masked_nonneg(Variable(SHAPE), mask, **kwargs).prox(0.7, V)
    expected = with_modifiers(lambda rho, w: np.maximum(w, 0) * mask, 0.7, V, **kwargs)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_poisson_norm_is_the_positive_root():
    """argmin x - bp log x + rho/2 (x - v)^2: rho x^2 + (1 - rho v) x - bp = 0."""
    bp = rng.integers(0, 6, SHAPE).astype(np.float64)
    rho = 2.0
    expected = ((rho * V - 1) + np.sqrt((rho * V - 1) ** 2 + 4 * rho * bp)) / (2 * rho)
    np.testing.assert_allclose(poisson_norm(Variable(SHAPE), bp).prox(rho, V), expected, rtol=1e-4, atol=1e-5)


def test_sum_entries_and_scalars():
    fn = sum_entries(Variable(SHAPE))  # c = 1: x = v - 1 / rho
    np.testing.assert_allclose(fn.prox(2.0, V), V - 0.5, rtol=1e-6)
    assert norm1(Variable(1)).prox(1.0, 3.0) == pytest.approx(2.0)  # a scalar v gives a scalar, as in ProxImaL
    assert norm1(Variable(SHAPE), alpha=0.0).prox(1.0, V) == pytest.approx(V.astype(np.float32))


def test_the_operator_plays_no_part():
    """As ProxImaL's: the prox is of f on the argument's space, whatever lin_op is."""
    x = Variable((3, 10))
    fn = norm1(px.reshape(x, SHAPE))
    np.testing.assert_allclose(fn.prox(1.0, V), soft(V, 1.0), rtol=1e-6, atol=1e-6)


def test_a_second_structure_instance_gives_its_own_answer():
    """Other data, other sizes, same structure: the cached kernel (compiled once, which
    tests/test_runtime_apply.cpp counts) is bound to each call's own data and size."""
    fn = norm1(Variable(SHAPE), b=B)
    np.testing.assert_allclose(fn.prox(1.0, V), B + soft(V - B, 1.0), rtol=1e-6, atol=1e-6)
    big = rng.standard_normal((64, 48))
    out = norm1(Variable((64, 48)), b=big).prox(2.0, big)
    np.testing.assert_allclose(out, big, atol=1e-6)


def test_errors():
    with pytest.raises(px.Error, match="rho"):
        norm1(Variable(SHAPE)).prox(0.0, V)
    with pytest.raises(px.Error, match="shape"):
        norm1(Variable(SHAPE)).prox(1.0, np.zeros(3))
    w = 0.5 + rng.random(SHAPE + (2,))  # a weight varying within groups: no closed-form prox
    with pytest.raises(px.Error, match="not its variable scaled"):
        weighted_group_norm1(Variable(SHAPE + (2,)), [2], w).prox(1.0, np.ones(SHAPE + (2,)))
