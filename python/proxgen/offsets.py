"""Constants inside ProxImaL expressions (x - b, conv(k, x) + b, 2 * (x - b)): the linear part and
the constant part of an operator, as ProxImaL's absorb_offset separates them.

An expression is made again over its inputs with the arguments each operator was made with
(LinOp._made_with): without its constants (the linear part K x), or with every variable scaled
(K (s x) + o = s K x + o, the offset left unscaled, as ProxImaL's absorb_offset leaves it). The
offset itself as an array (get_offset, absorb_offset) is computed in NumPy for the operators
whose NumPy form is short (in float64), for the others by ProxGen's lowering of the operator
(float32); the solver never needs the array. Batched constants (_batch) give a
batch of offsets, (n, *shape), through the elementwise operators.
"""

import numpy as np

from . import _batch, lin_ops as lo
from .rt import Error


def has_constants(op):
    """Whether a constant image is added anywhere in op (ProxImaL's op.constants() is not empty)."""
    if isinstance(op, lo._Affine):
        return True
    if isinstance(op, lo._Sum) and any(not isinstance(t, lo.LinOp) for _, t in op.parts):
        return True
    return any(has_constants(n) for n in op.input_nodes)


def _made_again(op, variable, keep_constants):
    """op over new inputs: each Variable v replaced by variable(v), constants kept or dropped."""
    if isinstance(op, lo.Variable):
        return variable(op)
    if not op.input_nodes:
        raise AssertionError("proxgen: {} has no inputs (a proxgen bug)".format(type(op).__name__))
    if isinstance(op, lo._Affine):
        arg = _made_again(op.input_nodes[0], variable, keep_constants)
        if keep_constants:
            return lo._Affine(arg, op.data, op.how)
        return lo._Negation(arg) if op.how == "rsub" else arg
    if isinstance(op, lo._Sum):
        parts = [(sign, _made_again(t, variable, keep_constants) if isinstance(t, lo.LinOp) else t)
                 for sign, t in op.parts if keep_constants or isinstance(t, lo.LinOp)]
        if len(parts) == 1:  # the first part is an operator with a + sign (how _Sum is made)
            return parts[0][1]
        return lo._Sum(parts, op.shape)
    if not hasattr(op, "_made_with"):
        raise AssertionError("proxgen: {} cannot be made again (a proxgen bug)".format(type(op).__name__))
    args, kwargs = op._made_with

    def again(a):
        if isinstance(a, lo.LinOp):
            return _made_again(a, variable, keep_constants)
        if isinstance(a, (list, tuple)) and any(isinstance(e, lo.LinOp) for e in a):
            return type(a)(again(e) for e in a)
        return a

    return type(op)(*[again(a) for a in args], **{k: again(v) for k, v in kwargs.items()})


def linear_part(op):
    """op without its constants: ProxImaL's K x of K x + o (op itself when it has none)."""
    if not has_constants(op):
        return op
    return _made_again(op, lambda v: v, keep_constants=False)


def with_variables_scaled(op, s):
    """op with every variable x replaced by s * x: s K x + o for op = K x + o."""
    if s == 1.0:
        return op
    return _made_again(op, lambda v: lo.scale(s, v), keep_constants=True)


def offset(op):
    """o of op = K x + o as an array of op's (ProxImaL) shape, float64: ProxImaL's get_offset."""
    o = _offset(op)
    return np.zeros(op.shape) if o is None else _batch.broadcast(o, op.shape, "get_offset").astype(np.float64)


def _offset(op):
    """The offset, or None where it is zero (no constant below)."""
    if isinstance(op, lo.Variable):
        return None
    if isinstance(op, lo._Affine):
        o = _offset(op.input_nodes[0])
        data = _constant(op.data, op.shape)
        base = 0.0 if o is None else o
        return {"+": lambda: base + data, "-": lambda: base - data, "rsub": lambda: data - base}[op.how]()
    if isinstance(op, lo._Sum):
        total = None
        for sign, t in op.parts:
            o = _offset(t) if isinstance(t, lo.LinOp) else _constant(t, op.shape)
            if o is not None:
                total = sign * o if total is None else total + sign * o
        return total
    inner = [_offset(n) for n in op.input_nodes]
    if all(o is None for o in inner):
        return None
    o = inner[0]
    if isinstance(op, lo.scale):
        return op.scalar * o
    if isinstance(op, lo.mul_elemwise):
        return op.weight * o
    if type(op) is lo.copy:
        return o
    if _batch.size(o, op.input_nodes[0].shape) is not None:
        raise Error("the offset of {}(...) with batched data inside is not computed in NumPy (ProxGen's solver "
                    "takes it as it is: only get_offset / absorb_offset need the array)".format(type(op).__name__))
    if isinstance(op, lo.reshape):
        return np.reshape(o, op.shape)
    if isinstance(op, lo.transpose):
        return np.transpose(o, op.axes) if o.ndim > 1 else o
    if isinstance(op, lo.conv) and op.boundary == "circular" and len(op.shape) >= 2:
        return _circular_conv(op.kernel, o)
    return _evaluated(op)


def _evaluated(op):
    """op at zero variables, by ProxGen's lowering of the operator (lin_ops_apply), in float64."""
    from . import _core

    zeros = {v.varname: np.zeros(lo._core_shape(v.shape), np.float32) for v in op.variables()}
    return _core.evaluate(op._expr, zeros).reshape(op.shape).astype(np.float64)


def _constant(data, shape):
    """A constant image of an expression (its ProxGen shape, or a batch of it) in ProxImaL's shape."""
    a = np.asarray(data, dtype=np.float64)
    return a.reshape(shape if a.ndim == len(lo._core_shape(shape)) else (a.shape[0],) + tuple(shape))


def _circular_conv(kernel, image):
    """ProxGen's circular conv (kernel centre at size // 2) of each channel of image, in float64."""
    from .utils import psf2otf

    otf = psf2otf(np.asarray(kernel, dtype=np.float64), image.shape[:2])
    if image.ndim > 2:
        otf = otf.reshape(otf.shape + (1,) * (image.ndim - 2))
    return np.real(np.fft.ifft2(np.fft.fft2(image, axes=(0, 1)) * otf, axes=(0, 1)))
