"""The problems of reference_cases.cpp written in Python: with proxgen.rt (ProxGen's names) and, where
ProxImaL's operator means the same, with the ProxImaL names (`from proxgen import *`). Images are
made by the same formula as the C++ side, in NumPy order."""

import numpy as np

import proxgen as pg
from proxgen import rt

W, H = 16, 12


def pattern(shape, seed, positive=False):
    """((7x + 13y + 5c + 3k + 11 seed) mod 17) / 16 - 0.5 (or / 8 + 0.25) at NumPy index [y, x, c, k]."""
    idx = np.indices(shape)
    x, y = idx[1], idx[0]
    c = idx[2] if len(shape) > 2 else 0
    k = idx[3] if len(shape) > 3 else 0
    m = (7 * x + 13 * y + 5 * c + 3 * k + 11 * seed) % 17
    return (m / 8.0 + 0.25 if positive else m / 16.0 - 0.5).astype(np.float32)


def homography():
    """ProxGen's convention: maps output (x, y, 1) to input coordinates."""
    return np.array([[1.0, 0.05, 0.7], [-0.04, 1.0, 0.3], [0.0, 0.0, 1.0]], dtype=np.float32)


def indices():
    yy, xx = np.indices((5, 6))
    return ((3 * xx + yy) % W).astype(np.float32), ((2 * yy + xx) % H).astype(np.float32)


def mask():
    yy, xx = np.indices((H, W))
    return ((xx + yy) % 3 != 0).astype(np.float32)


# ---- proxgen.rt: ProxGen's own names, as the C++ cases --------------------------------------------

def rt_ops_filters():
    x = rt.variable("x", (H, W))
    k, k5 = pattern((3, 3), 1, True), pattern((3, 5), 2, True)
    return (rt.sum_squares(rt.conv(k, x) - pattern((H, W), 3)) + 0.5 * rt.norm1(rt.conv(k5, x, "zero"))
            + 0.3 * rt.sum_squares(rt.conv_nofft(k, x))
            + 0.25 * rt.norm1(rt.conv(k, x, boundary="replicate") - pattern((H, W), 4))
            + 0.2 * rt.group_norm1(rt.grad(x)) + 0.1 * rt.norm1(rt.grad(x, boundary="periodic"))
            + 0.4 * rt.sum_squares(rt.mul_elemwise(pattern((H, W), 5, True), x) - pattern((H, W), 6))
            + rt.sum_squares(x + 0.5 * x - (-x) - pattern((H, W), 7)))


