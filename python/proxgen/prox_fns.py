"""ProxImaL's prox functions (proximal.prox_fns) over ProxGen's run-time API.

A ProxFn is ProxImaL's  alpha * f(beta * v - b) + <c, v> + gamma * ||v||^2 + d  with v = lin_op(x),
with the meaning ProxImaL's Problem.solve gives it (docs/python.md, "Modifiers and offsets"): v is
K x + o, its constant o taken out as ProxImaL's absorb_offset takes it, after its absorb_lin_op has
folded leading scalar factors s (2 * (...), -(...)) into beta:

    alpha * f(beta * s * K x - b / s + o)   ->  f's argument: (K x + o) with x scaled by beta * s, minus b / s
    <c, v> + gamma * ||v||^2                 ->  on K x, the argument without its constant
    d                                        ->  added to the objective Problem.solve returns

(``_terms``; the offset is not multiplied by beta.) zero_prox and sum_entries have f = 0: only c,
gamma and d count.
"""

import numpy as np

from . import _batch, _core, offsets, rt
from .lin_ops import _core_shape, _lin, _is_scalar, c_order_reshape, mul_elemwise, scale
from .rt import Error

__all__ = ["ProxFn", "sum_squares", "weighted_sum_squares", "least_squares", "norm1", "weighted_norm1",
           "group_norm1", "weighted_group_norm1", "nonneg", "weighted_nonneg", "masked_nonneg", "poisson_norm",
           "weighted_poisson_norm", "sum_entries", "zero_prox", "patch_NLM", "diff_fn", "lsqr_options",
           "cg_options", "box", "huber"]


def _scalar(value, name, nonneg):
    if not _is_scalar(value):
        raise Error("{} must be a {}scalar.".format(name, "nonnegative " if nonneg else ""))
    value = float(value)
    if nonneg and not value >= 0:
        raise Error("{} must be a nonnegative scalar.".format(name))
    return value


