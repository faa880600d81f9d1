"""ProxImaL's operators as NumPy functions: LinOp.forward / adjoint / value / is_diag / get_diag,
CompGraph and est_CompGraph_norm, each computed by ProxGen's own lowering of the operator (the
cards' forward and adjoint code, as the solvers run it; proxgen/runtime_apply.hpp), compiled once
per structure and cached, not by a NumPy re-implementation.

Two views of an operator, as in ProxImaL:

- ``op.forward(inputs, outputs)`` / ``op.adjoint(inputs, outputs)`` apply the node alone: inputs
  are the values of its input nodes (one array per input node), outputs its output (forward) or
  one array per input node (adjoint). The node is made again over stand-in variables, one per input
  node, and that expression is evaluated. Constants added by the node (x - b) are read as 0, as
  in ProxImaL's CompGraph.
- ``CompGraph(expr)`` applies the whole expression's linear part to the variables' values, flat
  and stacked in the order of their creation (ProxImaL's ordering by uuid).

Arrays are converted to float32 (ProxGen's images); results are float32 arrays.
"""

import numpy as np

from . import _core, lin_ops as lo
from .rt import Error

__all__ = ["CompGraph", "est_CompGraph_norm"]


def _core_array(value, shape, what):
    """value as a float32 array of the ProxGen shape of a ProxImaL shape (same element count; C order)."""
    a = np.asarray(value, dtype=np.float32)
    if a.size != int(np.prod(shape)):
        raise Error("{}: an array of shape {} for shape {}".format(what, a.shape, tuple(shape)))
    return a.reshape(lo._core_shape(tuple(shape)))


def _rest(shape):
    """The axes after the first two, reversed: ProxGen's element order runs the first of them fastest."""
    return tuple(range(len(shape) - 1, 1, -1))


def _stand_in(shape, k):
    """An expression standing for input node k, of ProxImaL shape `shape`, over a variable named
    ``_stand_in_name`` (it does not advance the numbering of user variables). ProxGen's variables
    have at most 3 axes: a longer shape (grad of a colour image) is a 3-D variable reshaped in
    ProxGen's element order; _pack and _unpack map arrays to and from that variable."""
    core = tuple(shape) if len(shape) <= 3 else tuple(shape[:2]) + (int(np.prod(shape[2:])),)
    v = lo.Variable.__new__(lo.Variable)
    v.varname, v._value, v.initval, v._uid = "input{}".format(k), None, None, -1
    lo.LinOp.__init__(v, lo.rt.variable(v.varname, lo._core_shape(core)), core)
    node = v if core == tuple(shape) else lo.LinOp(lo.rt.reshape(v._expr, shape), shape, [v])
    node._stand_in_name = v.varname
    return node


def _pack(value, shape, what):
    """An array of ProxImaL shape `shape` as the value of _stand_in(shape)'s variable (float32)."""
    a = _core_array(value, shape, what)
    if len(shape) <= 3:
        return a
    return a.reshape(shape).transpose((0, 1) + _rest(shape)).reshape(tuple(shape[:2]) + (-1,))


def _unpack(value, shape):
    """The value of _stand_in(shape)'s variable as an array of shape `shape`."""
    if len(shape) <= 3:
        return value.reshape(shape)
    rest = _rest(shape)
    return value.reshape(tuple(shape[:2]) + tuple(shape[d] for d in rest)).transpose((0, 1) + rest)


def _again(op, replace):
    """op made again over replace(node) for each of its input nodes: the node itself as an operator of
    its inputs (a sum's constants are input nodes, as in ProxImaL; an offset added to one operator is
    dropped)."""
    if isinstance(op, lo._Affine):
        arg = replace(op.input_nodes[0])
        return lo._Negation(arg) if op.how == "rsub" else arg
    if isinstance(op, lo._Sum):
        # every input node, constants included, is an operand of the node itself (ProxImaL's sum adds
        # the values it is given, one per input node)
        parts = [(sign, replace(node)) for (sign, _), node in zip(op.parts, op.input_nodes)]
        return parts[0][1] if len(parts) == 1 else lo._Sum(parts, op.shape)
    if not hasattr(op, "_made_with"):
        raise Error("{}: this operator cannot be applied on its own".format(type(op).__name__))
    args, kwargs = op._made_with

    def again(a):
        if isinstance(a, lo.LinOp):
            return replace(a)
        if isinstance(a, (list, tuple)) and any(isinstance(e, lo.LinOp) for e in a):
            return type(a)(again(e) for e in a)
        return a

    return type(op)(*[again(a) for a in args], **{k: again(v) for k, v in kwargs.items()})


