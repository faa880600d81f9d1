"""ProxImaL's linear operators (proximal.lin_ops) over ProxGen's run-time API.

Each LinOp holds a ProxGen expression (``_expr``, a proxgen.rt.Expr) built when the LinOp is built,
so shape errors appear at the line that makes them. ``shape`` is ProxImaL's NumPy shape. A 1-D
shape (n,) is held as a (1, n) image (ProxGen's variables are 2-D or 3-D); ``_core_shape`` is the
expression's shape and arrays are reshaped between the two in C order.
"""

import builtins
import functools
import itertools

import numpy as np

from . import _batch, _core, rt
from .rt import Error

__all__ = ["LinOp", "Variable", "Constant", "conv", "conv_nofft", "grad", "mul_elemwise", "scale", "subsample",
           "uneven_subsample", "sum", "copy", "vstack", "split", "hstack", "warp", "mul_color", "reshape",
           "transpose", "pxwise_matrixmult", "pxwise_matmul", "LinOpFactory", "BlackBox", "CompGraph", "est_CompGraph_norm",
           "crop", "pad", "concat", "merge_last_axes"]

_variable_count = itertools.count()


def _shape_tuple(shape):
    if np.isscalar(shape):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def _core_shape(shape):
    return (1,) + tuple(shape) if len(shape) == 1 else tuple(shape)


def _is_scalar(v):
    return np.isscalar(v) or (isinstance(v, np.ndarray) and v.ndim == 0)


class LinOp:
    """A linear (or affine) operator applied to variables: ProxImaL's LinOp."""

    # NumPy defers to LinOp's reflected operators (b - x) instead of broadcasting over it.
    __array_ufunc__ = None

    def __init_subclass__(cls, **kwargs):
        """Each operator keeps the arguments it was made with (``_made_with``), so that the
        expression can be made again over other inputs: ProxImaL's offsets are taken apart that way
        (proxgen/offsets.py)."""
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None:
            return

        @functools.wraps(init)
        def recording_init(self, *args, **kw):
            if not hasattr(self, "_made_with"):  # the outermost constructor: a subclass's super() call is not
                self._made_with = (args, kw)
            init(self, *args, **kw)

        cls.__init__ = recording_init

    def __init__(self, expr, shape=None, input_nodes=()):
        self._expr = expr
        self.shape = _shape_tuple(shape) if shape is not None else tuple(expr.shape)
        self.input_nodes = list(input_nodes)
        if _core_shape(self.shape) != tuple(expr.shape):
            raise AssertionError("proxgen: {} has ProxGen shape {} for ProxImaL shape {} (a proxgen bug)".format(
                type(self).__name__, tuple(expr.shape), self.shape))

    # -- what ProxImaL's LinOp offers --
    @property
    def size(self):
        return int(np.prod(self.shape))

    @property
    def ndim(self):
        return len(self.shape)

    def variables(self):
        """The variables this operator depends on."""
        out = []
        for node in self.input_nodes:
            for v in node.variables():
                if not any(v is o for o in out):
                    out.append(v)
        return out

    def is_constant(self):
        return not self.variables()

    def get_offset(self):
        """The constant o of this expression K x + o, float64 (ProxImaL's get_offset)."""
        from .offsets import offset

        return offset(self)

    # -- the operator as a NumPy function (lin_ops_apply: ProxGen's lowering, compiled and cached) --
    @property
    def value(self):
        """This expression at its variables' values (after solve, or assigned), constants included."""
        return _apply().value(self)

    def forward(self, inputs, outputs=None):
        """ProxImaL's forward: this node applied to its input nodes' values (a list, one array per input
        node), written into outputs[0] when given; returns the output array."""
        return _apply().forward(self, inputs, outputs)

    def adjoint(self, inputs, outputs=None):
        """ProxImaL's adjoint: this node's adjoint applied to inputs[0] (an array of this node's shape),
        written into outputs (one array per input node) when given; returns the list of arrays."""
        return _apply().adjoint(self, inputs, outputs)

    def is_diag(self, freq=False):
        """Whether this expression's linear part is diagonal (freq=True: in the Fourier domain)."""
        return _apply().is_diag(self, freq)

    def is_gram_diag(self, freq=False):
        """Whether K^T K is diagonal (freq=True: in the Fourier domain)."""
        return _apply().is_gram_diag(self, freq)

    def get_diag(self, freq=False):
        """{variable: diagonal} (lin_ops_apply.get_diag)."""
        return _apply().get_diag(self, freq)

    def __str__(self):
        return type(self).__name__

    def __repr__(self):
        return "{}({})".format(type(self).__name__, self._expr)

    # -- arithmetic, as ProxImaL's: sums, scalar multiples, constant offsets --
    def _data(self, value):
        """A constant operand of this operator's shape (or a batch of them), in the expression's shape."""
        if isinstance(value, Constant):
            value = value.value
        a = np.asarray(value)
        if _batch.check(a, self.shape, "the offset b of e + b or e - b") is not None:
            return _batch.core(a, self.shape)
        if a.shape != self.shape:
            try:
                a = np.broadcast_to(a, self.shape)
            except ValueError:
                return a  # ProxGen's own check says what does not match
        return a.reshape(_core_shape(self.shape))

    def _plus(self, other, sign):
        """self + sign * other: one flat sum, as ProxImaL's, where self is a sum or other an operator."""
        if isinstance(other, LinOp):
            if other.shape != self.shape:
                raise Error("sum: operands of shapes {} and {}".format(self.shape, other.shape))
            return _Sum(_summands(self) + [(sign * s, term) for s, term in _summands(other)], self.shape)
        if isinstance(self, _Sum):
            return _Sum(self.parts + [(sign, self._data(other))], self.shape)
        return _Affine(self, self._data(other), "+" if sign > 0 else "-")

    def __add__(self, other):
        return self._plus(other, 1)

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self._plus(other, -1)

    def __rsub__(self, other):
        return _Affine(self, self._data(other), "rsub")

    def __neg__(self):
        return _Negation(self)

    def __mul__(self, other):
        if _is_scalar(other) and not isinstance(other, (bool, np.bool_)):
            return scale(other, self)
        raise TypeError("Can only multiply by a scalar constant.")

    __rmul__ = __mul__

    def __truediv__(self, other):
        if _is_scalar(other):
            return scale(1.0 / float(other), self)
        raise TypeError("Can only divide by a scalar constant.")

    __div__ = __truediv__


