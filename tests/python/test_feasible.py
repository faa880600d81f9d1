"""A solve that says converged returns an x that satisfies the constraints, with a finite objective:
deconvolution with nonneg(x), ProxImaL's kind of script, whose split constraint the iterate meets
only up to the primal residual (silent wrong answers, item 1)."""

import numpy as np
import pytest

import proxgen as pg


def dark_blurred_scene(n=40):
    yy, xx = np.mgrid[0:n, 0:n]
    scene = ((xx // 8 + yy // 8) % 2).astype(np.float64) * 0.8
    t = np.arange(-4, 5)
    g = np.exp(-(t[:, None] ** 2 + t[None, :] ** 2) / 8.0)
    k = (g / g.sum()).astype(np.float32)
    fk = np.fft.fft2(np.roll(np.pad(k, ((0, n - 9), (0, n - 9))), (-4, -4), (0, 1)))
    b = np.real(np.fft.ifft2(np.fft.fft2(scene) * fk))
    b += np.random.default_rng(3).normal(0, 0.02, b.shape) - 0.15
    return k, b.astype(np.float32)


@pytest.mark.parametrize("solver", [None, "pc", "ladmm", "admm", "hqs"])
def test_deconvolution_with_nonneg_returns_a_feasible_x(solver):
    k, b = dark_blurred_scene()
    x = pg.Variable(b.shape)
    prob = pg.Problem([pg.sum_squares(pg.conv(k, x) - b), 0.002 * pg.group_norm1(pg.grad(x)), pg.nonneg(x)])
    options = {"max_iters": 30 if solver == "hqs" else 3000}  # (HQS's: outer iterations of 100)
    if solver is not None:
        options["solver"] = solver
    value = prob.solve(**options)
    # (HQS's continuation misses the default tolerance here; its x is projected all the same)
    assert prob.result.status == "converged" or solver == "hqs"
    assert x.value.min() >= 0.0
    assert np.isfinite(value)