def _local(op):
    """(the node over stand-ins, the stand-ins), one stand-in per input node; cached on op."""
    cached = op.__dict__.get("_local_form")
    if cached is not None:
        return cached
    if isinstance(op, lo.Variable):
        op._stand_in_name = op.varname
        form = (op, [op])
    else:
        stand_ins = [_stand_in(n.shape, k) for k, n in enumerate(op.input_nodes)]
        order = iter(range(len(op.input_nodes)))

        def replace(arg):
            # arguments appear in the order of the input nodes; a node used twice gets one stand-in per use
            k = next(order)
            if arg is not op.input_nodes[k]:
                raise AssertionError("proxgen: {}'s arguments are not its input nodes (a proxgen bug)".format(
                    type(op).__name__))
            return stand_ins[k]

        form = (_again(op, replace), stand_ins)
    op.__dict__["_local_form"] = form
    return form


def _as_list(values, count, what):
    if isinstance(values, np.ndarray) or np.isscalar(values):
        values = [values]
    values = list(values)
    if len(values) != count:
        raise Error("{}: {} arrays for {} input nodes".format(what, len(values), count))
    return values


def _write(out, value):
    """value into the caller's array out (ProxImaL's outputs are written in place); returns out."""
    if out is None:
        return value
    np.copyto(out, value.reshape(np.shape(out)), casting="unsafe")
    return out


def forward(op, inputs, outputs=None):
    """ProxImaL's op.forward(inputs, outputs): the node applied to its input nodes' values."""
    node, stand_ins = _local(op)
    what = "{}.forward".format(type(op).__name__)
    values = {s._stand_in_name: _pack(v, s.shape, what)
              for s, v in zip(stand_ins, _as_list(inputs, len(stand_ins), what))}
    y = _core.apply_linear(node._expr, values).reshape(op.shape)
    return _write(None if outputs is None else _as_list(outputs, 1, what)[0], y)


def adjoint(op, inputs, outputs=None):
    """ProxImaL's op.adjoint(inputs, outputs): the node's adjoint, one output per input node."""
    node, stand_ins = _local(op)
    what = "{}.adjoint".format(type(op).__name__)
    y = _core_array(_as_list(inputs, 1, what)[0], op.shape, what)
    back = _core.apply_adjoint(node._expr, y)
    outs = [None] * len(stand_ins) if outputs is None else _as_list(outputs, len(stand_ins), what)
    return [_write(o, _unpack(back[s._stand_in_name], s.shape)) for s, o in zip(stand_ins, outs)]


def _values(variables, what):
    out = {}
    for v in variables:
        if v.value is None:
            raise Error("{}: variable '{}' has no value (solve first, or assign {}.value)".format(
                what, v.varname, v.varname))
        out[v.varname] = _core_array(v.value, v.shape, what)
    return out


def value(op):
    """op at its variables' current values, its constants included (ProxImaL's LinOp.value)."""
    return _core.evaluate(op._expr, _values(op.variables(), "value of {}".format(type(op).__name__))).reshape(op.shape)


def is_diag(op, freq=False):
    """Diagonal (freq=True: in the Fourier domain), as the planner's facts say."""
    return bool(_core.operator_facts(op._expr)["fft_diagonal" if freq else "diagonal"])


def is_gram_diag(op, freq=False):
    """K^T K diagonal (freq=True: in the Fourier domain). A stack's Gram matrix is the sum of its
    parts' (per variable), so a stack of such parts is one too, scaled or not."""
    facts = _core.operator_facts(op._expr)
    if facts["fft_diagonal"] if freq else facts["diagonal"] or facts["gram_diagonal"]:
        return True
    if isinstance(op, (lo.vstack, lo.scale)) and op.input_nodes:
        return all(is_gram_diag(n, freq) for n in op.input_nodes)
    return False