class _Affine(LinOp):
    """arg + b ("+"), arg - b ("-") or b - arg ("rsub"): an operator and a constant image b of its
    ProxGen shape (ProxImaL's sum with a Constant)."""

    def __init__(self, arg, data, how):
        self.data, self.how = data, how
        b = _batch.data(data, arg._expr.shape, "offset")
        expr = {"+": lambda: arg._expr + b, "-": lambda: arg._expr - b, "rsub": lambda: b - arg._expr}[how]()
        super().__init__(expr, arg.shape, [arg])


class Variable(LinOp):
    """An unknown image: Variable((H, W)) or Variable((H, W, C)) (1-D shapes (n,) too).

    ProxGen names it for describe() and Result: ``name=`` or x, x1, x2, ... in order of creation.
    """

    def __init__(self, shape, name=None, value=None):
        shape = _shape_tuple(shape)
        n = next(_variable_count)
        self.varname = name if name is not None else ("x" if n == 0 else "x{}".format(n))
        self._uid = n  # creation order: CompGraph stacks variables in it (ProxImaL's order by uuid)
        self._value = None
        self.initval = None
        super().__init__(rt.variable(self.varname, _core_shape(shape)), shape)
        if value is not None:
            self.value = value

    def variables(self):
        return [self]

    @property
    def value(self):
        """The solution after Problem.solve (float32, this variable's shape), or what was assigned."""
        return self._value

    @value.setter
    def value(self, val):
        self._value = None if val is None else np.asarray(val, dtype=np.float32).reshape(self.shape)

    def __repr__(self):
        return "Variable({}, name='{}')".format(self.shape, self.varname)