class ProxFn:
    """alpha * f(beta * lin_op - b) + <c, lin_op> + gamma * ||lin_op||^2 + d (ProxImaL's ProxFn)."""

    # NumPy defers to ProxFn's reflected operators (2.0 * f) instead of broadcasting over it.
    __array_ufunc__ = None

    def __init__(self, lin_op, alpha=1.0, beta=1.0, b=0.0, c=0.0, gamma=0.0, d=0.0, implem=None):
        self.lin_op = _lin(lin_op, type(self).__name__)
        for elem, name in ((b, "b"), (c, "c")):
            if not (_is_scalar(elem) or np.shape(elem) == self.lin_op.shape or _batch.check(
                    elem, self.lin_op.shape, "{}: {}".format(type(self).__name__, name)) is not None):
                raise Error("Invalid dimensions of {}: {} for an argument of shape {}.".format(
                    name, np.shape(elem), self.lin_op.shape))
        self.alpha = _scalar(alpha, "alpha", True)
        self.beta = _scalar(beta, "beta", False)
        self.gamma = _scalar(gamma, "gamma", True)
        self.d = _scalar(d, "d", False)
        self.b = b
        self.c = c
        self.implem_key = implem

    # -- subclasses: f as ProxGen terms of its argument (an rt.Expr); None for f = 0 --
    def _f(self, arg):
        raise NotImplementedError

    def get_data(self):
        """Arguments besides lin_op and the modifiers (ProxImaL's get_data)."""
        return []

    def _array(self, value, role):
        """value broadcast to the argument's shape (or a batch of it) as ProxGen data of the argument's
        ProxGen shape (a batch: a named input, _batch.data; ``role`` names it)."""
        shape = self.lin_op.shape
        a = _batch.core(_batch.broadcast(np.asarray(value), shape, type(self).__name__), shape)
        return _batch.data(a, _core_shape(shape), role)

    def _terms(self, absorb=True):
        """This function as a ProxGen problem (rt.Problem), or None if it adds nothing. ``absorb``:
        ProxImaL's Problem(absorb=...), whether leading scalar factors are folded into beta."""
        prob = None
        if not isinstance(self, zero_prox):
            prob = self._f(self._argument(absorb))
            if prob is not None and self.alpha != 1.0:
                prob = self.alpha * prob
        v = offsets.linear_part(self.lin_op)._expr
        if _is_scalar(self.c):
            c = float(self.c)
            if c != 0.0:
                prob = _plus(prob, rt.sum_entries(v) if c == 1.0 else c * rt.sum_entries(v))
        elif _batch.decide(lambda c: np.any(c != 0), np.asarray(self.c), self.lin_op.shape,
                           "{}: whether c is 0".format(type(self).__name__)):
            prob = _plus(prob, rt.sum_entries(rt.mul_elemwise(self._array(self.c, "c"), v)))
        if self.gamma != 0.0:
            prob = _plus(prob, self.gamma * rt.sum_squares(v))
        return prob

    def _argument(self, absorb):
        """f's argument as ProxImaL's Problem.solve makes it (module docstring)."""
        inner, scalar, weight = self.lin_op, 1.0, None
        if absorb:  # ProxImaL's absorb_lin_op, repeated: leading scale and (for some f) mul_elemwise nodes
            fold_weights = type(self) in _WEIGHTABLE and self.gamma == 0.0
            while True:
                if isinstance(inner, scale):
                    scalar *= inner.scalar
                elif fold_weights and isinstance(inner, mul_elemwise):
                    weight = inner.weight if weight is None else weight * inner.weight
                else:
                    break
                inner = inner.input_nodes[0]
        b, shape = self.b, self.lin_op.shape
        _batch.sizes([(b, shape, "b"), (weight, shape, "the weight of mul_elemwise")], type(self).__name__)
        if not _is_zero(b) and (scalar != 1.0 or (weight is not None and np.any(weight == 0))):
            # absorb_lin_op divides b by each factor it folds; where a folded weight is 0, the weighted
            # function's argument is 0 whatever b is
            b = _batch.broadcast(np.asarray(b, dtype=np.float64) / scalar, shape, type(self).__name__)
            if weight is not None:
                b = np.where(weight != 0, b, 0.0)
        if offsets.has_constants(inner):
            arg = offsets.with_variables_scaled(inner, self.beta * scalar)._expr
            if weight is not None:
                arg = rt.mul_elemwise(self._array(weight, "weight"), arg)
        else:  # no constant: beta * v, as written
            v = self.lin_op._expr
            arg = v if self.beta == 1.0 else self.beta * v
        if not _is_zero(b):
            arg = arg - self._array(b, "offset")
        return arg

    def variables(self):
        return self.lin_op.variables()

    def prox(self, rho, v, *args, **kwargs):
        """ProxImaL's prox: argmin_x alpha f(beta x - b) + <c, x> + gamma ||x||^2 + rho/2 ||x - v||^2, x of
        lin_op's shape (the operator itself plays no part, as in ProxImaL). f's part is its card's prox
        as the solvers lower it, alpha, beta and b in the term (alpha f(beta x - b)); c and gamma fold
        into the quadratic: rho/2 ||x - v||^2 + <c, x> + gamma ||x||^2 is (rho + 2 gamma)/2 ||x - w||^2
        plus a constant, w = (rho v - c) / (rho + 2 gamma). A scalar v gives a scalar."""
        from .lin_ops_apply import _pack, _stand_in, _unpack

        scalar = np.ndim(v) == 0
        shape = self.lin_op.shape
        v = np.asarray(v, dtype=np.float64)
        if v.size != int(np.prod(shape)):
            raise Error("{}.prox: v has shape {} for an argument of shape {}".format(type(self).__name__, v.shape,
                                                                                   shape))
        rho = float(rho)
        if not (np.isfinite(rho) and rho > 0):
            raise Error("{}.prox: rho must be finite and > 0, got {}".format(type(self).__name__, rho))
        rho_q = rho + 2.0 * self.gamma
        w = (rho * v.reshape(shape) - np.broadcast_to(np.asarray(self.c, dtype=np.float64), shape)) / rho_q
        if self.alpha == 0.0 or isinstance(self, zero_prox):  # f = 0: the quadratic alone
            out = w.astype(np.float32)
        else:
            # a stand-in variable of the argument's shape (a 4-D one is a 3-D variable reshaped:
            # lin_ops_apply._stand_in), the array packed into its order and back
            u = _stand_in(shape, 0)
            fn = self.copy(lin_op=u, c=0.0, gamma=0.0, d=0.0)
            out = _unpack(rt.prox(fn._terms(absorb=False), rho_q, _pack(w, shape, "prox")), shape)
        out = np.asarray(out).reshape(shape)
        return out.reshape(-1)[0] if scalar else out

    @property
    def value(self):
        """This function at the variables' current values (after solve)."""
        from .problem import _objective_at_values

        return _objective_at_values([self])

    def __str__(self):
        return type(self).__name__

    def __repr__(self):
        terms = self._terms()
        return "{}: {}".format(type(self).__name__, terms if terms is not None else "0")

    # -- ProxImaL's arithmetic: f + g is a list of functions, s * f scales alpha --
    def __add__(self, other):
        if isinstance(other, ProxFn):
            return [self, other]
        if isinstance(other, list):
            return [self] + other
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, list):
            return other + [self]
        if _is_scalar(other) and float(other) == 0:  # Python's sum() starts from 0
            return [self]
        return NotImplemented

    def __mul__(self, other):
        if _is_scalar(other) and float(other) >= 0:
            return self.copy(alpha=self.alpha * float(other))
        raise TypeError("Can only multiply by a positive scalar.")

    __rmul__ = __mul__

    def __truediv__(self, other):
        return (1.0 / float(other)) * self

    __div__ = __truediv__

    def copy(self, lin_op=None, **kwargs):
        """A copy with other modifiers (ProxImaL's copy)."""
        lin_op = self.lin_op if lin_op is None else lin_op
        current = {"alpha": self.alpha, "beta": self.beta, "gamma": self.gamma, "c": self.c, "b": self.b,
                   "d": self.d, "implem": self.implem_key}
        for key, value in current.items():
            kwargs.setdefault(key, value)
        return type(self)(lin_op, *self.get_data(), **kwargs)