def get_diag(op, freq=False):
    """{variable: its diagonal}: d of a diagonal K (K applied to ones), sqrt of K^T K's diagonal for
    a Gram-diagonal one, and with freq=True the transfer function of a Fourier-diagonal K (the 2-D FFT
    of K applied to an impulse at the origin, ProxImaL's psf2otf for a convolution)."""
    if freq and not is_diag(op, True):
        raise Error("get_diag(freq=True): {} is not diagonal in the Fourier domain".format(type(op).__name__))
    if not freq and not is_gram_diag(op, False):
        raise Error("get_diag: {} is not diagonal (nor is K^T K)".format(type(op).__name__))
    graph = CompGraph(op)
    diagonal = not freq and is_diag(op, False)
    out = {}
    for v in graph.variables:
        values = {u.varname: np.zeros(lo._core_shape(u.shape), np.float32) for u in graph.variables}
        probe = values[v.varname]
        if freq:
            probe.reshape(-1)[0] = 1.0  # the impulse at the origin (channels apart: per channel below)
            if probe.ndim > 2:
                probe[0, 0, ...] = 1.0
        else:
            probe[...] = 1.0
        k1 = _core.apply_linear(graph._linear, values)
        if freq:
            k1 = k1.reshape(op.shape)
            out[v] = np.fft.fftn(k1, axes=tuple(range(min(2, k1.ndim))))
        elif diagonal:
            out[v] = k1.reshape(v.shape)
        else:
            out[v] = np.sqrt(np.maximum(_core.apply_adjoint(graph._linear, k1)[v.varname], 0)).reshape(v.shape)
    return out


class CompGraph:
    """ProxImaL's CompGraph: an expression's linear part K over all its variables, x stacked flat
    (C order) in the order the variables were created, y flat in the expression's shape."""

    def __init__(self, end, implem=None):
        if not isinstance(end, lo.LinOp):
            raise TypeError("CompGraph: the argument must be a ProxImaL expression, got {}".format(type(end).__name__))
        from .offsets import linear_part

        self.end = self.orig_end = end
        self.shape = end.shape
        self.variables = sorted(end.variables(), key=lambda v: v._uid)
        self._linear = linear_part(end)._expr
        self.var_info, offset = {}, 0
        for v in self.variables:
            self.var_info[v] = offset
            offset += v.size
        self.input_size = offset
        self.output_size = int(np.prod(self.shape))

    def _split(self, x):
        x = np.asarray(x).reshape(-1)
        if x.size != self.input_size:
            raise Error("CompGraph.forward: x has {} elements for {} inputs".format(x.size, self.input_size))
        return {v.varname: _core_array(x[o:o + v.size], v.shape, "CompGraph.forward") for v, o in self.var_info.items()}

    def forward(self, x, y=None):
        """K x: reads the flat x, writes the flat y (returned; a new array when y is None)."""
        out = _core.apply_linear(self._linear, self._split(x)).reshape(-1)
        return _write(y, out)

    def adjoint(self, u, v=None):
        """K^T u: reads the flat u (the output's elements), writes the flat v (returned)."""
        u = _core_array(np.asarray(u).reshape(-1), self.shape, "CompGraph.adjoint")
        back = _core.apply_adjoint(self._linear, u)
        out = np.concatenate([back[w.varname].reshape(-1) for w in self.variables])
        return _write(v, out)

    def norm_bound(self, final_output_mags=None):
        """An upper bound on ||K|| from the operators (the planner's); also written into
        final_output_mags[0] when a list is given (ProxImaL's signature)."""
        bound = _core.norm_bound(self._linear)
        if final_output_mags is not None:
            final_output_mags[0] = bound
        return bound

    def update_vars(self, val):
        """Each variable's value from its section of the flat val."""
        val = np.asarray(val).reshape(-1)
        for v, o in self.var_info.items():
            v.value = np.reshape(val[o:o + v.size], v.shape)

    def x0(self):
        """The flat initial point (each variable's initval, else 0)."""
        res = np.zeros(self.input_size, dtype=np.float32)
        for v, o in self.var_info.items():
            if v.initval is not None:
                res[o:o + v.size] = np.ravel(v.initval)
        return res

    def __str__(self):
        return "CompGraph"


def est_CompGraph_norm(K, tol=1e-3, try_fast_norm=True):
    """||K|| of a CompGraph (or of an expression's linear part): with try_fast_norm the operators'
    upper bound (ProxImaL's fast bound), else an estimate on the operator (Lanczos on K^T K, as the
    solvers' step rules, within about 0.3 % above ||K||; ``tol`` is accepted for ProxImaL's
    signature: the estimate stops at its own 1e-3 residual)."""
    if isinstance(K, lo.LinOp):
        K = CompGraph(K)
    if not isinstance(K, CompGraph):
        raise TypeError("est_CompGraph_norm: K must be a CompGraph, got {}".format(type(K).__name__))
    if try_fast_norm:
        bound = K.norm_bound()
        if np.isfinite(bound):
            return float(bound)
    return float(_core.norm_estimate(K._linear))
