"""ProxImaL's operators and functions mean what they mean in ProxImaL (or what docs/python.md says
where ProxGen differs): each operator K is checked through <w, K x> = zero_prox(K, c=w).value,
evaluated by ProxGen, against a NumPy implementation of ProxImaL's definition."""

import numpy as np
import pytest

from proxgen import *  # noqa: F401,F403

rng = np.random.default_rng(7)


def inner(op, var, x):
    """<w, op(x)> by ProxGen (float64 objective of a linear term) for a random w; returns (value, w)."""
    w = rng.standard_normal(op.shape)
    var.value = x
    return zero_prox(op, c=w).value, w


def check(op, var, x, numpy_op):
    value, w = inner(op, var, x)
    expected = float(np.sum(w * numpy_op(x.astype(np.float64))))
    assert op.shape == numpy_op(x).shape
    assert value == pytest.approx(expected, rel=1e-5, abs=1e-4)


def test_vstack_and_hstack_flatten_in_c_order():
    x = Variable((4, 6, 3))
    X = rng.standard_normal((4, 6, 3)).astype(np.float32)
    check(vstack([x, 2 * x]), x, X, lambda a: np.concatenate([a.ravel(), 2 * a.ravel()]))
    check(hstack([x, -x]), x, X, lambda a: np.stack([a.ravel(), -a.ravel()], axis=1))


def test_reshape_and_transpose_are_numpys():
    x = Variable((4, 6, 3))
    X = rng.standard_normal((4, 6, 3)).astype(np.float32)
    check(reshape(x, (6, 12)), x, X, lambda a: a.reshape(6, 12))
    check(reshape(x, (3, 4, 6)), x, X, lambda a: a.reshape(3, 4, 6))
    check(transpose(x, (2, 0, 1)), x, X, lambda a: np.transpose(a, (2, 0, 1)))
    y = Variable((5, 7))
    check(reshape(y, (35,)), y, rng.standard_normal((5, 7)).astype(np.float32), lambda a: a.ravel())


def forward_difference(a, axis):
    d = np.zeros_like(a)
    idx = [slice(None)] * a.ndim
    hi, lo = list(idx), list(idx)
    hi[axis], lo[axis] = slice(1, None), slice(None, -1)
    d[tuple(lo)] = a[tuple(hi)] - a[tuple(lo)]
    return d


def test_grad_stacks_x_first_then_y_then_the_rest():
    x = Variable((5, 7))
    X = rng.standard_normal((5, 7)).astype(np.float32)
    check(grad(x), x, X, lambda a: np.stack([forward_difference(a, 1), forward_difference(a, 0)], axis=-1))
    c = Variable((5, 7, 3))
    C = rng.standard_normal((5, 7, 3)).astype(np.float32)
    check(grad(c), c, C, lambda a: np.stack([forward_difference(a, 1), forward_difference(a, 0),
                                             forward_difference(a, 2)], axis=-1))
    check(grad(c, 2), c, C, lambda a: np.stack([forward_difference(a, 1), forward_difference(a, 0)], axis=-1))


def test_subsample_and_uneven_subsample():
    x = Variable((9, 8))
    X = rng.standard_normal((9, 8)).astype(np.float32)
    check(subsample(x, (3, 2)), x, X, lambda a: a[::3, ::2])
    rows, cols = rng.integers(0, 9, (4, 5)), rng.integers(0, 8, (4, 5))
    check(uneven_subsample(x, np.stack([rows, cols])), x, X, lambda a: a[rows, cols])


def circular_conv(k, a):
    out = np.zeros_like(a)
    cy, cx = k.shape[0] // 2, k.shape[1] // 2
    for m in range(k.shape[0]):
        for n in range(k.shape[1]):
            out += k[m, n] * np.roll(np.roll(a, m - cy, axis=0), n - cx, axis=1)
    return out


def test_conv_is_circular_with_the_centre_at_half_the_size():
    x = Variable((9, 8))
    X = rng.standard_normal((9, 8)).astype(np.float32)
    k = rng.random((3, 5)).astype(np.float32)
    check(conv(k, x), x, X, lambda a: circular_conv(k.astype(np.float64), a))
    c = Variable((9, 8, 2))
    C = rng.standard_normal((9, 8, 2)).astype(np.float32)
    check(conv(k, c), c, C, lambda a: np.stack([circular_conv(k.astype(np.float64), a[..., i]) for i in range(2)], -1))


def test_conv_nofft_repeats_the_edge_pixels():
    x = Variable((9, 8))
    X = rng.standard_normal((9, 8)).astype(np.float32)
    k = rng.random((3, 5)).astype(np.float64)

    def numpy_conv_nofft(a):
        cy, cx = k.shape[0] // 2, k.shape[1] // 2
        padded = np.pad(a, ((cy, cy), (cx, cx)), mode="edge")
        out = np.zeros_like(a)
        for m in range(k.shape[0]):
            for n in range(k.shape[1]):
                out += k[m, n] * padded[2 * cy - m:2 * cy - m + a.shape[0], 2 * cx - n:2 * cx - n + a.shape[1]]
        return out

    check(conv_nofft(k, x), x, X, numpy_conv_nofft)
    c = Variable((9, 8, 2))
    k3 = np.repeat(rng.random((3, 3, 1)), 2, axis=2)
    with pytest.raises(Error, match="pass dims=2"):
        conv(k3, c)
    conv(k3, c, dims=2)