def _same_shape(fn, a, what):
    """The array a of fn's argument's shape, or a batch of it (_batch), else an error."""
    if a.shape != fn.lin_op.shape and _batch.check(a, fn.lin_op.shape, "{}: the {}".format(
            type(fn).__name__, what)) is None:
        raise Error("{}: the {}'s shape {} is not the argument's shape {}".format(
            type(fn).__name__, what, a.shape, fn.lin_op.shape))


def _plus(a, b):
    return b if a is None else a + b


def _is_zero(b):
    return _is_scalar(b) and float(b) == 0.0


class sum_squares(ProxFn):
    """||v||^2."""

    def _f(self, arg):
        return rt.sum_squares(arg)


class least_squares(sum_squares):
    """||v||^2, as sum_squares (ProxImaL's extra arguments offset, diag, freq_diag are not supported:
    ProxGen chooses the x-update itself)."""

    def __init__(self, lin_op, offset=None, diag=None, freq_diag=None, freq_dims=None, implem=None, **kwargs):
        for name, value in (("offset", offset), ("diag", diag), ("freq_diag", freq_diag), ("freq_dims", freq_dims)):
            if value is not None:
                raise Error("least_squares: the argument '{}' is not supported (write sum_squares(K x - b); ProxGen "
                            "plans the x-update)".format(name))
        super().__init__(lin_op, implem=implem, **kwargs)

    def _f(self, arg):
        return rt.least_squares(arg)


class _Weighted(ProxFn):
    """f(weight * v), the weight an array of the argument's shape."""

    def __init__(self, lin_op, weight, **kwargs):
        self.weight = np.asarray(weight)
        super().__init__(lin_op, **kwargs)
        _same_shape(self, self.weight, "weight")

    def get_data(self):
        return [self.weight]

    def _w(self):
        return self._array(self.weight, "weight")


class weighted_sum_squares(_Weighted, sum_squares):
    """||weight * v||^2."""

    def _f(self, arg):
        return rt.weighted_sum_squares(self._w(), arg)


class norm1(ProxFn):
    """||v||_1."""

    def _f(self, arg):
        return rt.norm1(arg)