class Constant:
    """ProxImaL's Constant: an array in an expression (x - Constant(b) is x - b)."""

    __array_ufunc__ = None
    input_nodes = ()  # a leaf of the expression graph, as a Variable

    def __init__(self, value):
        self._value = np.asarray(value)
        self.shape = self._value.shape

    @property
    def value(self):
        return self._value

    def variables(self):
        return []

    def __neg__(self):
        return Constant(-self._value)

    def __add__(self, other):
        if isinstance(other, LinOp):
            return other + self._value
        return Constant(self._value + np.asarray(other))

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, LinOp):
            return other.__rsub__(self._value)
        return Constant(self._value - np.asarray(other))

    def __rsub__(self, other):
        if isinstance(other, LinOp):
            return other - self._value
        return Constant(np.asarray(other) - self._value)


def _lin(arg, what):
    if isinstance(arg, LinOp):
        return arg
    raise TypeError("{}: the argument must be a ProxImaL expression of a Variable, got {}".format(
        what, type(arg).__name__))


def _core_axis(op, axis):
    """ProxImaL (NumPy) axis of op -> axis of op's ProxGen expression (NumPy order)."""
    r = op.ndim
    a = axis + r if axis < 0 else axis
    if not 0 <= a < r:
        raise Error("axis {} is out of range for shape {}".format(axis, op.shape))
    return 1 if r == 1 else a


def _image(value, what):
    a = np.asarray(value)
    if a.dtype.kind == "c":
        raise TypeError("{}: ProxGen images are real (float32); got a complex array".format(what))
    return a


class conv(LinOp):
    """Circular convolution with a 2-D kernel, centre at size // 2 (ProxImaL's psf2otf); channels of a
    3-D argument are convolved separately. ``boundary`` (ProxGen): 'circular', 'zero' or 'replicate'."""

    def __init__(self, kernel, arg, dims=None, implem=None, boundary="circular"):
        arg = _lin(arg, "conv")
        k = _image(kernel, "conv: kernel")
        if k.ndim == arg.ndim == 3 and k.shape[2] == 1:
            k = k[:, :, 0]
        if k.ndim == 3 and arg.ndim == 3:
            if dims is None:
                raise Error("conv: a 3-D kernel with dims=None is ProxImaL's 3-D convolution, which mixes channels; "
                            "ProxGen convolves each channel over the image plane: pass dims=2")
            if not all(np.array_equal(k[:, :, c], k[:, :, 0]) for c in range(k.shape[2])):
                raise Error("conv: ProxGen's kernels are 2-D, applied to every channel; this {} kernel differs between "
                            "channels (write one conv per channel)".format(k.shape))
            k = k[:, :, 0]
        if arg.ndim == 1 and k.ndim == 1:
            k = k.reshape(1, -1)
        if dims is not None and dims != min(2, arg.ndim) and not (arg.ndim == 1 and dims == 1):
            raise Error("conv: dims={} is not supported: ProxGen convolves over the image plane (dims=2)".format(dims))
        self.kernel, self.boundary = k, boundary
        super().__init__(rt.conv(k, arg._expr, boundary), arg.shape, [arg])


class conv_nofft(LinOp):
    """Convolution with the edge pixels repeated outside the image (ProxImaL's conv_nofft)."""

    def __init__(self, kernel, arg, implem=None):
        arg = _lin(arg, "conv_nofft")
        k = _image(kernel, "conv_nofft: kernel")
        if k.ndim != arg.ndim:
            raise Error("conv_nofft: number of kernel dimensions must be equal to arg dimensions, pad with 1's if "
                        "necessary")
        if k.ndim == 3:
            if k.shape[2] != 1:
                raise Error("conv_nofft: ProxGen's kernels are 2-D (kernel shape (kh, kw, 1) for a 3-D argument)")
            k = k[:, :, 0]
        if k.ndim == 1:
            k = k.reshape(1, -1)
        self.kernel = k
        super().__init__(rt.conv_nofft(k, arg._expr), arg.shape, [arg])


