"""ProxImaL's operators as NumPy functions (LinOp.forward / adjoint / value / is_diag / get_diag,
CompGraph, est_CompGraph_norm), computed by ProxGen's lowering: forward against references computed
here in NumPy (convolution by FFT, gradients by finite differences, subsampling by slicing), adjoints
by the dot-product test <K x, y> = <x, K^T y>, and the norm estimate against a power iteration."""

import numpy as np
import pytest

import proxgen as px
from proxgen import (CompGraph, Problem, Variable, conv, crop, est_CompGraph_norm, grad, merge_last_axes,
                     mul_elemwise, pad, reshape, subsample, sum, sum_squares, transpose, vstack)

rng = np.random.default_rng(4)
H, W = 12, 10
X = rng.standard_normal((H, W))
K3 = np.array([[0.0, 1.0, 0.5], [2.0, 1.0, 0.0], [0.25, 0.0, 1.0]])


def otf(kernel, shape):
    """The transfer function of the circular convolution whose kernel centre is at size // 2."""
    padded = np.zeros(shape)
    padded[:kernel.shape[0], :kernel.shape[1]] = kernel
    padded = np.roll(padded, (-(kernel.shape[0] // 2), -(kernel.shape[1] // 2)), axis=(0, 1))
    return np.fft.fft2(padded)


def circular_conv(kernel, x):
    return np.real(np.fft.ifft2(np.fft.fft2(x) * otf(kernel, x.shape)))


def test_conv_forward_is_the_circular_convolution():
    x = Variable((H, W))
    fn = conv(K3, x)
    out = np.zeros(fn.shape)
    got = fn.forward([X], [out])
    assert got is out  # written in place, as ProxImaL's
    np.testing.assert_allclose(out, circular_conv(K3, X), atol=1e-5)
    # the adjoint is the correlation: the conjugate transfer function
    back = fn.adjoint([X])[0]
    np.testing.assert_allclose(back, np.real(np.fft.ifft2(np.fft.fft2(X) * np.conj(otf(K3, X.shape)))), atol=1e-5)


def test_grad_forward_is_forward_differences():
    x = Variable((H, W))
    g = grad(x).forward([X])
    dx = np.zeros((H, W))
    dx[:, :-1] = X[:, 1:] - X[:, :-1]  # Neumann: the last difference is 0
    dy = np.zeros((H, W))
    dy[:-1, :] = X[1:, :] - X[:-1, :]
    assert g.shape == (H, W, 2)
    np.testing.assert_allclose(g[..., 0], dx, atol=1e-5)  # ProxGen stacks x first (docs/python.md)
    np.testing.assert_allclose(g[..., 1], dy, atol=1e-5)


def test_subsample_forward_and_adjoint():
    x = Variable((10, 5))
    fn = subsample(x, (2, 1))
    v = np.arange(50.0).reshape(10, 5)
    np.testing.assert_array_equal(fn.forward([v]), v[0::2, :])
    y = np.arange(25.0).reshape(5, 5)
    out = np.zeros((10, 5))
    fn.adjoint([y], [out])
    zero_filled = np.zeros((10, 5))
    zero_filled[0::2, :] = y
    np.testing.assert_array_equal(out, zero_filled)


def test_a_node_applies_to_its_input_nodes_values():
    """forward/adjoint of a node read its input nodes' values (ProxImaL's node-local operators): the
    sum of two variables, and a weight after grad."""
    x, y = Variable((2, 3)), Variable((2, 3))
    fn = sum([x, y])
    xv, yv = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(2, 3) - 5
    np.testing.assert_allclose(fn.forward([xv, yv]).ravel(), 2 * np.arange(6) - 5)
    outs = [np.zeros((2, 3)), np.zeros((2, 3))]
    fn.adjoint([xv], outs)
    for o in outs:
        np.testing.assert_allclose(o, xv)

    w = rng.standard_normal((H, W, 2))
    node = mul_elemwise(w, grad(Variable((H, W))))
    g = rng.standard_normal((H, W, 2))
    np.testing.assert_allclose(node.forward([g]), w * g, rtol=1e-6)
    np.testing.assert_allclose(node.adjoint([g])[0], w * g, rtol=1e-6)


def test_input_nodes_of_four_axes():
    """A node over grad of a colour image (ProxGen's variables have at most three axes): its input
    arrays keep their element places both ways."""
    g_shape = (H, W, 3, 2)
    w = rng.standard_normal(g_shape)
    node = mul_elemwise(w, grad(Variable((H, W, 3)), 2))
    g = rng.standard_normal(g_shape)
    np.testing.assert_allclose(node.forward([g]), w * g, rtol=1e-6)
    np.testing.assert_allclose(node.adjoint([g])[0], w * g, rtol=1e-6)
    both = sum([grad(Variable((H, W, 3)), 2), grad(Variable((H, W, 3)), 2)])
    h = rng.standard_normal(g_shape)
    np.testing.assert_allclose(both.forward([g, h]), g + h, rtol=1e-6, atol=1e-6)


def test_constants_of_a_node_read_as_zero():
    x = Variable((H, W))
    np.testing.assert_allclose((x - X).forward([X]), X, rtol=1e-6)
    np.testing.assert_allclose((X - x).forward([X]), -X, rtol=1e-6)


OPERATORS = {
    "conv": lambda x: conv(K3, x),
    "conv_zero": lambda x: conv(K3, x, boundary="zero"),
    "grad": grad,
    "subsample": lambda x: subsample(x, (3, 2)),
    "mul_elemwise": lambda x: mul_elemwise(X, x),
    "scale_sum": lambda x: 2 * x - 3 * conv(K3, x),
    "crop": lambda x: crop(x, 1, 2, 5, 4),
    "pad": lambda x: pad(x, 1, 2, 0, 3),
    "transpose": lambda x: transpose(x, (1, 0)),
    "reshape": lambda x: reshape(x, (W, H)),
    "vstack": lambda x: vstack([x, grad(x)]),
    "composite": lambda x: mul_elemwise(rng.standard_normal((H, W, 2)), grad(conv(K3, x))),
}


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_adjoint_dot_product(name):
    fn = OPERATORS[name](Variable((H, W)))
    K = CompGraph(fn)
    x = rng.standard_normal(K.input_size)
    y = rng.standard_normal(K.output_size)
    kx = K.forward(x, np.zeros(K.output_size))
    kty = K.adjoint(y, np.zeros(K.input_size))
    lhs, rhs = np.dot(kx, y), np.dot(x, kty)
    assert lhs == pytest.approx(rhs, rel=1e-4, abs=1e-4 * np.linalg.norm(kx) * np.linalg.norm(y))


def test_reshapes_of_a_colour_image():
    """C-order reshapes of a 3-D variable into 4-D and back (transposes and reshapes whose index
    arithmetic vectorizes into VNNI dot products: the JIT target holds only what the CPU has)."""
    x = Variable((6, 5, 6))
    fn = merge_last_axes(reshape(x, (6, 5, 3, 2)))
    K = CompGraph(fn)
    v, u = rng.standard_normal(K.input_size), rng.standard_normal(K.output_size)
    kv = K.forward(v)
    assert np.dot(kv, u) == pytest.approx(np.dot(v, K.adjoint(u)), rel=1e-5)
    np.testing.assert_allclose(np.sort(kv), np.sort(v), atol=1e-6)  # it only moves elements


def test_comp_graph_of_two_variables():
    """x stacked before y (creation order), each flat in C order; constants dropped."""
    x, y = Variable((H, W)), Variable((H, W, 3))
    w = rng.standard_normal((H, W, 3))
    fn = vstack([grad(x), mul_elemwise(w, y) - w])
    K = CompGraph(fn)
    assert K.input_size == H * W * 4 and K.output_size == H * W * 2 + H * W * 3
    xv, yv = rng.standard_normal((H, W)), rng.standard_normal((H, W, 3))
    out = K.forward(np.concatenate([xv.ravel(), yv.ravel()]))
    np.testing.assert_allclose(out[:H * W * 2], grad(x).forward([xv]).ravel(), atol=1e-6)
    np.testing.assert_allclose(out[H * W * 2:], (w * yv).ravel(), atol=1e-6)
    u = rng.standard_normal(K.output_size)
    back = K.adjoint(u)
    np.testing.assert_allclose(back[H * W:], (w * u[H * W * 2:].reshape(H, W, 3)).ravel(), atol=1e-6)
    assert np.dot(out, u) == pytest.approx(np.dot(np.concatenate([xv.ravel(), yv.ravel()]), back), rel=1e-4)


def test_value_of_an_expression():
    x = Variable((H, W))
    x.value = X
    np.testing.assert_allclose((conv(K3, x) - X).value, circular_conv(K3, X) - X, atol=1e-5)
    np.testing.assert_allclose((2 * x + 1).value, 2 * X + 1, atol=1e-6)
    with pytest.raises(px.Error, match="has no value"):
        (conv(K3, Variable((H, W))) + 1).value


def test_value_after_a_solve():
    x = Variable((H, W))
    Problem([sum_squares(x - X)]).solve(solver="pc", max_iters=300, eps_abs=1e-7, eps_rel=1e-7)
    np.testing.assert_allclose(x.value, X, atol=1e-3)
    np.testing.assert_allclose(grad(x).value, grad(x).forward([x.value]), atol=1e-6)
    np.testing.assert_allclose((x - X).value, x.value - X, atol=1e-6)


def test_diagonal_forms():
    x = Variable(5)
    fn = sum([mul_elemwise(np.arange(5) - 3, x), x])
    assert fn.is_diag(freq=False) and not fn.is_diag(freq=True)
    np.testing.assert_allclose(fn.get_diag(freq=False)[x], np.arange(5) - 3 + 1.0)

    v = Variable((5, 1))
    sub = subsample(v, (2, 1))
    assert sub.is_gram_diag(freq=False) and not sub.is_diag(freq=False)
    np.testing.assert_allclose(sub.get_diag(freq=False)[v].ravel(), [1, 0, 1, 0, 1])

    c = conv(K3, Variable((H, W)))
    assert c.is_diag(freq=True) and not c.is_diag(freq=False)
    np.testing.assert_allclose(c.get_diag(freq=True)[c.variables()[0]], otf(K3, (H, W)), atol=1e-5)
    with pytest.raises(px.Error):
        grad(Variable((H, W))).get_diag()


def power_iteration(K, iters=2000):
    v = np.random.default_rng(1).standard_normal(K.input_size)
    s = 0.0
    for _ in range(iters):
        w = K.adjoint(K.forward(v))
        s = np.linalg.norm(w)
        v = w / s
    return np.sqrt(s)


@pytest.mark.parametrize("name", ["conv", "grad", "composite", "vstack"])
def test_norm_estimate_against_power_iteration(name):
    K = CompGraph(OPERATORS[name](Variable((H, W))))
    reference = power_iteration(K)
    estimate = est_CompGraph_norm(K, try_fast_norm=False)
    assert reference * (1 - 1e-3) <= estimate <= reference * 1.01
    assert est_CompGraph_norm(K, try_fast_norm=True) >= reference * (1 - 1e-4)  # an upper bound
    mags = [None]
    assert K.norm_bound(mags) == mags[0] == est_CompGraph_norm(K)  # ProxImaL's signature, and default


def test_norm_of_a_convolution_is_its_largest_transfer_gain():
    K = CompGraph(conv(K3, Variable((H, W))))
    exact = np.abs(otf(K3, (H, W))).max()
    assert exact <= est_CompGraph_norm(K, try_fast_norm=False) <= exact * 1.01


def test_sums_are_flat_and_a_sum_of_constants_is_a_constant():
    x = Variable((2, 5))
    w = np.arange(10.0).reshape(2, 5)
    fn = mul_elemwise(w, x) + x + x
    assert len(fn.input_nodes) == 3  # ProxImaL's sums collect their operands in one node
    x.value = w
    np.testing.assert_allclose(fn.value, w * w + 2 * w, rtol=1e-6)
    fn = mul_elemwise(w, x) - (x - 2 * x)
    np.testing.assert_allclose(fn.value, w * w + w, rtol=1e-6)
    c = sum([w, w - 5])
    assert isinstance(c, px.Constant)
    np.testing.assert_allclose(c.value, 2 * w - 5)
    # a constant added to a sum is one of its input nodes, as in ProxImaL; the operator (CompGraph)
    # leaves it out, the node applied to its inputs' values adds the value given for it
    fn = mul_elemwise(w, x) + x + w
    assert len(fn.input_nodes) == 3 and isinstance(fn.input_nodes[2], px.Constant)
    np.testing.assert_allclose(CompGraph(fn).forward(w.ravel()).reshape(2, 5), w * w + w, rtol=1e-6)
    np.testing.assert_allclose(fn.forward([w * w, w, w]), w * w + 2 * w, rtol=1e-6)
    np.testing.assert_allclose(fn.value, w * w + 2 * w, rtol=1e-6)
    np.testing.assert_allclose(fn.get_offset(), w)


def test_a_stack_of_convolutions_has_a_fourier_diagonal_gram_matrix():
    x = Variable((2, 5))
    k = np.array([[-1.0, 1.0]])
    assert (2 * vstack([conv(k, x), conv(k, x)])).is_gram_diag(freq=True)
    assert not vstack([conv(k, x), mul_elemwise(np.arange(10.0).reshape(2, 5), x)]).is_gram_diag(freq=True)


def test_the_transfer_function_of_a_one_dimensional_convolution():
    x = Variable(5)
    k = np.array([1.0, 2.0, 3.0])
    padded = np.roll(np.r_[k, 0.0, 0.0], -1)  # the kernel's centre at the origin
    np.testing.assert_allclose(conv(k, x).get_diag(freq=True)[x], np.fft.fft(padded), atol=1e-5)