class weighted_norm1(_Weighted, norm1):
    """||weight * v||_1."""

    def _f(self, arg):
        return rt.weighted_norm1(self._w(), arg)


class nonneg(ProxFn):
    """The indicator of v >= 0."""

    def _f(self, arg):
        return rt.nonneg(arg)


class weighted_nonneg(_Weighted, nonneg):
    """The indicator of weight * v >= 0."""

    def _f(self, arg):
        return rt.weighted_nonneg(self._w(), arg)


class masked_nonneg(nonneg):
    """v >= 0 where mask >= 0.5 and v == 0 elsewhere (ProxImaL's prox, max(v, 0) * mask): nonneg(v)
    plus nonneg((mask - 1) * v), i.e. v <= 0 off the mask. (ProxGen's own masked_nonneg,
    proxgen.rt.masked_nonneg, leaves v free off the mask.)"""

    def __init__(self, lin_op, mask, **kwargs):
        self.mask = (np.asarray(mask) >= 0.5).astype(np.float32)
        super().__init__(lin_op, **kwargs)
        _same_shape(self, self.mask, "mask")

    def get_data(self):
        return [self.mask]

    def _f(self, arg):
        prob = rt.nonneg(arg)
        if _batch.decide(lambda m: np.any(m == 0), self.mask, self.lin_op.shape,
                         "masked_nonneg: whether the mask leaves any element out"):
            prob = prob + rt.nonneg(rt.mul_elemwise(self._array(self.mask - 1.0, "mask"), arg))
        return prob


class _Grouped(ProxFn):
    """Shared by group_norm1 and weighted_group_norm1: groups over `group_dims`."""

    def _group_arg(self, arg):
        """arg with the group axes moved last and merged into one (ProxGen groups over the last axis)."""
        r = self.lin_op.ndim
        dims = sorted({d + r if d < 0 else d for d in self.group_dims})
        if not dims or dims[0] < 0 or dims[-1] >= r:
            raise Error("group_norm1: group_dims {} for an argument of shape {}".format(self.group_dims,
                                                                                      self.lin_op.shape))
        if len(dims) == r:
            raise Error("group_norm1: grouping over every axis ({}) of shape {} is not supported".format(
                dims, self.lin_op.shape))
        if len(dims) == 1 and dims[0] == r - 1 and r >= 3:
            return arg  # ProxGen's own grouping: over the last axis (isotropic TV of grad)
        if r == 4 and dims == [2, 3]:
            return rt.merge_last_axes(arg)  # colour TV: channels x directions
        # otherwise: the group axes moved last, then (1, rest, group) in C order (ProxGen's groups
        # run along an axis after the image plane)
        rest = [d for d in range(r) if d not in dims]
        if rest + dims != list(range(r)):
            arg = rt.transpose(arg, rest + dims)
        shape = tuple(arg.shape)
        return c_order_reshape(arg, (1, int(np.prod(shape[:len(rest)])), int(np.prod(shape[len(rest):]))))


class group_norm1(_Grouped):
    """sum over groups of ||v_g||_2, the groups spanning the axes `group_dims` (default: the last axis;
    isotropic TV: group_norm1(grad(x, 2), [2]))."""

    def __init__(self, lin_op, group_dims=None, **kwargs):
        lin = _lin(lin_op, "group_norm1")
        self.group_dims = [lin.ndim - 1] if group_dims is None else list(group_dims)
        super().__init__(lin_op, **kwargs)

    def get_data(self):
        return [self.group_dims]

    def _f(self, arg):
        return rt.group_norm1(self._group_arg(arg))


