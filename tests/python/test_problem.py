"""ProxImaL's Problem object: one function alone, several variables of different sizes, absorption
on and off, ProxImaL's setters (absorb, solver, linear solver, frequency split) and the algorithms'
options — every solve against the closed form of its small problem, computed here."""

import numpy as np
import pytest

from proxgen import Problem, Variable, mul_elemwise, norm1, subsample, sum_squares

SOLVERS = ["pc", "ladmm", "admm", "hqs"]
B = np.reshape(np.arange(8, dtype=np.float32), (4, 2), order="F") - 3.5


def tight(solver):
    """Tolerances 1e-7 and 5000 iterations; HQS's max_iters counts outer iterations of 100, as ProxImaL's,
    and its tolerances stay at 1e-4: with tighter ones its penalty reaches its largest value within
    ~30 iterations, where the alternation contracts by rho / (rho + 2) per iteration and stays ~2e-2
    from the soft threshold below."""
    if solver == "hqs":
        return dict(eps_rel=1e-4, eps_abs=1e-4, max_iters=50)
    return dict(eps_rel=1e-7, eps_abs=1e-7, max_iters=5000)


def tol(solver):
    return 1e-3 if solver == "hqs" else 1e-4


# HQS's penalty contracts the alternation by rho / (rho + 2) per iteration on |x| + (x - b)^2: within
# 5000 iterations it gets to ~4e-3 of the soft threshold (ProxImaL's own HQS test asks for 1e-2)
HQS_SOFT_THRESHOLD_TOL = 1e-2


@pytest.mark.parametrize("solver", SOLVERS)
def test_one_function_alone(solver):
    x = Variable((4, 2))
    Problem(sum_squares(x - B)).solve(solver=solver, **tight(solver))
    np.testing.assert_allclose(x.value, B, atol=tol(solver))


@pytest.mark.parametrize("solver", SOLVERS)
def test_variables_of_different_sizes_coupled_by_a_subsample(solver):
    x, y = Variable(3), Variable(6)
    rhs = np.array([1.0, 2.0, 3.0])
    prob = Problem([sum_squares(x - rhs), sum_squares(subsample(y, [2]) - x)])
    prob.solve(solver=solver, **tight(solver))
    # x = rhs and every second sample of y equals x; the other samples of y are in no term: the least-
    # norm solution the algorithms reach from zero leaves them 0
    np.testing.assert_allclose(x.value, rhs, atol=tol(solver))
    np.testing.assert_allclose(y.value, [1, 0, 2, 0, 3, 0], atol=tol(solver))


@pytest.mark.parametrize("absorb", [True, False])
@pytest.mark.parametrize("solver", SOLVERS)
def test_absorption_on_or_off_reaches_the_soft_threshold(solver, absorb):
    # |x| + (x - b)^2 elementwise: x = sign(b) max(|b| - 1/2, 0)
    x = Variable((4, 2))
    prob = Problem([norm1(x), sum_squares(x, b=B)])
    prob.set_absorb(absorb)
    prob.set_automatic_frequency_split(False)
    prob.set_solver(solver)
    prob.set_lin_solver("cg")
    value = prob.solve(**tight(solver))
    expected = np.sign(B) * np.maximum(np.abs(B) - 0.5, 0)
    atol = HQS_SOFT_THRESHOLD_TOL if solver == "hqs" else tol(solver)
    np.testing.assert_allclose(x.value, expected, atol=atol)
    assert value == pytest.approx(np.abs(expected).sum() + ((expected - B) ** 2).sum(), rel=atol)


@pytest.mark.parametrize("solver", ["pc", "ladmm", "admm"])
def test_scaled_and_weighted_arguments_absorbed_or_not(solver):
    # Without absorption, (-2x - b)^2 + |b x| elementwise: 8x + 4b + |b| sign(x) = 0 gives x = -3b/8.
    x = Variable((4, 2))
    prob = Problem(sum_squares(-2 * x, b=B) + norm1(mul_elemwise(B, x)))
    prob.set_absorb(False)
    prob.solve(solver=solver, **tight(solver))
    np.testing.assert_allclose(x.value, -3 * B / 8, atol=tol(solver))
    # ProxImaL's absorption folds the -2 into beta and divides b by it: (-2x + b/2)^2 + |b x|,
    # 8x - 2b + |b| sign(x) = 0 gives x = b/8
    prob.set_absorb(True)
    prob.solve(solver=solver, **tight(solver))
    np.testing.assert_allclose(x.value, B / 8, atol=tol(solver))
    # an offset written into the argument joins b unscaled: (-2x - b)^2 + |b x| again
    x2 = Variable((4, 2))
    Problem(sum_squares(-2 * x2 - B) + norm1(mul_elemwise(B, x2))).solve(solver=solver, **tight(solver))
    np.testing.assert_allclose(x2.value, -3 * B / 8, atol=tol(solver))


def test_hqs_max_iters_counts_proximal_outer_iterations():
    # ProxImaL's arguments: 20 penalties (outer iterations) of at most 500 inner ones each
    x = Variable((4, 2))
    prob = Problem([norm1(x), sum_squares(x, b=B)])
    prob.solve(solver="hqs", eps_rel=1e-6, rho_0=1.0, rho_scale=np.sqrt(2.0) * 2.0, rho_max=2 ** 16, max_iters=20,
               max_inner_iters=500)
    assert 20 < prob.result.iterations <= 20 * 500
    np.testing.assert_allclose(x.value, np.sign(B) * np.maximum(np.abs(B) - 0.5, 0), atol=2e-2)
    # without max_iters: until rho reaches rho_max, as ProxImaL's -1 (1 + ceil(log(2^8) / log(2 sqrt 2))
    # = 7 penalties of max_inner_iters)
    prob.solve(solver="hqs", eps_rel=1e-9, eps_abs=1e-9, max_inner_iters=10)
    assert prob.result.iterations <= 70


def test_the_per_card_tier_reaches_the_fused_optimum():
    """tier='per_card' (each card's own kernels) solves what the default fused tier solves, with
    every algorithm; a tier that does not exist is a ValueError naming the two."""
    from proxgen import grad, group_norm1, nonneg

    rng = np.random.default_rng(3)
    b = rng.random((24, 20), dtype=np.float32)
    x = Variable((24, 20))
    prob = Problem([sum_squares(x - b), 0.1 * group_norm1(grad(x)), nonneg(x)])
    prob.solve(solver="pc", eps_abs=1e-6, eps_rel=1e-6, max_iters=3000)
    fused = np.array(x.value)
    prob.solve(solver="pc", eps_abs=1e-6, eps_rel=1e-6, max_iters=3000, tier="per_card")
    assert np.abs(np.array(x.value) - fused).max() < 1e-3
    # every other algorithm per card too (the kernel pack's kernels: nothing compiles), to the same x
    for solver in ("ladmm", "admm", "condat_vu"):
        prob.solve(solver=solver, eps_abs=1e-6, eps_rel=1e-6, max_iters=3000, tier="per_card")
        assert prob.result.per_card_iterations == prob.result.iterations, solver
        assert np.abs(np.array(x.value) - fused).max() < 1e-3, solver
    with pytest.raises(ValueError, match="fused.*per_card.*auto"):
        prob.solve(solver="pc", tier="unfused")
