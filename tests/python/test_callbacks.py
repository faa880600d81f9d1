"""Callbacks, Ctrl-C, the verbose table and the GIL."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import proxgen as pg
from proxgen import rt

H, W = 12, 16


def small_problem():
    x = rt.variable("x", (H, W))
    b = np.linspace(0, 1, H * W, dtype=np.float32).reshape(H, W)
    return rt.sum_squares(x - b) + 0.1 * rt.group_norm1(rt.grad(x))


def test_callback_sees_each_iteration_and_stops_the_solve():
    seen = []

    def cb(info):
        seen.append(info.as_dict())
        return info.iteration < 7

    res = rt.solve(small_problem(), algorithm="pc", max_iters=100, eps_abs=0, eps_rel=0, callback=cb,
                   check_every=2)
    assert res.status == "stopped_by_callback"
    assert res.iterations == 7
    assert [s["iteration"] for s in seen] == list(range(1, 8))
    assert all(np.isfinite(s["primal_residual"]) for s in seen if s["iteration"] % 2 == 0)


def test_proximal_problem_takes_a_callback():
    x = pg.Variable((H, W))
    prob = pg.Problem([pg.sum_squares(x - 1.0), 0.1 * pg.norm1(pg.grad(x))])
    calls = []
    prob.solve(solver="pc", max_iters=30, eps_abs=0, eps_rel=0, callback=lambda info: calls.append(info.iteration))
    assert calls == list(range(1, 31))  # returning None goes on


def test_an_exception_in_the_callback_propagates():
    def cb(info):
        if info.iteration == 3:
            raise ValueError("stop here")
        return True

    with pytest.raises(ValueError, match="stop here"):
        rt.solve(small_problem(), algorithm="pc", max_iters=100, callback=cb)


def _interrupted_by_ctrl_c(prob, algorithm, max_iters):
    """Sends SIGINT 0.5 s into a solve that would run max_iters; it must raise KeyboardInterrupt
    long before (the iterations are compiled before the clock starts)."""
    rt.solve(prob, algorithm=algorithm, max_iters=100)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            rt.solve(prob, algorithm=algorithm, max_iters=max_iters, eps_abs=0, eps_rel=0)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 60


def test_ctrl_c_interrupts_a_long_solve():
    prob = small_problem()
    _interrupted_by_ctrl_c(prob, "pc", 10 ** 8)
    # and the module still works
    assert rt.solve(prob, algorithm="pc", max_iters=5).iterations == 5


def test_ctrl_c_interrupts_an_automatic_solve():
    # automatic runs its candidates on threads of its own, where Python's signal handlers never run:
    # Ctrl-C reaches them through Options::stop
    prob = small_problem()
    _interrupted_by_ctrl_c(prob, "automatic", 10 ** 9)
    # a callback still stops it, and the module still works
    res = rt.solve(prob, algorithm="automatic", max_iters=10 ** 9, eps_abs=0, eps_rel=0,
                   callback=lambda info: info.iteration < 150)
    assert res.status == "stopped_by_callback"


def test_the_gil_is_released_while_solving():
    prob = small_problem()
    rt.solve(prob, algorithm="pc", max_iters=1)
    ticks = []
    done = threading.Event()

    def solve():
        rt.solve(prob, algorithm="pc", max_iters=20000, eps_abs=0, eps_rel=0)
        done.set()

    t = threading.Thread(target=solve)
    t.start()
    while not done.is_set():
        ticks.append(time.monotonic())
        time.sleep(0.001)
    t.join()
    assert len(ticks) > 5  # the main thread ran while the solve did


def test_verbose_prints_the_cpp_table(capfd):
    x = pg.Variable((H, W))
    pg.Problem([pg.sum_squares(x - 1.0), 0.1 * pg.norm1(pg.grad(x))]).solve(solver="pc", max_iters=20, verbose=True)
    out = capfd.readouterr().out
    assert "ProxGen plan (pock_chambolle)" in out
    header = [line.split() for line in out.splitlines() if line.split()[:2] == ["iter", "objective"]]
    assert header == [["iter", "objective", "r_primal", "eps_primal", "r_dual", "eps_dual", "time[s]"]]
    assert "after" in out and "iterations" in out