class weighted_group_norm1(_Grouped):
    """sum over groups of ||(weight * v)_g||_2."""

    def __init__(self, lin_op, group_dims, weight, **kwargs):
        self.group_dims = list(group_dims)
        self.weight = np.asarray(weight)
        super().__init__(lin_op, **kwargs)
        _same_shape(self, self.weight, "weight")

    def get_data(self):
        return [self.group_dims, self.weight]

    def _f(self, arg):
        shape, r = self.lin_op.shape, self.lin_op.ndim
        dims = sorted({d + r if d < 0 else d for d in self.group_dims})
        if dims == [r - 1] and r >= 3 and _batch.decide(lambda w: np.all(w == w[..., :1]), self.weight, shape,
                                                        "weighted_group_norm1: whether the weight is one per group"):
            # a weight per group: ProxGen's weighted_group_norm1 (sum_p |w_p| ||v_p||)
            w = _batch.data(np.abs(self.weight[..., 0]), shape[:-1], "weight")
            return rt.weighted_group_norm1(w, self._group_arg(arg))
        return rt.group_norm1(self._group_arg(rt.mul_elemwise(self._array(self.weight, "weight"), arg)))


class poisson_norm(ProxFn):
    """sum(v - bp * log(v)), v >= 0 (the Poisson negative log-likelihood of counts bp)."""

    def __init__(self, lin_op, bp, **kwargs):
        self.bp = np.asarray(bp)
        super().__init__(lin_op, **kwargs)

    def get_data(self):
        return [self.bp]

    def _counts(self):
        return self._array(self.bp, "counts")

    def _f(self, arg):
        return rt.poisson_norm(arg, self._counts())


class weighted_poisson_norm(poisson_norm):
    """poisson_norm of weight * v."""

    def __init__(self, lin_op, bp, weight, **kwargs):
        self.weight = np.asarray(weight)
        super().__init__(lin_op, bp, **kwargs)

    def get_data(self):
        return [self.bp, self.weight]

    def _f(self, arg):
        return rt.weighted_poisson_norm(self._array(self.weight, "weight"), arg, self._counts())


class zero_prox(ProxFn):
    """f = 0 (only its modifiers c, gamma, d count)."""

    def _f(self, arg):
        return None


def sum_entries(lin_op, **kwargs):
    """sum(v): ProxImaL's, a zero_prox whose c is 1 (plus any c given), so that alpha, beta and b
    leave it unchanged (2 * sum_entries(x) is sum(x), as in ProxImaL)."""
    c = kwargs.pop("c", 0.0)
    return zero_prox(lin_op, c=1.0 + (float(c) if _is_scalar(c) else np.asarray(c)), **kwargs)


class patch_NLM(ProxFn):
    """ProxGen's non-local-means denoiser prior (plug and play): 3 x 3 patches, a 7 x 7 search window,
    strength from the algorithm's step. ProxImaL's tuning arguments are accepted at their defaults
    only (ProxGen's denoiser has its own)."""

    _defaults = {"sigma_fixed": 0.6, "sigma_scale": 6.0, "templateWindowSizeNLM": 3, "searchWindowSizeNLM": 11,
                 "gamma_trans": 1.0, "prior": 1}

    def __init__(self, lin_op, sigma_fixed=0.6, sigma_scale=6.0, templateWindowSizeNLM=3, searchWindowSizeNLM=11,
                 gamma_trans=1.0, prior=1, **kwargs):
        given = {"sigma_fixed": sigma_fixed, "sigma_scale": sigma_scale,
                 "templateWindowSizeNLM": templateWindowSizeNLM, "searchWindowSizeNLM": searchWindowSizeNLM,
                 "gamma_trans": gamma_trans, "prior": prior}
        for name, value in given.items():
            if value != self._defaults[name]:
                raise Error("patch_NLM: the argument '{}' is not supported (ProxGen's NLM prior has fixed 3x3 patches "
                            "and a 7x7 search window, its strength set by the algorithm's step)".format(name))
        super().__init__(lin_op, **kwargs)

    def _f(self, arg):
        return rt.patch_nlm(arg)


