"""ProxImaL's solver modules: admm, pc, hqs and ladmm's solve(psi_fns, omega_fns, ...) with ProxImaL's
arguments (positional and by name) and partition(prox_fns). References are computed here: closed
forms, and a float64 projected gradient for the nonnegative deconvolution."""

import math

import numpy as np
import pytest

import proxgen as px
from proxgen.algorithms import absorb_offset, admm, hqs, ladmm, pc
from proxgen.lin_ops import vstack

B = np.reshape(np.arange(50), (10, 5)) * 1.0
# each module with ProxImaL's leading positional arguments and a tolerance
MODULES = [
    ("admm", admm, (1.0,), {}),
    ("pc", pc, (1.0, 1.0, 1.0), {}),
    ("hqs", hqs, (), dict(max_iters=100, max_inner_iters=50)),
    ("ladmm", ladmm, (0.1,), dict(max_iters=500)),
]
IDS = [m[0] for m in MODULES]


def soft(v, t):
    return np.sign(v) * np.maximum(np.abs(v) - t, 0)


def nonneg_least_squares(K, b):
    """argmin_{z >= 0} ||K z - b|| by projected gradient in float64."""
    z = np.zeros(K.shape[1])
    step = 1.0 / np.linalg.norm(K, 2) ** 2
    for _ in range(20000):
        z = np.maximum(z - step * K.T @ (K @ z - b), 0)
    return z


@pytest.mark.parametrize("name,module,args,kw", MODULES, ids=IDS)
def test_a_single_function_is_minimized_and_its_value_returned(name, module, args, kw):
    X = px.Variable((10, 5))
    value = module.solve([px.sum_squares(X, b=B)], [], *args, eps_abs=1e-5, eps_rel=1e-5, **kw)
    np.testing.assert_allclose(X.value, B, atol=2e-2)
    assert value == pytest.approx(0, abs=1e-4)
    # beta scales the argument, b is subtracted unscaled (ProxImaL's convention): |2x - B| is 0 at B/2
    value = module.solve([px.norm1(X, b=B, beta=2)], [], *args, eps_abs=1e-5, eps_rel=1e-5, **kw)
    np.testing.assert_allclose(X.value, B / 2, atol=2e-2)
    assert value == pytest.approx(0, abs=2e-2)


@pytest.mark.parametrize("name,module,args,kw", MODULES, ids=IDS)
def test_two_functions_split_by_partition_or_not_reach_the_closed_form(name, module, args, kw):
    X = px.Variable((10, 5))
    fns = [px.norm1(X), px.sum_squares(X, b=B)]
    x_star = soft(B, 0.5)
    f_star = float(((x_star - B) ** 2).sum() + np.abs(x_star).sum())
    psi, omega = module.partition(fns)
    assert len(psi) + len(omega) == 2 and all(any(f is g for g in psi + omega) for f in fns)
    assert len(psi) >= 1
    for split in ((fns, []), (psi, omega)):
        value = module.solve(*split, *args, eps_abs=1e-5, eps_rel=1e-5, **kw)
        np.testing.assert_allclose(X.value, x_star, atol=2e-2)
        assert value == pytest.approx(f_star, rel=1e-4)


@pytest.mark.parametrize("name,module,args,kw", [
    ("admm", admm, (1.0,), {}),
    ("pc", pc, (), dict(max_iters=3000)),
    # ProxImaL's HQS arguments: rho_0, rho_scale, rho_max, then max_iters outer iterations of at most
    # max_inner_iters each
    ("hqs", hqs, (4, math.sqrt(2.0), 2.0 ** 16, 30, 500), dict(eps_rel=1e-9)),
    ("ladmm", ladmm, (0.1,), dict(max_iters=3000)),
], ids=IDS)
def test_a_nonnegative_deconvolution_reaches_the_float64_reference(name, module, args, kw):
    kernel = np.array([1.0, 2.0, 3.0])
    K = np.array([[2.0, 1.0, 3.0], [3.0, 2.0, 1.0], [1.0, 3.0, 2.0]])  # the circular convolution's matrix
    b = np.array([-41.0, 413.0, 2.0])
    z = nonneg_least_squares(K, b)
    x = px.Variable(3)
    fns = [px.nonneg(x), px.sum_squares(px.conv(kernel, x), b=b)]
    kw = dict(dict(eps_abs=1e-5, eps_rel=1e-5), **kw)
    for split in ((fns, []), module.partition(fns)):
        value = module.solve(*split, *args, **kw)
        np.testing.assert_allclose(x.value, z, atol=0.1)
        assert math.sqrt(value) == pytest.approx(np.linalg.norm(K @ z - b), rel=1e-4)