class grad(LinOp):
    """Forward differences along the first ``dims`` axes (default: all), stacked on a new last axis,
    Neumann boundary. ProxGen stacks the x-difference (NumPy axis 1) first, then y (axis 0), then
    the further axes: ProxImaL stacks axis 0 first (docs/python.md). ``periodic`` (ProxGen): wrap."""

    def __init__(self, arg, dims=None, implem=None, periodic=False):
        arg = _lin(arg, "grad")
        self.dims = arg.ndim if dims is None else int(dims)
        if not 1 <= self.dims <= arg.ndim:
            raise Error("grad: dims={} for an argument of rank {}".format(dims, arg.ndim))
        boundary = "periodic" if periodic else None
        if arg.ndim == 1:  # (1, n) -> (1, n, 1) -> ProxImaL's (n, 1), the same element order
            expr = rt.reshape(rt.grad(arg._expr, [1], boundary), (arg.shape[0], 1))
        elif self.dims == 2:
            expr = rt.grad(arg._expr, None, boundary)  # x and y: the spectral x-updates know this one
        else:
            order = [1, 0] + list(range(2, self.dims)) if self.dims >= 2 else [0]
            expr = rt.grad(arg._expr, order, boundary)
        super().__init__(expr, arg.shape + (self.dims,), [arg])


class mul_elemwise(LinOp):
    """Elementwise product with a weight array of the argument's shape."""

    def __init__(self, weight, arg, implem=None):
        arg = _lin(arg, "mul_elemwise")
        w = _image(weight, "mul_elemwise: weight")
        if w.shape != arg.shape and _batch.check(w, arg.shape, "mul_elemwise: the weight") is None:
            raise Error("mul_elemwise: the weight's shape {} is not the argument's shape {}".format(w.shape, arg.shape))
        self.weight = w  # a batch: one weight per member (_batch)
        w = _batch.data(_batch.core(w, arg.shape), arg._expr.shape, "weight")
        super().__init__(rt.mul_elemwise(w, arg._expr), arg.shape, [arg])


class scale(LinOp):
    """scalar * arg."""

    def __init__(self, scalar, arg):
        arg = _lin(arg, "scale")
        self.scalar = float(scalar)
        super().__init__(self.scalar * arg._expr, arg.shape, [arg])


class _Negation(scale):
    """-arg: ProxImaL's negation is scale(-1, arg), which its absorption folds into beta."""

    def __init__(self, arg):
        self.scalar = -1.0
        LinOp.__init__(self, -arg._expr, arg.shape, [arg])