class diff_fn(ProxFn):
    """ProxImaL's diff_fn: a smooth convex function ``func(x)`` with gradient ``fprime(x)``, both Python
    functions of the whole argument (arrays of lin_op's shape). ProxGen runs its prox, argmin
    f(x) + rho/2 ||x - v||^2, by L-BFGS on the host inside its kernels (rt.host_diff_fn): a slow
    path. A step where func is not finite is backtracked (func may have a domain, as -log).
    ``bounds`` are not supported (an Error); ``factr`` is accepted and unused."""

    def __init__(self, lin_op, func, fprime, bounds=None, factr=1e7, **kwargs):
        if bounds is not None:
            raise Error("diff_fn: bounds are not supported (ProxGen's prox is unconstrained L-BFGS); add nonneg or a "
                        "box penalty on the argument instead")
        self.func, self.fprime, self.bounds, self.factr = func, fprime, bounds, factr
        super().__init__(lin_op, **kwargs)

    def get_data(self):
        return [self.func, self.fprime, self.bounds, self.factr]

    def _f(self, arg):
        shape, func, fprime = self.lin_op.shape, self.func, self.fprime
        core = _core_shape(shape)

        def value(a):
            return float(func(np.asarray(a, dtype=np.float64).reshape(shape)))

        def gradient(a):
            g = np.asarray(fprime(np.asarray(a, dtype=np.float64).reshape(shape)), dtype=np.float64)
            if g.size != int(np.prod(shape)):
                raise Error("diff_fn: fprime returned {} values for an argument of shape {}".format(g.size, shape))
            return g.reshape(core)

        return rt.host_diff_fn(arg, "diff_fn", value, gradient)


# The functions ProxImaL's absorb_lin_op folds a leading mul_elemwise into (as a weight, when gamma
# is 0; algorithms/absorb.py's WEIGHTED, matched by exact type).
_WEIGHTABLE = {nonneg, weighted_nonneg, norm1, weighted_norm1, sum_squares, weighted_sum_squares, poisson_norm,
               weighted_poisson_norm, group_norm1, weighted_group_norm1}


class box(ProxFn):
    """ProxGen's box: the indicator of lo <= v <= hi."""

    def __init__(self, lin_op, lo, hi, **kwargs):
        self.lo, self.hi = float(lo), float(hi)
        super().__init__(lin_op, **kwargs)

    def get_data(self):
        return [self.lo, self.hi]

    def _f(self, arg):
        return rt.box(arg, self.lo, self.hi)


class huber(ProxFn):
    """ProxGen's huber: v^2 for |v| <= M, 2M|v| - M^2 beyond."""

    def __init__(self, lin_op, M, **kwargs):
        self.M = float(M)
        super().__init__(lin_op, **kwargs)

    def get_data(self):
        return [self.M]

    def _f(self, arg):
        return rt.huber(arg, self.M)


class lsqr_options:
    """Accepted for ProxImaL scripts; ProxGen's x-update is exact (FFT/DCT/elementwise) or CG."""

    def __init__(self, atol=1e-6, btol=1e-6, num_iters=50, verbose=False):
        self.atol, self.btol, self.iter_lim, self.show = atol, btol, num_iters, verbose


class cg_options:
    """CG options of ProxImaL's lin_solver_options: tol and num_iters become cg_tol and cg_max_iters."""

    def __init__(self, tol=1e-6, num_iters=50, verbose=False):
        self.tol, self.num_iters, self.verbose = tol, num_iters, verbose


def _catalogue_penalty(name, text):
    """A ProxFn class for a catalogue penalty without a ProxImaL spelling above: f(lin_op, data...)
    with the penalty's other arguments (numbers, arrays) as its data, ProxImaL's modifiers as
    keywords."""

    def __init__(self, lin_op, *data, **kwargs):
        self._data = list(data)
        ProxFn.__init__(self, lin_op, **kwargs)

    def get_data(self):
        return list(self._data)

    def _f(self, arg):
        return rt.call(name, arg, *self._data)

    return type(name, (ProxFn,), {"__init__": __init__, "get_data": get_data, "_f": _f,
                                  "__doc__": "{}: the catalogue's penalty {} (docs/operators.md).".format(text, name)})


# Every other penalty of the catalogue (new cards) by its ProxGen name: written once, in its card.
_spelled_otherwise = {"patch_nlm", "diff_fn"}  # patch_NLM and diff_fn above
for _sig in _core.catalogue():
    if _sig["penalty"] and _sig["name"] not in _spelled_otherwise and _sig["name"] not in globals():
        globals()[_sig["name"]] = _catalogue_penalty(_sig["name"], _sig["text"])
        __all__.append(_sig["name"])
del _sig