def rt_ops_layout():
    x = rt.variable("x", (H, W))
    ix, iy = indices()
    return (rt.sum_squares(rt.subsample(x, 2, 3) - pattern((4, 8), 8)) + 0.7 * rt.norm1(rt.uneven_subsample(x, ix, iy))
            + 0.5 * rt.sum_squares(rt.warp(x, homography()) - pattern((H, W), 9))
            + 0.3 * rt.norm1(rt.crop(x, 2, 3, 8, 5) - pattern((5, 8), 10))
            + 0.2 * rt.sum_squares(rt.pad(x, 1, 2, 3, 1) - pattern((H + 3, W + 4), 11))
            + 0.6 * rt.norm1(rt.transpose(x, (1, 0)) - pattern((W, H), 12))
            + 0.25 * rt.sum_squares(rt.reshape(x, (4, W * H // 4)) - pattern((4, W * H // 4), 13))
            + 0.45 * rt.norm1(rt.concat(x, x, 0)))


def rt_rt_only():
    x = rt.variable("x", (H, W))
    return (rt.sum_squares(x - pattern((H, W), 37)) + 0.15 * rt.norm1(rt.vstack(x, 2.0 * x))
            + 0.35 * rt.sum_squares(rt.hstack(x, -x) - pattern((H, 2 * W), 38)) + rt.masked_nonneg(x, mask()))


def rt_ops_color():
    x = rt.variable("x", (H, W, 3))
    return (rt.sum_squares(rt.conv(pattern((3, 3), 14, True), x) - pattern((H, W, 3), 15))
            + 0.3 * rt.norm1(rt.mul_color(x, pattern((3, 3), 16)))
            + 0.2 * rt.sum_squares(rt.pxwise_matmul(pattern((H, W, 2, 3), 17), x) - pattern((H, W, 2), 18))
            + 0.1 * rt.group_norm1(rt.merge_last_axes(rt.grad(x))) + 0.05 * rt.norm1(rt.grad(x, [1, 0, 2])))


def rt_penalties():
    x = rt.variable("x", (H, W))
    return (rt.sum_squares(x - pattern((H, W), 19)) + 0.5 * rt.least_squares(x - pattern((H, W), 20))
            + 0.1 * rt.norm1(x) + 0.2 * rt.group_norm1(rt.grad(x)) + rt.nonneg(x + 0.25) + 0.05 * rt.sum_entries(x)
            + rt.box(x, -0.4, 0.9) + 0.3 * rt.huber(x - pattern((H, W), 21), 0.2))


def rt_penalties_data():
    x = rt.variable("x", (H, W))
    k = pattern((3, 3), 22, True)
    return (rt.poisson_norm(rt.conv(k, x), pattern((H, W), 23, True))
            + 0.5 * rt.weighted_poisson_norm(pattern((H, W), 24, True), x, pattern((H, W), 25, True))
            + 0.3 * rt.weighted_sum_squares(pattern((H, W), 27, True), x - pattern((H, W), 28))
            + 0.2 * rt.weighted_norm1(pattern((H, W), 29, True), x) + rt.weighted_nonneg(pattern((H, W), 30, True), x)
            + 0.1 * rt.weighted_group_norm1(pattern((H, W), 31, True), rt.grad(x)))


def rt_modifiers():
    x = rt.variable("x", (H, W))
    k = pattern((3, 3), 32, True)
    return (2.0 * rt.norm1(0.5 * rt.conv(k, x) - pattern((H, W), 33))
            + rt.sum_entries(rt.mul_elemwise(pattern((H, W), 34), rt.conv(k, x)))
            + 0.3 * rt.sum_squares(rt.conv(k, x)) + rt.sum_squares(x - pattern((H, W), 35)))


def rt_by_name():
    x = rt.variable("x", (H, W))
    return (rt.sum_squares(x - pattern((H, W), 40)) + 0.2 * rt.norm1(rt.haar(x, 2))
            + 0.1 * rt.schatten(rt.grad(x), 1))


def rt_nlm():
    x = rt.variable("x", (H, W))
    return rt.sum_squares(x - pattern((H, W), 36)) + 0.01 * rt.patch_nlm(x)


RT = {name[3:]: f for name, f in globals().items() if name.startswith("rt_") and callable(f)}


# ---- ProxImaL's names (`from proxgen import *`): (variable, list of prox functions) ----------------

def px_ops_filters():
    x = pg.Variable((H, W), name="x")
    k, k5 = pattern((3, 3), 1, True), pattern((3, 5), 2, True)
    return x, [pg.sum_squares(pg.conv(k, x) - pattern((H, W), 3)), 0.5 * pg.norm1(pg.conv(k5, x, boundary="zero")),
               0.3 * pg.sum_squares(pg.conv_nofft(k, x)),
               0.25 * pg.norm1(pg.conv(k, x, boundary="replicate") - pattern((H, W), 4)),
               0.2 * pg.group_norm1(pg.grad(x, 2), [2]), 0.1 * pg.norm1(pg.grad(x, periodic=True)),
               0.4 * pg.sum_squares(pg.mul_elemwise(pattern((H, W), 5, True), x) - pattern((H, W), 6)),
               pg.sum_squares(x + 0.5 * x - (-x) - pattern((H, W), 7))]


def px_ops_layout():
    x = pg.Variable((H, W), name="x")
    ix, iy = indices()
    P = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]], dtype=np.float64)
    H_rows_cols = P @ homography().astype(np.float64) @ P  # ProxImaL's H acts on (row, column, 1)
    return x, [pg.sum_squares(pg.subsample(x, (3, 2)) - pattern((4, 8), 8)),
               0.7 * pg.norm1(pg.uneven_subsample(x, np.stack([iy, ix]))),
               0.5 * pg.sum_squares(pg.warp(x, H_rows_cols) - pattern((H, W), 9)),
               0.3 * pg.norm1(pg.crop(x, 2, 3, 8, 5) - pattern((5, 8), 10)),
               0.2 * pg.sum_squares(pg.pad(x, 1, 2, 3, 1) - pattern((H + 3, W + 4), 11)),
               0.6 * pg.norm1(pg.transpose(x, (1, 0)) - pattern((W, H), 12)),
               0.25 * pg.sum_squares(pg.reshape(x, (4, W * H // 4)) - pattern((4, W * H // 4), 13)),
               0.45 * pg.norm1(pg.concat(x, x, 0))]


def px_ops_color():
    x = pg.Variable((H, W, 3), name="x")
    return x, [pg.sum_squares(pg.conv(pattern((3, 3), 14, True), x) - pattern((H, W, 3), 15)),
               0.3 * pg.norm1(pg.mul_color(x, pattern((3, 3), 16))),
               0.2 * pg.sum_squares(pg.pxwise_matrixmult(pattern((H, W, 2, 3), 17), x) - pattern((H, W, 2), 18)),
               0.1 * pg.group_norm1(pg.grad(x, 2), [2, 3]), 0.05 * pg.norm1(pg.grad(x))]


def px_penalties():
    x = pg.Variable((H, W), name="x")
    return x, [pg.sum_squares(x - pattern((H, W), 19)), 0.5 * pg.least_squares(x - pattern((H, W), 20)),
               0.1 * pg.norm1(x), 0.2 * pg.group_norm1(pg.grad(x), [2]), pg.nonneg(x + 0.25),
               pg.zero_prox(x, c=0.05), pg.box(x, -0.4, 0.9), 0.3 * pg.huber(x - pattern((H, W), 21), 0.2)]


def px_penalties_data():
    x = pg.Variable((H, W), name="x")
    k = pattern((3, 3), 22, True)
    w31 = np.repeat(pattern((H, W), 31, True)[..., None], 2, axis=2)
    return x, [pg.poisson_norm(pg.conv(k, x), pattern((H, W), 23, True)),
               0.5 * pg.weighted_poisson_norm(x, pattern((H, W), 25, True), pattern((H, W), 24, True)),
               0.3 * pg.weighted_sum_squares(x - pattern((H, W), 28), pattern((H, W), 27, True)),
               0.2 * pg.weighted_norm1(x, pattern((H, W), 29, True)), pg.weighted_nonneg(x, pattern((H, W), 30, True)),
               0.1 * pg.weighted_group_norm1(pg.grad(x), [2], w31)]


def px_modifiers():
    x = pg.Variable((H, W), name="x")
    k = pattern((3, 3), 32, True)
    return x, [pg.norm1(pg.conv(k, x), alpha=2, beta=0.5, b=pattern((H, W), 33), c=pattern((H, W), 34), gamma=0.3),
               pg.sum_squares(x, b=pattern((H, W), 35))]


def px_by_name():
    x = pg.Variable((H, W), name="x")
    return x, [pg.sum_squares(x - pattern((H, W), 40)), 0.2 * pg.norm1(pg.haar(x, 2)),
               0.1 * pg.schatten(pg.grad(x), 1)]


def px_nlm():
    x = pg.Variable((H, W), name="x")
    return x, [pg.sum_squares(x - pattern((H, W), 36)), 0.01 * pg.patch_NLM(x)]


PROXIMAL = {name[3:]: f for name, f in globals().items() if name.startswith("px_") and callable(f)}
