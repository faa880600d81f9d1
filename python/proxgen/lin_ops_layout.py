"""ProxImaL's stacking, layout and colour operators (vstack, hstack, split, warp, mul_color, reshape,
transpose, pxwise_matrixmult, crop, pad, concat, merge_last_axes), part of proxgen.lin_ops: each
builds the run-time API's expression, as the operators in lin_ops.py do."""

import builtins

import numpy as np

from . import rt
from .lin_ops import LinOp, _core_axis, _core_shape, _image, _lin, _shape_tuple
from .rt import Error


def _flat(op):
    """op as a (1, n) expression in C order of its ProxImaL shape."""
    return _c_order_reshape(op, (op.size,))


class vstack(LinOp):
    """ProxImaL's vstack: the inputs flattened (C order) and concatenated into one vector."""

    def __init__(self, input_nodes, implem=None):
        nodes = [_lin(n, "vstack") for n in input_nodes]
        exprs = [_flat(n) for n in nodes]
        expr = exprs[0] if len(exprs) == 1 else rt.hstack(*exprs)
        super().__init__(expr, (builtins.sum(n.size for n in nodes),), nodes)


def split(*args, **kwargs):
    raise Error("split: not supported; ProxGen splits terms itself (use crop or subsample to take a part)")


class hstack(LinOp):
    """ProxImaL's hstack: column i of the (n, len(inputs)) result is input i flattened (C order)."""

    def __init__(self, input_nodes, implem=None):
        nodes = [_lin(n, "hstack") for n in input_nodes]
        n0 = nodes[0].size
        if any(n.size != n0 for n in nodes):
            raise Error("hstack: inputs of different sizes {}".format([n.size for n in nodes]))
        cols = [rt.reshape(_flat(n), (n0, 1)) for n in nodes]
        expr = cols[0] if len(cols) == 1 else rt.hstack(*cols)
        super().__init__(expr, (n0, len(nodes)), nodes)


def _swap_xy(H):
    P = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    return P @ H @ P


class warp(LinOp):
    """Bilinear warp by the homography H (3 x 3) from output to input pixel coordinates, 0 outside.
    ProxImaL's H maps (row, column, 1), ProxGen's (x, y, 1): converted here. ProxGen's adjoint is the
    exact transpose (ProxImaL's is an inverse warp)."""

    def __init__(self, arg, H, target_shape=None, implem=None):
        arg = _lin(arg, "warp")
        H = np.asarray(H, dtype=np.float64)
        if H.shape != (3, 3):
            raise Error("warp: H must be 3 x 3 (ProxGen warps by one homography; got shape {})".format(H.shape))
        if arg.ndim not in (2, 3):
            raise Error("warp: the argument must be (H, W) or (H, W, C), got {}".format(arg.shape))
        self.H = H
        shape = arg.shape if target_shape is None else _shape_tuple(target_shape)
        if shape[2:] != arg.shape[2:]:
            raise Error("warp: target_shape {} must keep the channels of {}".format(shape, arg.shape))
        super().__init__(rt.warp(arg._expr, _swap_xy(H), shape[1], shape[0]), shape, [arg])


_COLOR = {
    # ProxImaL's matrices (lin_ops/mul_color.py), rows = output channels
    "opp": [[1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0], [0.5, 0.0, -0.5], [0.25, -0.5, 0.25]],
    "yuv": [[0.299, 0.587, 0.114], [-0.16873660714285, -0.33126339285715, 0.5], [0.5, -0.4186875, -0.0813125]],
}


class mul_color(LinOp):
    """A 3 x 3 colour transform on every pixel: mode 'opp', 'yuv' (ProxImaL's matrices) or a matrix."""

    def __init__(self, arg, mode):
        arg = _lin(arg, "mul_color")
        if isinstance(mode, str):
            if mode not in _COLOR:
                raise Error("mul_color: unsupported color mode '{}' ('opp', 'yuv' or a 3 x 3 matrix)".format(mode))
            M = np.array(_COLOR[mode], dtype=np.float32)
        else:
            M = np.asarray(mode)
            if M.shape != (3, 3):
                raise Error("mul_color: the color matrix is not 3x3 (shape {})".format(M.shape))
        if arg.ndim != 3 or arg.shape[2] != 3:
            raise Error("mul_color: color transform needs a 3 channel image, got shape {}".format(arg.shape))
        self.TC = M
        super().__init__(rt.mul_color(arg._expr, M), arg.shape, [arg])