def test_admm_with_every_modifier_in_omega_reaches_the_closed_form():
    X = px.Variable((10, 5))
    # 0.1 ||2x - B||^2 + ||x||^2 + <B, x> + |x|: per pixel, 2.8 x = -0.6 B - sign(x)
    v = -0.6 * B
    x_star = soft(v, 1.0) / 2.8
    f_star = float((0.1 * (2 * x_star - B) ** 2 + x_star ** 2 + B * x_star + np.abs(x_star)).sum())
    quad = [px.sum_squares(X, b=B, alpha=0.1, beta=2.0, gamma=1, c=B)]
    value = admm.solve([px.norm1(X)], quad, 1.0, eps_rel=1e-5, eps_abs=1e-5)
    np.testing.assert_allclose(X.value, x_star, atol=2e-3)
    assert value == pytest.approx(f_star, rel=1e-5)
    # the same with the offset written in the argument and absorbed
    quad = [absorb_offset(px.sum_squares(X - B, alpha=0.1, beta=2.0, gamma=1, c=B))]
    value = admm.solve([px.norm1(X)], quad, 1.0, eps_rel=1e-5, eps_abs=1e-5)
    np.testing.assert_allclose(X.value, x_star, atol=2e-3)
    assert value == pytest.approx(f_star, rel=1e-5)


def test_a_function_in_both_lists_counts_twice_and_two_variables_are_solved():
    x, y = px.Variable(1), px.Variable(1)
    fns = [px.nonneg(x), px.sum_squares(vstack([x, y]), b=np.arange(2))]
    value = pc.solve(fns, [fns[-1]], 0.1, 0.1, 1.0, max_iters=3000, eps_abs=1e-5, eps_rel=1e-5)
    np.testing.assert_allclose(x.value, [0], atol=1e-3)
    np.testing.assert_allclose(y.value, [1], atol=1e-3)
    assert value == pytest.approx(0, abs=1e-5)
    # twice: the objective at x = (1, 1) is 2 * ||(1, 1) - (0, 1)||^2
    x.value, y.value = np.ones(1), np.ones(1)
    X = px.Variable((4, 3))
    f = px.sum_squares(X, b=np.ones((4, 3)))
    value = admm.solve([px.norm1(X)], [f, f], 1.0, eps_abs=1e-6, eps_rel=1e-6)
    # 2 (x - 1)^2 + |x|: x = 0.75, value 12 * (2 * 0.0625 + 0.75)
    np.testing.assert_allclose(X.value, 0.75, atol=1e-3)
    assert value == pytest.approx(12 * (2 * 0.0625 + 0.75), rel=1e-4)


def test_partition_follows_proximal_rules():
    X = px.Variable((6, 5))
    K = np.ones((3, 3)) / 9
    sq_diag, sq_conv = px.sum_squares(X, b=B[:6]), px.sum_squares(px.conv(K, X), b=B[:6])
    # (ProxImaL's grad is circular; ProxGen's is circular with periodic=True)
    tv, l1 = px.norm1(px.grad(X, periodic=True)), px.norm1(X)
    # ADMM / HQS: the quadratics every operator keeps (frequency) diagonal
    psi, omega = admm.partition([tv, sq_conv])
    assert omega == [sq_conv] and psi == [tv]
    psi, omega = hqs.partition([l1, sq_diag])
    assert omega == [sq_diag] and psi == [l1]
    # PC / L-ADMM: the largest set of diagonal quadratics, else one function of the bare variable
    psi, omega = pc.partition([tv, sq_diag, l1])
    assert omega == [sq_diag] and len(psi) == 2
    psi, omega = ladmm.partition([tv, l1])
    assert omega == [l1] and psi == [tv]
    # a non-circular grad keeps no quadratic diagonal in frequency, and the convolution is not diagonal
    psi, omega = admm.partition([px.norm1(px.grad(X)), sq_conv])
    assert omega == [] and len(psi) == 2
    with pytest.raises(px.Error, match="psi_fns empty"):
        admm.partition([sq_diag])


