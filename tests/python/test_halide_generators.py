"""ProxImaL's proximal.halide.halide.Halide generators, answered by ProxGen's cards: each against a
reference computed here in NumPy (circular convolution by FFT, masks, forward differences and their
adjoint by the dot-product test, the proxes' closed forms), the output-region rule, and bad calls."""

import numpy as np
import pytest

from proxgen import Error
from proxgen.halide.halide import Halide

rng = np.random.default_rng(11)
IMG = np.asfortranarray(rng.random((24, 20)), dtype=np.float32)


def circular_conv(kernel, x):
    """Circular convolution with the kernel's centre (size // 2) at the origin, by FFT."""
    padded = np.zeros(x.shape)
    padded[:kernel.shape[0], :kernel.shape[1]] = kernel
    padded = np.roll(padded, (-(kernel.shape[0] // 2), -(kernel.shape[1] // 2)), axis=(0, 1))
    return np.real(np.fft.ifft2(np.fft.fft2(x) * np.fft.fft2(padded)))


def run(name, *inputs, shape=None):
    out = np.zeros(shape if shape is not None else IMG.shape, dtype=np.float32, order="F")
    assert Halide(name, recompile=True).run(*inputs, out) == 0
    return out


def test_conv_and_its_adjoint_are_the_circular_convolution_and_correlation():
    K = rng.random((5, 3)).astype(np.float32)
    np.testing.assert_allclose(run("A_conv", IMG, K), circular_conv(K, IMG), atol=1e-5)
    np.testing.assert_allclose(run("At_conv", IMG, K), circular_conv(K[::-1, ::-1], IMG), atol=1e-5)
    # the generator is also a method of that name, as in ProxImaL
    out = np.zeros_like(IMG)
    Halide("A_conv").A_conv(IMG, K, out)
    np.testing.assert_allclose(out, circular_conv(K, IMG), atol=1e-5)


def test_mask_is_elementwise_and_self_adjoint():
    mask = np.maximum(rng.standard_normal(IMG.shape), 0).astype(np.float32)
    np.testing.assert_allclose(run("A_mask", IMG, mask), mask * IMG, rtol=1e-6)
    np.testing.assert_allclose(run("At_mask", IMG, mask), mask * IMG, rtol=1e-6)


def test_grad_is_forward_differences_and_its_adjoint_passes_the_dot_product_test():
    colour = rng.random((16, 14, 3)).astype(np.float32)
    g = run("A_grad", colour, shape=(16, 14, 3, 2))
    # ProxGen's order: the difference along NumPy's axis 1 (x) first, then axis 0 (y); Neumann edges
    dx = np.concatenate([colour[:, 1:] - colour[:, :-1], np.zeros((16, 1, 3))], axis=1)
    dy = np.concatenate([colour[1:] - colour[:-1], np.zeros((1, 14, 3))], axis=0)
    np.testing.assert_allclose(g, np.stack([dx, dy], axis=-1), atol=1e-6)
    field = rng.standard_normal((16, 14, 3, 2)).astype(np.float32)
    back = run("At_grad", field, shape=colour.shape)
    np.testing.assert_allclose(np.vdot(g, field), np.vdot(colour, back), rtol=1e-5)
    # an output smaller than the result gets its region (a 2-D image's (H, W, 1): the x-difference)
    part = run("A_grad", IMG, shape=IMG.shape + (1,))
    np.testing.assert_allclose(part[..., 0], run("A_grad", IMG, shape=IMG.shape + (2,))[..., 0], atol=0)


def test_warp_by_the_identity_and_by_a_shift():
    np.testing.assert_allclose(run("A_warp", IMG, np.eye(3)), IMG, atol=1e-6)
    # H maps (row, column, 1) of the output to the input: one row down
    shift = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    out = run("A_warp", IMG, shift)
    np.testing.assert_allclose(out[:-1], IMG[1:], atol=1e-6)
    np.testing.assert_allclose(out[-1], 0, atol=1e-6)


def test_proxes_are_their_closed_forms():
    v = rng.standard_normal(IMG.shape).astype(np.float32)
    theta = 0.5
    np.testing.assert_allclose(run("prox_L1", v, theta), np.sign(v) * np.maximum(np.abs(v) - theta, 0), atol=1e-6)

    field = rng.standard_normal((10, 8, 1, 2)).astype(np.float32)
    norm = np.sqrt((field ** 2).sum(axis=-1, keepdims=True))
    iso = run("prox_IsoL1", field, theta, shape=field.shape)
    np.testing.assert_allclose(iso, np.maximum(0, 1 - theta / norm) * field, atol=1e-6)

    b = IMG * IMG
    mask = np.maximum(rng.standard_normal(IMG.shape), 0).astype(np.float32)
    expected = 0.5 * (v - theta + np.sqrt((v - theta) ** 2 + 4 * theta * b))
    expected = np.where(mask > 0.5, expected, v)
    np.testing.assert_allclose(run("prox_Poisson", v, mask, b, theta), expected, rtol=1e-4, atol=1e-5)


def test_bad_calls_are_errors_naming_the_problem():
    with pytest.raises(Error, match="no generator named 'A_blur'"):
        Halide("A_blur")
    with pytest.raises(Error, match="takes 2 inputs and the output"):
        Halide("A_conv").run(IMG, np.zeros_like(IMG))
    with pytest.raises(Error, match="larger than the result"):
        run("A_mask", IMG, np.ones_like(IMG), shape=(30, 20))
    with pytest.raises(Error, match="theta must be positive"):
        run("prox_L1", IMG, -1.0)
