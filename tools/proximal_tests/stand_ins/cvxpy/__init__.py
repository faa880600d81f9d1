"""A stand-in for cvxpy, for tools/proximal_tests/run.sh only where cvxpy is not installed: affine
expressions A vec(x) + c of one variable, convex atoms smoothed, solved by L-BFGS-B with continuation."""
import numpy as np
from scipy.optimize import minimize
SCS = "SCS"

class Expr:
    __array_ufunc__ = None
    __array_priority__ = 100

class Aff(Expr):
    def __init__(self, A, c, shape):
        self.A, self.c, self.shape = A, np.asarray(c, float).ravel(), tuple(shape)
    @property
    def T(self):
        if len(self.shape) < 2: return self
        r, s = self.shape
        idx = np.arange(r * s).reshape(r, s).T.ravel()
        return Aff(self.A[idx], self.c[idx], (s, r))
    def _lift(o, n):
        if isinstance(o, Aff): return o
        o = np.asarray(o, float)
        return Aff(np.zeros((o.size, n)), o, o.shape)
    def __add__(self, o):
        if isinstance(o, Atom): return o + self
        o = Aff._lift(o, self.A.shape[1])
        if o.A.shape[0] == 1 and self.A.shape[0] > 1:
            o = Aff(np.repeat(o.A, self.A.shape[0], 0), np.repeat(o.c, self.A.shape[0]), self.shape)
        if self.A.shape[0] == 1 and o.A.shape[0] > 1: return o + self
        return Aff(self.A + o.A, self.c + o.c, self.shape)
    __radd__ = __add__
    def __neg__(self): return Aff(-self.A, -self.c, self.shape)
    def __sub__(self, o): return self + (-Aff._lift(o, self.A.shape[1]))
    def __rsub__(self, o): return (-self) + o
    def __mul__(self, s):
        s = float(s); return Aff(s * self.A, s * self.c, self.shape)
    __rmul__ = __mul__
    def __rmatmul__(self, M):
        M = np.asarray(M, float)
        if M.ndim == 1:
            return Aff(M[None, :] @ self.A if len(self.shape) == 1 else None, [M @ self.c], ())
        if len(self.shape) == 1:
            return Aff(M @ self.A, M @ self.c, (M.shape[0],))
        r = self.shape[1]
        K = np.kron(M, np.eye(r))
        return Aff(K @ self.A, K @ self.c, (M.shape[0], r))
    def __ge__(self, o): return ("ge", self, o)

class Variable(Aff):
    def __init__(self, shape):
        shape = (shape,) if np.isscalar(shape) else tuple(shape)
        n = int(np.prod(shape))
        super().__init__(np.eye(n), np.zeros(n), shape)
        self.value = None

class Atom(Expr):
    def __init__(self, terms): self.terms = terms  # list of (weight, kind, aff)
    def __add__(self, o):
        if isinstance(o, Atom): return Atom(self.terms + o.terms)
        if isinstance(o, Aff): return Atom(self.terms + [(1.0, "lin", o)])
        return Atom(self.terms + [(1.0, "const", float(o))])
    __radd__ = __add__
    def __mul__(self, s): return Atom([(w * float(s), k, a) for w, k, a in self.terms])
    __rmul__ = __mul__

def sum_squares(a): return Atom([(1.0, "sq", a)])
def pnorm(a, p=2): return Atom([(1.0, {1: "l1", 2: "l2"}[p], a)])
def norm(a, p=2): return pnorm(a, p)
def norm1(a): return pnorm(a, 1)
def multiply(M, a):
    M = np.asarray(M, float).ravel()
    return Aff(M[:, None] * a.A, M * a.c, a.shape)
def trace(a):
    n = a.shape[0]; idx = [i * n + i for i in range(n)]
    return Aff(a.A[idx].sum(0, keepdims=True), [a.c[idx].sum()], ())

class Minimize:
    def __init__(self, e): self.e = e if isinstance(e, Atom) else Atom([(1.0, "lin", e)])

class Problem:
    def __init__(self, obj, constraints=()):
        self.obj, self.cons, self.value = obj.e, list(constraints), None
    def _f(self, x, eps):
        f, g = 0.0, np.zeros_like(x)
        for w, k, a in self.obj.terms:
            if k == "const": f += w * a; continue
            r = a.A @ x + a.c
            if k == "sq": f += w * r @ r; g += w * 2 * a.A.T @ r
            elif k == "lin": f += w * r.sum(); g += w * a.A.sum(0)
            elif k == "l1":
                s = np.sqrt(r * r + eps * eps); f += w * (s.sum() - eps * r.size); g += w * a.A.T @ (r / s)
            elif k == "l2":
                s = np.sqrt(r @ r + eps * eps); f += w * s; g += w * a.A.T @ (r / s)
        return f, g
    def solve(self, *args, **kw):
        for _, k, a in self.obj.terms:
            if isinstance(a, Aff): n = a.A.shape[1]; break
        bounds = None
        for c in self.cons:
            if c[0] == "ge": bounds = [(float(c[2]), None)] * n
        x = np.zeros(n)
        for eps in [1e-2, 1e-4, 1e-6, 1e-8, 1e-10]:
            r = minimize(lambda z: self._f(z, eps), x, jac=True, method="L-BFGS-B", bounds=bounds,
                         options=dict(maxiter=20000, ftol=1e-15, gtol=1e-12, maxcor=30))
            x = r.x
        f, _ = self._f(x, 0.0)
        self.value = f
        # the one variable (every expression is of it): the variables of its size get the solution
        for v in _variables:
            if v.A.shape[1] == n:
                v.value = x.reshape(v.shape)
        return f

_variables = []
_orig_init = Variable.__init__
def _tracked_init(self, shape):
    _orig_init(self, shape); _variables.append(self)
Variable.__init__ = _tracked_init