def test_bad_arguments_say_what_is_wrong():
    X = px.Variable((3, 4))
    with pytest.raises(TypeError, match="unexpected keyword argument 'rho'"):
        pc.solve([px.norm1(X)], [], rho=2.0)
    with pytest.raises(TypeError, match="multiple values for argument 'rho'"):
        admm.solve([px.norm1(X)], [], 1.0, rho=2.0)
    with pytest.raises(TypeError, match="at most"):
        ladmm.solve([px.norm1(X)], [], *range(20))
    with pytest.raises(TypeError, match="expected prox functions"):
        admm.solve([X], [])
    with pytest.raises(px.Error, match="both empty"):
        hqs.solve([], [])
    with pytest.raises(px.Error, match="theta"):
        pc.solve([px.norm1(X)], [px.sum_squares(X)], 1.0, 1.0, 0.5)


def _equilibration_objective(A, d, e, gamma):
    """The function both equilibrations minimise, at u = log d, v = log e."""
    m, n = A.shape
    alpha, beta = (n / m) ** 0.25, (m / n) ** 0.25
    u, v = np.log(d), np.log(e)
    return (0.5 * (d[:, None] ** 2 * A ** 2 * e[None, :] ** 2).sum() - alpha ** 2 * u.sum() - beta ** 2 * v.sum()
            + 0.5 * gamma * (u @ u + v @ v))


def test_equilibration_of_an_operator_reaches_the_dense_newton_optimum():
    from proxgen.algorithms.equil import newton_equil

    np.random.seed(1)
    x = px.Variable(3)
    wr, wl = np.array([10.0, 5.0, 7.0]), np.array([100.0, 50.0, 3.0])
    K = px.mul_elemwise(wl, px.conv(np.ones(3) / np.sqrt(3), px.mul_elemwise(wr, x)))
    A = wl[:, None] * np.ones((3, 3)) / np.sqrt(3) * wr[None, :]  # K as a matrix (a circular box filter)
    gamma = 0.1
    d_ref, e_ref = newton_equil(A, gamma, 100)
    # Newton's result is stationary: the gradient in u and v vanishes
    m, n = A.shape
    row = d_ref ** 2 * (A ** 2 @ e_ref ** 2)
    col = e_ref ** 2 * (A.T ** 2 @ d_ref ** 2)
    assert np.abs(row - (n / m) ** 0.5 + gamma * np.log(d_ref)).max() < 1e-8
    assert np.abs(col - (m / n) ** 0.5 + gamma * np.log(e_ref)).max() < 1e-8
    # the matrix-free stochastic method, on the operator, gets within 1e-3 of its objective
    d, e = px.equil(px.CompGraph(K), 1000, gamma=gamma, M=5)
    f, f_ref = _equilibration_objective(A, d, e, gamma), _equilibration_objective(A, d_ref, e_ref, gamma)
    assert f >= f_ref - 1e-9 and f - f_ref < 1e-3 * abs(f_ref)
    # and equilibrates: the scaled matrix's row norms spread far less than A's
    scaled = d[:, None] * A * e[None, :]
    spread = lambda M: np.linalg.norm(M, axis=1).max() / np.linalg.norm(M, axis=1).min()
    assert spread(scaled) < 0.1 * spread(A)


def test_pock_chambolle_with_proximal_steps_meets_its_test_tolerance():
    # ProxImaL's two-function Pock-Chambolle check: tau = 0.5, sigma = theta = 1, tolerances 1e-5, a
    # check every iteration; the objective within 1e-5 (relative) of the soft threshold's
    X = px.Variable((10, 5))
    B50 = np.reshape(np.arange(50), (10, 5)) * 1.0
    x_star = soft(B50, 0.5)
    f_star = float(((x_star - B50) ** 2).sum() + np.abs(x_star).sum())
    fns = [px.norm1(X), px.sum_squares(X, b=B50)]
    value = pc.solve(fns, [], 0.5, 1.0, 1.0, eps_rel=1e-5, eps_abs=1e-5, conv_check=1)
    assert value == pytest.approx(f_star, rel=1e-5)
    psi, omega = pc.partition(fns)
    value = pc.solve(psi, omega, 0.5, 1.0, 1.0, eps_abs=1e-5, eps_rel=1e-5)
    assert value == pytest.approx(f_star, rel=1e-5)
    np.testing.assert_allclose(X.value, x_star, atol=2e-2)