def _c_order_perm(rank):
    """A permutation t such that transpose(e, t) lists e's elements, in ProxGen's order, in NumPy's C
    order of e. ProxGen's order of an expression of NumPy shape (s0, s1, s2, ...) is axis 1 fastest,
    then axis 0, then axes 2, 3, ...; C order is the last axis fastest, then the one before, ..."""
    if rank <= 2:
        return list(range(rank))
    return [rank - 2, rank - 1] + list(range(rank - 3, -1, -1))


def _c_order_reshape(op, shape):
    """op's ProxGen expression reshaped to the ProxImaL shape `shape` in NumPy's C order."""
    return c_order_reshape(op._expr, _core_shape(tuple(shape)))


def c_order_reshape(e, dst):
    """The expression e (an rt.Expr) reshaped to the NumPy shape dst in NumPy's C order."""
    src, dst = tuple(e.shape), tuple(dst)
    if src == dst:
        return e
    if len(src) > 2:
        e = rt.transpose(e, _c_order_perm(len(src)))
    t = _c_order_perm(len(dst))
    e = rt.reshape(e, [dst[d] for d in t])
    if len(dst) > 2:
        inverse = [0] * len(t)
        for d, a in enumerate(t):
            inverse[a] = d
        e = rt.transpose(e, inverse)
    return e


class reshape(LinOp):
    """The same elements in a new shape, in NumPy's C order (as np.reshape)."""

    def __init__(self, arg, shape):
        arg = _lin(arg, "reshape")
        shape = _shape_tuple(shape)
        if int(np.prod(shape)) != arg.size:
            raise Error("reshape: cannot reshape {} elements into shape {}".format(arg.size, shape))
        super().__init__(_c_order_reshape(arg, shape), shape, [arg])


class transpose(LinOp):
    """Axis permutation, as np.transpose(arg, axes)."""

    def __init__(self, arg, axes):
        arg = _lin(arg, "transpose")
        self.axes = tuple(int(a) for a in axes)
        if sorted(self.axes) != list(range(arg.ndim)):
            raise Error("transpose: {} is not a permutation of the {} axes of shape {}".format(
                self.axes, arg.ndim, arg.shape))
        shape = tuple(arg.shape[a] for a in self.axes)
        if arg.ndim == 1:
            expr = arg._expr
        else:
            expr = rt.transpose(arg._expr, list(self.axes))
        super().__init__(expr, shape, [arg])


class pxwise_matrixmult(LinOp):
    """out[y, x] = A[y, x] @ arg[y, x]: A of shape (H, W, M, N), arg (H, W, N), out (H, W, M)."""

    def __init__(self, A, arg, normbound=None):
        arg = _lin(arg, "pxwise_matrixmult")
        A = _image(A, "pxwise_matrixmult: A")
        self.A = A
        super().__init__(rt.pxwise_matmul(A, arg._expr), A.shape[:-1], [arg])


pxwise_matmul = pxwise_matrixmult


class crop(LinOp):
    """ProxGen's crop: the height x width window whose top-left pixel is (row y0, column x0)."""

    def __init__(self, arg, x0, y0, width, height):
        arg = _lin(arg, "crop")
        super().__init__(rt.crop(arg._expr, x0, y0, width, height), (height, width) + arg.shape[2:], [arg])


class pad(LinOp):
    """ProxGen's pad: zeros around the image (left and right columns, top and bottom rows)."""

    def __init__(self, arg, left, top, right, bottom):
        arg = _lin(arg, "pad")
        shape = (arg.shape[0] + top + bottom, arg.shape[1] + left + right) + arg.shape[2:]
        super().__init__(rt.pad(arg._expr, left, top, right, bottom), shape, [arg])


class concat(LinOp):
    """ProxGen's concat: a and b joined along a NumPy axis (np.concatenate)."""

    def __init__(self, a, b, axis):
        a, b = _lin(a, "concat"), _lin(b, "concat")
        ax = _core_axis(a, axis)
        expr = rt.concat(a._expr, b._expr, ax)
        shape = list(a.shape)
        shape[axis] += b.shape[axis]
        super().__init__(expr, tuple(shape), [a, b])


class merge_last_axes(LinOp):
    """ProxGen's merge_last_axes: the last two axes as one (channels x directions for colour TV)."""

    def __init__(self, arg):
        arg = _lin(arg, "merge_last_axes")
        super().__init__(rt.merge_last_axes(arg._expr), arg.shape[:-2] + (arg.shape[-2] * arg.shape[-1],), [arg])