class subsample(LinOp):
    """Every steps[i]-th element along axis i, starting at 0."""

    def __init__(self, arg, steps):
        arg = _lin(arg, "subsample")
        self.steps = _shape_tuple(steps)
        if len(self.steps) != arg.ndim:
            raise Error("subsample: {} steps for an argument of rank {}".format(len(self.steps), arg.ndim))
        if arg.ndim == 1:
            sx, sy = self.steps[0], 1
        else:
            sy, sx = self.steps[0], self.steps[1]
            if any(s != 1 for s in self.steps[2:]):
                raise Error("subsample: ProxGen subsamples the image plane only; steps {} along the further axes "
                            "must be 1".format(self.steps[2:]))
        shape = tuple((d - 1) // s + 1 for d, s in zip(arg.shape, self.steps))
        super().__init__(rt.subsample(arg._expr, sx, sy), shape, [arg])


class uneven_subsample(LinOp):
    """out[p] = arg[indices[0][p], indices[1][p]] (integer indices, one row per axis of arg)."""

    def __init__(self, arg, indices):
        arg = _lin(arg, "uneven_subsample")
        idx = np.asarray(indices)
        if idx.shape[0] != arg.ndim:
            raise Error("uneven_subsample: indices need one row per axis of the argument ({}), got shape {}".format(
                arg.ndim, idx.shape))
        if not np.all(idx == np.round(idx)):
            raise Error("uneven_subsample: only integer indices are supported")
        for d in range(arg.ndim):
            if idx[d].min() < 0 or idx[d].max() >= arg.shape[d]:
                raise Error("uneven_subsample: indices along axis {} leave [0, {}); ProxImaL reads 0 there, ProxGen "
                            "does not support it".format(d, arg.shape[d]))
        out_shape = idx.shape[1:]
        if arg.ndim == 1:
            ix, iy = idx[0].reshape(1, -1), np.zeros((1, idx.shape[1]))
        elif arg.ndim == 2:
            iy, ix = idx[0], idx[1]
        else:
            channels = np.arange(arg.shape[2]).reshape((1,) * (idx.ndim - 2) + (-1,))
            same = idx.ndim == 4 and np.array_equal(idx[2], np.broadcast_to(channels, idx[2].shape)) and all(
                np.array_equal(idx[d], np.broadcast_to(idx[d][..., :1], idx[d].shape)) for d in (0, 1))
            if not same:
                raise Error("uneven_subsample: for a 3-D argument ProxGen samples the image plane, the same for every "
                            "channel (indices[2][..., c] == c)")
            iy, ix = idx[0][..., 0], idx[1][..., 0]
        self.indices = idx
        super().__init__(rt.uneven_subsample(arg._expr, ix, iy), out_shape, [arg])


def sum(input_nodes, *args, **kwargs):  # noqa: A001 (ProxImaL's name, exported by `import *`)
    """ProxImaL's sum lin op: sum([a, b, ...]) of expressions; of constants alone (arrays or Constants of
    one shape), a Constant. Anything else goes to Python's sum."""
    nodes = list(input_nodes) if isinstance(input_nodes, (list, tuple)) else None
    if nodes and not args and not kwargs and builtins.all(isinstance(n, (Constant, np.ndarray)) for n in nodes):
        values = [n.value if isinstance(n, Constant) else n for n in nodes]
        if builtins.all(v.shape == values[0].shape and v.ndim > 0 for v in values):
            return Constant(builtins.sum(values[1:], values[0]))
    if not nodes or not builtins.all(isinstance(n, (LinOp, Constant)) or isinstance(n, np.ndarray) for n in nodes) \
            or not builtins.any(isinstance(n, LinOp) for n in nodes):
        return builtins.sum(input_nodes, *args, **kwargs)
    lin = [n for n in nodes if isinstance(n, LinOp)]
    out = lin[0]
    for n in lin[1:]:
        if n.shape != out.shape:
            raise Error("sum: operands of shapes {} and {}".format(out.shape, n.shape))
    constants = [(1, out._data(n)) for n in nodes if not isinstance(n, LinOp)]
    return _Sum([(1, n) for n in lin] + constants, out.shape)


def _constant_node(data, shape):
    """A Constant of the ProxImaL shape holding data (kept as given where it is a batch)."""
    data = np.asarray(data)
    node = Constant(data.reshape(shape) if data.size == int(np.prod(shape)) else data)
    node.shape = tuple(shape)
    return node


def _summands(op):
    """op as (sign, term) parts of a sum: a sum's own parts, or op itself."""
    return list(op.parts) if isinstance(op, _Sum) else [(1, op)]


class _Sum(LinOp):
    """A sum of expressions (ProxImaL's sum): ``parts`` is a list of (sign, term), each term an
    operator or a constant image of the ProxGen shape, summed in that order. Its input nodes are the
    terms, a constant as a Constant node of the sum's shape (as ProxImaL's sums hold them)."""

    def __init__(self, parts, shape):
        self.parts = list(parts)
        expr = self.parts[0][1]._expr
        for sign, term in self.parts[1:]:
            e = term._expr if isinstance(term, LinOp) else _batch.data(term, expr.shape, "offset")
            expr = expr + e if sign > 0 else expr - e
        super().__init__(expr, shape, [t if isinstance(t, LinOp) else _constant_node(t, shape) for _, t in self.parts])


class copy(LinOp):
    """ProxImaL's copy: the identity (ProxGen shares expressions by value)."""

    def __init__(self, arg):
        arg = _lin(arg, "copy")
        super().__init__(arg._expr, arg.shape, [arg])




# Stacking, layout and colour operators live in their own module; it builds on the classes above.
from .lin_ops_layout import (c_order_reshape, concat, crop, hstack, merge_last_axes, mul_color, pad,  # noqa: E402,F401
                             pxwise_matmul, pxwise_matrixmult, reshape, split, transpose, vstack, warp)


def LinOpFactory(input_shape, output_shape, forward, adjoint, norm_bound=None):
    """ProxImaL's black-box operator: ``forward(input, output)`` and ``adjoint(input, output)`` are
    Python functions that write the operator's result into ``output`` (NumPy arrays of ProxImaL's
    shapes). Returns a function that applies the operator to an expression of ``input_shape``.

    ProxGen runs them as host callbacks inside its kernels (rt.host_operator: a slow path, whole
    images, correct in every algorithm). Each application checks the adjoint once with the
    dot-product test (an Error when it fails); without ``norm_bound``, ‖K‖ is estimated by power
    iteration on the functions."""
    input_shape, output_shape = _shape_tuple(input_shape), _shape_tuple(output_shape)
    if len(_core_shape(input_shape)) != len(_core_shape(output_shape)):
        raise Error("LinOpFactory: ProxGen's black-box operators keep the number of axes ({} -> {})".format(
            input_shape, output_shape))

    def host(fn, from_shape, to_shape):
        def call(a):
            out = np.zeros(to_shape)
            fn(np.asarray(a, dtype=np.float64).reshape(from_shape), out)
            return out.reshape(_core_shape(to_shape))
        return call

    def get_black_box(arg):
        return BlackBox(arg, input_shape, output_shape, host(forward, input_shape, output_shape),
                        host(adjoint, output_shape, input_shape), norm_bound)

    return get_black_box


class BlackBox(LinOp):
    """A black-box operator made by LinOpFactory (its functions already in ProxGen's array form)."""

    def __init__(self, arg, input_shape, output_shape, forward, adjoint, norm_bound=None):
        arg = _lin(arg, "LinOpFactory")
        if arg.shape != input_shape:
            raise Error("LinOpFactory: the operator takes shape {}, applied to an expression of shape {}".format(
                input_shape, arg.shape))
        bound = 0.0 if norm_bound is None else float(norm_bound)
        expr = _core.host_operator("black_box", _core_shape(input_shape), _core_shape(output_shape), forward,
                                   adjoint, bound, arg._expr)
        super().__init__(expr, output_shape, [arg])


def _apply():
    from . import lin_ops_apply

    return lin_ops_apply


from .lin_ops_apply import CompGraph, est_CompGraph_norm  # noqa: E402,F401


def _catalogue_operator(name, text):
    """A LinOp class for a catalogue operator without a ProxImaL spelling above: its first argument
    is the expression, the rest are passed on (arrays as images, numbers, lists of integers, words)."""

    def __init__(self, arg, *args):
        arg = _lin(arg, name)
        LinOp.__init__(self, rt.call(name, arg._expr, *args), None, [arg])

    return type(name, (LinOp,), {"__init__": __init__, "__doc__": "{}: the catalogue's operator {} (docs/operators.md)."
                                 .format(text, name)})


# Every other operator of the catalogue (new cards) by its ProxGen name: written once, in its card.
_arithmetic = {"add", "subtract", "negate", "scale", "user_operator"}  # Python's operators; Halide code
for _sig in _core.catalogue():
    if not _sig["penalty"] and _sig["name"] not in _arithmetic and _sig["name"] not in globals():
        globals()[_sig["name"]] = _catalogue_operator(_sig["name"], _sig["text"])
        __all__.append(_sig["name"])
del _sig
