"""ProxImaL's proximal.halide.halide.Halide: its named Halide generators (A_conv, At_conv, A_mask,
At_mask, A_grad, At_grad, A_warp, At_warp, prox_L1, prox_IsoL1, prox_Poisson) called on NumPy
arrays, the last argument the output written in place. Each runs the operator's or the penalty's
card as the solvers lower it (one compiled kernel per structure, cached), so there is nothing to
configure or build: ``recompile``, ``reconfigure``, ``builddir``, ``target_shape`` and ``target``
are accepted and have no effect."""

import numpy as np

from . import lin_ops, prox_fns
from .rt import Error

__all__ = ["Halide"]


def _apply(op, value):
    return op.forward([np.asarray(value, dtype=np.float32)])


def _adjoint(op, value):
    return op.adjoint(np.asarray(value, dtype=np.float32))[0]


def _variable(value):
    return lin_ops.Variable(np.shape(value))


def _conv(image, K, adjoint):
    op = lin_ops.conv(np.asarray(K, dtype=np.float32), _variable(image))
    return _adjoint(op, image) if adjoint else _apply(op, image)


def _mask(image, mask, adjoint):
    op = lin_ops.mul_elemwise(np.asarray(mask, dtype=np.float32), _variable(image))
    return _adjoint(op, image) if adjoint else _apply(op, image)


def _grad(image):
    """Differences along the image plane: (H, W[, C]) -> (H, W[, C], 2)."""
    return _apply(lin_ops.grad(_variable(image), dims=2), image)


def _grad_adjoint(field):
    field = np.asarray(field)
    return _adjoint(lin_ops.grad(lin_ops.Variable(field.shape[:-1]), dims=2), field)


def _warp(image, H):
    # ProxImaL's At_warp is a warp by the inverse homography it is given, not a transpose
    return _apply(lin_ops.warp(_variable(image), H), image)


def _prox(fn, v, theta):
    """argmin_x f(x) + 1/(2 theta) ||x - v||^2."""
    if not np.isscalar(theta) and np.size(theta) != 1:
        raise Error("Halide: theta must be a scalar, got shape {}".format(np.shape(theta)))
    theta = float(np.asarray(theta).ravel()[0])
    if not theta > 0:
        raise Error("Halide: theta must be positive, got {}".format(theta))
    return fn.prox(1.0 / theta, np.asarray(v, dtype=np.float64))


def _prox_l1(v, theta):
    return _prox(prox_fns.norm1(_variable(v)), v, theta)


def _prox_iso_l1(v, theta):
    """Groups along the last axis; (H, W, C, 2) is solved as (H, W * C, 2), the same groups."""
    v = np.asarray(v)
    flat = v.reshape(v.shape[0], -1, v.shape[-1])
    return _prox(prox_fns.group_norm1(_variable(flat), [2]), flat, theta).reshape(v.shape)


def _prox_poisson(v, mask, b, theta):
    """The Poisson prox where mask > 0.5, v elsewhere (ProxImaL's generator)."""
    inside = _prox(prox_fns.poisson_norm(_variable(v), np.asarray(b, dtype=np.float64)), v, theta)
    return np.where(np.asarray(mask) > 0.5, inside, v)


# generator name -> (number of inputs before the output, function of those inputs)
_GENERATORS = {
    "A_conv": (2, lambda x, K: _conv(x, K, False)),
    "At_conv": (2, lambda x, K: _conv(x, K, True)),
    "A_mask": (2, lambda x, m: _mask(x, m, False)),
    "At_mask": (2, lambda x, m: _mask(x, m, True)),
    "A_grad": (1, _grad),
    "At_grad": (1, _grad_adjoint),
    "A_warp": (2, _warp),
    "At_warp": (2, _warp),
    "prox_L1": (2, _prox_l1),
    "prox_IsoL1": (2, _prox_iso_l1),
    "prox_Poisson": (4, _prox_poisson),
}


class Halide:
    """Halide(name).name(inputs..., output): ProxImaL's generator `name` applied to the inputs, written
    into output (a NumPy array, any memory order). As for a Halide pipeline, the output's region is
    computed: an output of the result's shape gets all of it, a smaller one (A_grad into (H, W, C, 1))
    the part it covers; a larger one is an Error."""

    def __init__(self, func, target_shape=(2048, 2048), builddir=None, recompile=False, reconfigure=False,
                 target="host", verbose=False):
        if func not in _GENERATORS:
            raise Error("Halide: no generator named '{}' (ProxGen has {})".format(func, ", ".join(_GENERATORS)))
        self.func = func
        setattr(self, func, self.run)

    def run(self, *args):
        count, function = _GENERATORS[self.func]
        if len(args) != count + 1:
            raise Error("Halide('{0}').{0} takes {1} inputs and the output array, got {2} arguments".format(
                self.func, count, len(args)))
        *inputs, output = args
        if not isinstance(output, np.ndarray):
            raise Error("Halide('{}'): the output must be a NumPy array, got {}".format(self.func, type(output)))
        result = np.asarray(function(*inputs))
        # As a Halide pipeline realizes over its output buffer: the output's region of the result, both
        # read with trailing axes of extent 1 (ProxImaL's buffers: (H, W) is (H, W, 1, 1))
        rank = max(result.ndim, output.ndim)
        out_shape = output.shape + (1,) * (rank - output.ndim)
        res_shape = result.shape + (1,) * (rank - result.ndim)
        if any(o > r for o, r in zip(out_shape, res_shape)):
            raise Error("Halide('{}'): the output has shape {}, larger than the result's {}".format(
                self.func, output.shape, result.shape))
        region = tuple(slice(0, o) for o in out_shape)
        output[...] = result.reshape(res_shape)[region].reshape(output.shape)
        return 0
