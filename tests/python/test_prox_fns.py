"""ProxImaL's modifiers (alpha, beta, b, c, gamma, d) and offsets mean what ProxImaL's Problem.solve
makes of them: an argument's constant joins b unscaled by beta (absorb_offset), c and gamma apply to
the argument without its constant, and a leading scalar factor is folded into beta first
(absorb_lin_op, which also divides b by it). The references are closed forms, in NumPy."""

import numpy as np
import pytest

from proxgen import (Problem, Variable, conv, mul_elemwise, nonneg, norm1, sum_entries, sum_squares, zero_prox)

rng = np.random.default_rng(29)
SHAPE = (4, 5)
B = rng.standard_normal(SHAPE)
C = rng.standard_normal(SHAPE)
A = rng.standard_normal(SHAPE)


def solve(fns, **kwargs):
    return Problem(fns, **kwargs).solve(solver="admm", eps_abs=1e-7, eps_rel=1e-7, max_iters=4000)


def assert_solution(x, expected):
    np.testing.assert_allclose(x.value, expected, atol=2e-3)


def test_the_offset_is_not_scaled_by_beta():
    x = Variable(SHAPE)
    objective = solve([sum_squares(x - B, beta=2)])  # ||2x - B||^2
    assert_solution(x, B / 2)
    assert objective == pytest.approx(0.0, abs=1e-4)


def test_c_and_d_apply_to_the_argument_without_its_constant():
    x = Variable(SHAPE)
    fn = sum_squares(x - B, beta=2, c=B, d=1.5)  # ||2x - B||^2 + <B, x> + 1.5
    objective = solve([fn])
    assert_solution(x, 3 * B / 8)  # 4 (2x - B) + B = 0
    X = x.value.astype(np.float64)
    expected = ((2 * X - B) ** 2).sum() + (B * X).sum() + 1.5
    assert objective == pytest.approx(expected, rel=1e-4)
    assert fn.value == pytest.approx(expected, rel=1e-4)


def test_gamma_applies_to_the_argument_without_its_constant():
    x = Variable(SHAPE)
    solve([sum_squares(x - B, gamma=0.5)])  # ||x - B||^2 + 0.5 ||x||^2
    assert_solution(x, 2 * B / 3)


def test_alpha_scales_f_of_the_absorbed_argument():
    x = Variable(SHAPE)
    solve([sum_squares(x - B, alpha=3, beta=2), sum_squares(x)])  # 3 ||2x - B||^2 + ||x||^2
    assert_solution(x, 6 * B / 13)


def test_b_and_the_offset_are_subtracted_together():
    x = Variable(SHAPE)
    solve([sum_squares(x - B, beta=2, b=C)])  # ||2x - C - B||^2
    assert_solution(x, (B + C) / 2)


def test_a_leading_scalar_is_folded_into_beta_and_divides_b():
    x = Variable(SHAPE)
    solve([sum_squares(2 * (x - B))])  # ||2x - B||^2
    assert_solution(x, B / 2)
    solve([sum_squares(2 * (x - B), b=C)])  # ||2x - B - C/2||^2
    assert_solution(x, B / 2 + C / 4)
    solve([sum_squares(-(x - B))])  # ||-x - B||^2: negation is scale(-1, .)
    assert_solution(x, -B)
    solve([sum_squares(2 * (x - B), gamma=1.0)])  # ||2x - B||^2 + ||2x||^2
    assert_solution(x, B / 4)


def test_without_absorb_the_whole_argument_keeps_its_constant():
    x = Variable(SHAPE)
    solve([sum_squares(2 * (x - B), beta=3)], absorb=False)  # ||6x - 2B||^2
    assert_solution(x, B / 3)


def test_norm1_with_beta_and_an_offset():
    x = Variable(SHAPE)
    lam = 0.4
    solve([sum_squares(x - A), lam * norm1(x - B, beta=2)])  # ||x - A||^2 + lam ||2x - B||_1
    t = 2 * A - B  # in y = 2x: (y - 2A)^2 / 4 + lam |y - B|
    assert_solution(x, (B + np.sign(t) * np.maximum(np.abs(t) - 2 * lam, 0)) / 2)


def test_nonneg_with_beta_and_an_offset():
    x = Variable(SHAPE)
    solve([sum_squares(x - A), nonneg(x + B, beta=2)])  # 2x + B >= 0
    assert_solution(x, np.maximum(A, -B / 2))


def test_mul_elemwise_with_an_offset():
    W = 0.5 + rng.random(SHAPE)
    x = Variable(SHAPE)
    solve([sum_squares(mul_elemwise(W, x) - B, beta=2)])  # ||2 W x - B||^2
    assert_solution(x, B / (2 * W))
    solve([sum_squares(mul_elemwise(W, x - B), beta=2)])  # folded into the weight: ||W (2x - B)||^2
    assert_solution(x, B / 2)


def circular_conv_otf(k, shape):
    """The FFT of k zero-padded to shape with its centre (size // 2) moved to the origin."""
    padded = np.zeros(shape)
    padded[:k.shape[0], :k.shape[1]] = k
    padded = np.roll(padded, (-(k.shape[0] // 2), -(k.shape[1] // 2)), axis=(0, 1))
    return np.fft.fft2(padded)


def test_conv_with_an_offset_outside_and_inside():
    k = np.array([[0.0, 0.1, 0.0], [0.0, 1.0, 0.3], [0.0, 0.0, 0.0]])  # asymmetric, invertible
    x = Variable(SHAPE)
    solve([sum_squares(conv(k, x) + B, beta=2)])  # ||2 K x + B||^2: K x = -B / 2
    expected = np.real(np.fft.ifft2(np.fft.fft2(-B / 2) / circular_conv_otf(k, SHAPE)))
    assert_solution(x, expected)
    solve([sum_squares(conv(k, x + B), beta=2)])  # ||2 K x + K B||^2: x = -B / 2
    assert_solution(x, -B / 2)


def test_values_follow_the_same_meaning():
    x = Variable(SHAPE)
    X = rng.standard_normal(SHAPE).astype(np.float32)
    x.value = X
    X64 = X.astype(np.float64)
    assert norm1(x - B, alpha=0.5, beta=2.0, b=C, c=A, gamma=0.25, d=3.0).value == pytest.approx(
        0.5 * np.abs(2 * X64 - C - B).sum() + (A * X64).sum() + 0.25 * (X64 ** 2).sum() + 3.0, rel=1e-5)
    assert zero_prox(x - B, c=C, gamma=0.5).value == pytest.approx((C * X64).sum() + 0.5 * (X64 ** 2).sum(),
                                                                    rel=1e-5)
    # where a weight folded into the function is 0, its argument is 0 whatever b is
    W = rng.random(SHAPE)
    W[0, :] = 0.0
    assert norm1(mul_elemwise(W, x), b=C).value == pytest.approx(
        np.where(W != 0, np.abs(W * X64 - C), 0.0).sum(), rel=1e-5)


def test_sum_entries_is_a_zero_prox_with_c_one():
    x = Variable(SHAPE)
    X = rng.standard_normal(SHAPE).astype(np.float32)
    x.value = X
    total = X.astype(np.float64).sum()
    assert (2 * sum_entries(x)).value == pytest.approx(total, rel=1e-5)  # alpha scales f = 0
    assert sum_entries(x - B, beta=2, b=C).value == pytest.approx(total, rel=1e-5)
    assert sum_entries(x, c=C).value == pytest.approx(((1 + C) * X).sum(), rel=1e-5)
