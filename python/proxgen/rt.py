"""proxgen.rt: ProxGen's run-time problem API (C++ ``proxgen/runtime.hpp``) with NumPy images.

The same names, argument orders and meanings as the C++ DSL (docs/operators.md)::

    from proxgen import rt
    x = rt.variable("x", (512, 512))                 # NumPy shape (H, W) or (H, W, C)
    prob = rt.sum_squares(rt.conv(k, x) - b) + 0.002 * rt.group_norm1(rt.grad(x)) + rt.nonneg(x)
    res = rt.solve(prob, algorithm="admm", max_iters=200)
    xs = res["x"]                                    # float32, shape (512, 512)
    # problems of one structure in one call, each member replacing named inputs (b = rt.input("b",
    # ...) in prob) and parameters: one Result per member
    results = rt.solve_batch(prob, [{"b": b0}, {"b": b1}], algorithm="admm")

Axes: NumPy (H, W, C, ...) is ProxGen's (x = W, y = H, c = C, ...); axis arguments (grad's
``axes``, transpose's ``perm``, concat's ``axis``) are NumPy axes and are mapped here. Operators
that name x and y (crop, pad, subsample, warp) keep ProxGen's x-then-y argument order.
"""

from . import _core

Error = _core.Error
Expr = _core.Expr
Problem = _core.Problem
Data = _core.Data
Result = _core.Result
IterationInfo = _core.IterationInfo
variable = _core.variable
input = _core.input  # noqa: A001 (the C++ name)
parameter = _core.parameter
solve = _core.solve
solve_batch = _core.solve_batch
describe = _core.describe
objective = _core.objective
catalogue = _core.catalogue
call = _core.call
# A linear operator given by Python functions array -> array (NumPy shapes), run as a host
# callback inside the kernels: host_operator(name, in_shape, out_shape, forward, adjoint,
# norm_bound, expr); norm_bound 0 estimates it. The adjoint is checked by the dot-product test.
host_operator = _core.host_operator
# diff_fn with Python functions of the whole argument: host_diff_fn(expr, name, value, gradient);
# its prox runs L-BFGS on the host.
host_diff_fn = _core.host_diff_fn
# Expressions and one-term problems as functions on arrays (C++ proxgen/runtime_apply.hpp): values
# by variable name, the cards' own lowering compiled once per structure.
apply_linear = _core.apply_linear
apply_adjoint = _core.apply_adjoint
evaluate = _core.evaluate
norm_bound = _core.norm_bound
norm_estimate = _core.norm_estimate
operator_facts = _core.operator_facts
prox = _core.prox


def _halide_axes(axes, rank):
    return [_core.halide_axis(int(a), rank) for a in axes]


def grad(e, axes=None, boundary=None):
    """Forward differences of e stacked on a new last axis; default: along x then y (NumPy axes 1,
    then 0), Neumann (the last difference is 0). ``axes``: NumPy axes, in stacking order;
    ``boundary``: 'neumann' or 'periodic'."""
    args = [e]
    if axes is not None:
        args.append(_halide_axes(axes, e.ndim))
    if boundary is not None:
        args.append(boundary)
    return _core.call("grad", *args)


def transpose(e, perm):
    """Axis permutation: output axis d is input axis perm[d] (NumPy axes, as np.transpose)."""
    rank = e.ndim
    if len(perm) != rank:
        raise Error("transpose: the permutation {} does not have one entry per axis of {} (rank {})"
                    .format(list(perm), tuple(e.shape), rank))
    sigma = [_core.halide_axis(d, rank) for d in range(rank)]
    halide = [0] * rank
    for d in range(rank):
        halide[sigma[d]] = sigma[_normalized(perm[d], rank)]
    return _core.call("transpose", e, halide)


def reshape(e, shape):
    """The same elements in a new NumPy shape, in ProxGen's element order (x fastest, then y, then
    the further axes); for (H, W) <-> (H * W,)-like reshapes this is NumPy's C order."""
    shape = [int(s) for s in shape]
    halide = list(shape)
    if len(halide) >= 2:
        halide[0], halide[1] = halide[1], halide[0]
    return _core.call("reshape", e, halide)


def concat(a, b, axis):
    """Concatenation of a and b along NumPy axis ``axis``."""
    return _core.call("concat", a, b, _core.halide_axis(int(axis), a.ndim))


def _normalized(axis, rank):
    axis = int(axis)
    return axis + rank if axis < 0 else axis


def _by_name(name, text, penalty):
    def build(*args, **kwargs):
        return _core.call(name, *args, **kwargs)

    build.__name__ = name
    build.__qualname__ = name
    build.__doc__ = "{}: the run-time API's {} ({}); see docs/operators.md.".format(
        text, "penalty" if penalty else "operator", name)
    return build


_mapped = {"grad", "transpose", "reshape", "concat"}
__all__ = ["Error", "Expr", "Problem", "Data", "Result", "IterationInfo", "variable", "input", "parameter",
           "solve", "solve_batch", "describe", "objective", "catalogue", "call", "grad", "transpose", "reshape",
           "concat", "apply_linear", "apply_adjoint", "evaluate", "norm_bound", "norm_estimate", "operator_facts", "prox"]
for _sig in _core.catalogue():
    if _sig["name"] not in _mapped:
        globals()[_sig["name"]] = _by_name(_sig["name"], _sig["text"], _sig["penalty"])
        __all__.append(_sig["name"])
del _sig