def bilinear_rows_cols(a, Hm):
    """ProxImaL's warp (cv2.warpPerspective of the transposed image with WARP_INVERSE_MAP): out[r, c]
    samples a at H (r, c, 1), bilinearly, 0 outside."""
    out = np.zeros_like(a)
    for r in range(a.shape[0]):
        for c in range(a.shape[1]):
            p = Hm @ np.array([r, c, 1.0])
            rr, cc = p[0] / p[2], p[1] / p[2]
            r0, c0 = int(np.floor(rr)), int(np.floor(cc))
            fr, fc = rr - r0, cc - c0
            for dr, dc, wgt in ((0, 0, (1 - fr) * (1 - fc)), (1, 0, fr * (1 - fc)), (0, 1, (1 - fr) * fc),
                                (1, 1, fr * fc)):
                if 0 <= r0 + dr < a.shape[0] and 0 <= c0 + dc < a.shape[1]:
                    out[r, c] += wgt * a[r0 + dr, c0 + dc]
    return out


def test_warp_takes_proximals_row_column_homography():
    x = Variable((9, 8))
    X = rng.standard_normal((9, 8)).astype(np.float32)
    Hm = np.array([[1.0, 0.08, 0.6], [-0.05, 0.97, 0.4], [0.0, 0.0, 1.0]], dtype=np.float32).astype(np.float64)
    value, w = inner(warp(x, Hm), x, X)
    assert value == pytest.approx(float(np.sum(w * bilinear_rows_cols(X.astype(np.float64), Hm))), rel=1e-4)


def test_mul_color_and_pxwise_matrixmult():
    c = Variable((5, 6, 3))
    C = rng.standard_normal((5, 6, 3)).astype(np.float32)
    yuv = np.array([[0.299, 0.587, 0.114], [-0.16873660714285, -0.33126339285715, 0.5],
                    [0.5, -0.4186875, -0.0813125]])
    check(mul_color(c, "yuv"), c, C, lambda a: a @ yuv.T)
    A = rng.standard_normal((5, 6, 2, 3)).astype(np.float32)
    check(pxwise_matrixmult(A, c), c, C, lambda a: np.einsum("yxij,yxj->yxi", A.astype(np.float64), a))


def test_functions_values():
    x = Variable((4, 6, 3))
    X = rng.standard_normal((4, 6, 3)).astype(np.float32)
    x.value = X
    X64 = X.astype(np.float64)
    assert (2 * sum_entries(x)).value == pytest.approx(X64.sum(), rel=1e-6)  # ProxImaL's alpha leaves it unchanged
    assert group_norm1(x, [0]).value == pytest.approx(np.sqrt((X64 ** 2).sum(axis=0)).sum(), rel=1e-6)
    assert group_norm1(x, [1, 2]).value == pytest.approx(np.sqrt((X64 ** 2).sum(axis=(1, 2))).sum(), rel=1e-6)
    W = rng.random((4, 6, 3))
    assert weighted_group_norm1(x, [2], W).value == pytest.approx(
        np.sqrt(((W * X64) ** 2).sum(axis=2)).sum(), rel=1e-5)
    assert norm1(x, alpha=0.5, beta=2.0, b=1.0, c=W, gamma=0.25, d=3.0).value == pytest.approx(
        0.5 * np.abs(2 * X64 - 1).sum() + (W * X64).sum() + 0.25 * (X64 ** 2).sum() + 3.0, rel=1e-6)


def test_masked_nonneg_is_zero_off_the_mask():
    x = Variable((6, 8))
    b = rng.standard_normal((6, 8))
    mask = (rng.random((6, 8)) > 0.4).astype(np.float64)
    Problem([sum_squares(x - b), masked_nonneg(x, mask)]).solve(solver="admm", eps_abs=1e-6, eps_rel=1e-6,
                                                                max_iters=3000)
    np.testing.assert_allclose(x.value, np.maximum(b, 0) * mask, atol=1e-3)


def test_one_dimensional_variables():
    x = Variable(7)
    X = rng.standard_normal(7).astype(np.float32)
    check(grad(x), x, X, lambda a: forward_difference(a, 0)[:, None])
    check(subsample(x, (2,)), x, X, lambda a: a[::2])
    k = np.array([1.0, 2.0, 3.0])
    check(conv(k, x), x, X, lambda a: sum(k[m] * np.roll(a, m - 1) for m in range(3)))


def test_pock_chambolle_given_its_steps_runs_them_fixed():
    # ProxImaL's two-function problem: sum_squares(X - B) + |X|_1 with B = 0..49, solved by its
    # Pock-Chambolle with tau = 0.5, sigma = 1, theta = 1 to 1e-5. The optimum is the soft
    # threshold X = max(B - 1/2, 0), objective 49/4 + sum(B) - 49/2 (computed here).
    X = Variable((10, 5))
    B = np.reshape(np.arange(50), (10, 5)).astype(np.float64)
    optimum = 49 * 0.25 + B.sum() - 49 * 0.5
    expected = np.maximum(B - 0.5, 0)
    prob = Problem([norm1(X), sum_squares(X, b=B)])
    value = prob.solve(solver="pc", tau=0.5, sigma=1.0, theta=1.0, eps_rel=1e-5, eps_abs=1e-5, max_iters=1000)
    assert prob.result.converged
    assert abs(value - optimum) <= 1e-5 * optimum
    np.testing.assert_allclose(X.value, expected, atol=2e-2 * np.abs(expected).max())
    # the accelerated variant is still there when asked for: it changes the steps, so it takes
    # another path (and, here, many more iterations)
    fixed_iterations = prob.result.iterations
    prob.solve(solver="pc", tau=0.5, sigma=1.0, accelerate=True, eps_rel=1e-5, eps_abs=1e-5, max_iters=1000)
    assert prob.result.iterations != fixed_iterations
