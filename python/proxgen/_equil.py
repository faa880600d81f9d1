"""ProxImaL's matrix equilibration (proximal.algorithms.equil): diagonal scalings d (of K's outputs)
and e (of its inputs) such that diag(d) K diag(e) has rows and columns of about equal norms.

Both minimise the convex function of u = log d, v = log e (m outputs, n inputs)

    f(u, v) = 1/2 sum_ij exp(2 u_i) K_ij^2 exp(2 v_j) - alpha^2 sum(u) - beta^2 sum(v)
              + gamma/2 (|u|^2 + |v|^2),    alpha = (n/m)^(1/4), beta = (m/n)^(1/4),

whose minimiser balances the squared row and column norms of diag(d) K diag(e). `equil` needs only
K's products (a CompGraph or an expression): it estimates sum_j K_ij^2 exp(2 v_j) as the square of
(K (exp(v) * s))_i for a random sign vector s, and takes averaged projected stochastic gradient
steps (Diamond and Boyd's matrix-free equilibration). `newton_equil` is the dense reference: Newton
steps with f's whole Hessian and a backtracking line search on an explicit matrix."""

import math

import numpy as np

from .lin_ops import LinOp
from .lin_ops_apply import CompGraph
from .rt import Error

__all__ = ["equil", "newton_equil"]


def _weights(m, n):
    return (n / m) ** 0.25, (m / n) ** 0.25


def equil(K, iters=50, gamma=1e-1, M=math.log(1e4)):
    """(d, e) for the operator K (a CompGraph or an expression), `iters` stochastic steps, u and v kept
    in [-M, M]; NumPy's global random state draws the sign vectors, as ProxImaL's does."""
    if isinstance(K, LinOp):
        K = CompGraph(K)
    if not isinstance(K, CompGraph):
        raise TypeError("equil: K must be a CompGraph or an expression, got {}".format(type(K).__name__))
    if not (gamma > 0 and M > 0 and iters >= 1):
        raise Error("equil: needs gamma > 0, M > 0 and iters >= 1 (got {}, {}, {})".format(gamma, M, iters))
    m, n = K.output_size, K.input_size
    alpha, beta = _weights(m, n)
    u, v = np.zeros(m), np.zeros(n)
    u_mean, v_mean = np.zeros(m), np.zeros(n)
    for t in range(1, int(iters) + 1):
        step = 2.0 / (gamma * (t + 1))
        Ks = np.asarray(K.forward(np.exp(v) * np.random.choice([-1.0, 1.0], size=n)), dtype=np.float64)
        Kts = np.asarray(K.adjoint(np.exp(u) * np.random.choice([-1.0, 1.0], size=m)), dtype=np.float64)
        grad_u = np.exp(2 * u) * Ks * Ks - alpha ** 2 + gamma * u
        grad_v = np.exp(2 * v) * Kts * Kts - beta ** 2 + gamma * v
        u = np.clip(u - step * grad_u, -M, M)
        v = np.clip(v - step * grad_v, -M, M)
        # the weighted running mean 2/((t+1)(t+2)) sum_s s x_s: later iterates count more
        u_mean = (2 * u + t * u_mean) / (t + 2)
        v_mean = (2 * v + t * v_mean) / (t + 2)
    return np.exp(u_mean), np.exp(v_mean)


def _objective(A2, u, v, gamma, alpha, beta):
    return (0.5 * np.exp(2 * u) @ A2 @ np.exp(2 * v) - alpha ** 2 * u.sum() - beta ** 2 * v.sum()
            + 0.5 * gamma * (u @ u + v @ v))


def newton_equil(A, gamma, max_iters):
    """(d, e) for the dense matrix A: at most max_iters Newton steps on f (its (m + n)^2 Hessian, positive
    definite for gamma > 0), each shortened until f falls by a quarter of the step's predicted decrease."""
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2:
        raise Error("newton_equil: A must be a matrix, got shape {}".format(A.shape))
    m, n = A.shape
    alpha, beta = _weights(m, n)
    A2 = A * A
    u, v = np.zeros(m), np.zeros(n)
    f = _objective(A2, u, v, gamma, alpha, beta)
    for _ in range(int(max_iters)):
        scaled = np.exp(2 * u)[:, None] * A2 * np.exp(2 * v)[None, :]
        row, col = scaled.sum(axis=1), scaled.sum(axis=0)
        grad = np.concatenate([row - alpha ** 2 + gamma * u, col - beta ** 2 + gamma * v])
        hessian = np.block([[np.diag(2 * row + gamma), 2 * scaled], [2 * scaled.T, np.diag(2 * col + gamma)]])
        step = -np.linalg.solve(hessian, grad)
        du, dv = step[:m], step[m:]
        slope = grad @ step
        if -slope < 1e-14 * max(1.0, abs(f)):
            break
        t = 1.0
        while True:
            f_new = _objective(A2, u + t * du, v + t * dv, gamma, alpha, beta)
            if f_new <= f + 0.25 * t * slope or t < 1e-12:
                break
            t *= 0.5
        u, v, f = u + t * du, v + t * dv, f_new
    return np.exp(u), np.exp(v)
