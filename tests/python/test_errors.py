"""Bad input raises a Python exception carrying ProxGen's message; the interpreter never crashes."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import proxgen as pg
from proxgen import rt

H, W = 12, 16


def test_wrong_dtype_is_a_type_error():
    x = rt.variable("x", (H, W))
    for bad in (np.ones((H, W), complex), np.array([[object()] * W] * H), np.array([["a"] * W] * H)):
        with pytest.raises(TypeError, match="ProxGen images are float32; an array of dtype"):
            x - bad
    with pytest.raises(TypeError, match="ProxGen images are real"):
        pg.conv(np.ones((3, 3), complex), pg.Variable((H, W)))


def test_shape_mismatch_names_both_shapes():
    x = rt.variable("x", (H, W))
    with pytest.raises(pg.Error, match="the expression is 16x12 but the image is 15x12"):
        x - np.ones((H, W - 1))
    v = pg.Variable((H, W))
    with pytest.raises(pg.Error, match="16x12 but the image is 15x12"):
        pg.sum_squares(v - np.ones((H, W - 1)))
    with pytest.raises(pg.Error, match="mul_elemwise"):
        pg.mul_elemwise(np.ones((H + 1, W)), v)
    with pytest.raises(pg.Error, match="Invalid dimensions of b"):
        pg.norm1(v, b=np.ones((3, 3)))


def test_nan_in_data_is_reported_at_solve():
    b = np.ones((H, W))
    b[3, 4] = np.nan
    prob = pg.Problem(pg.sum_squares(pg.Variable((H, W)) - b))
    # the position as (x, y) = (column, row) of the NumPy array's [3, 4]
    with pytest.raises(pg.Error, match=r"holds a non-finite value, nan, at \(x, y\) = \(4, 3\)"):
        prob.solve(max_iters=5)
    k = np.ones((3, 3))
    k[1, 1] = np.inf
    prob = pg.Problem(pg.sum_squares(pg.conv(k, pg.Variable((H, W)))))
    with pytest.raises(pg.Error, match="conv: its kernel image .* non-finite value"):
        prob.solve(max_iters=5)


def test_unknown_solver_names_the_solvers():
    prob = pg.Problem(pg.sum_squares(pg.Variable((H, W)) - 1.0))
    with pytest.raises(pg.Error, match="Unknown solver 'fista'.*'admm', 'ladmm'"):
        prob.solve(solver="fista")
    with pytest.raises(pg.Error, match="unknown solver 'fista'"):
        rt.solve(rt.sum_squares(rt.variable("x", (H, W))), algorithm="fista")
    with pytest.raises(pg.Error, match="unknown solver"):
        rt.describe(rt.sum_squares(rt.variable("x", (H, W))), "fista")


def test_every_front_end_accepts_every_algorithm_name():
    # C++'s algorithm table: (short name, name, aliases); the command line takes the same names
    table = pg._core.algorithms()
    assert [row[0] for row in table] == ["admm", "ladmm", "pc", "hqs", "cv"]
    b = np.linspace(0, 1, H * W, dtype=np.float32).reshape(H, W)
    for short, name, aliases in table:
        for spelling in [short, name] + list(aliases):
            v = pg.Variable((H, W))
            prob = pg.Problem([pg.sum_squares(v - b), pg.nonneg(v)])
            prob.solve(solver=spelling, max_iters=2, eps_abs=0, eps_rel=0)
            assert prob.result.algorithm == short, spelling
            x = rt.variable("x", (H, W))
            same = rt.sum_squares(x - b) + rt.nonneg(x)
            assert rt.solve(same, algorithm=spelling, max_iters=2).algorithm == short
            assert rt.describe(same, spelling) == rt.describe(same, short)
    assert "linearized_admm" in pg._core.accepted_algorithm_names()


def test_unsupported_keywords_are_named():
    v = pg.Variable((H, W))
    prob = pg.Problem(pg.sum_squares(v - 1.0))
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        prob.solve(bogus=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'rho' \\(a 'admm' option\\)"):
        prob.solve(solver="pc", rho=2.0)
    # Condat-Vu takes Pock-Chambolle's steps (tau, sigma), not the other solvers' options
    prob.solve(solver="cv", tau=0.5, max_iters=2)
    assert prob.result.algorithm == "cv"
    with pytest.raises(TypeError, match="unexpected keyword argument 'lmb' \\(a 'ladmm' option\\)"):
        prob.solve(solver="cv", lmb=2.0)
    with pytest.raises(pg.Error, match="'metric' is not supported"):
        prob.solve(metric=object())
    with pytest.raises(pg.Error, match="theta=0.5 is not supported"):
        prob.solve(theta=0.5)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        rt.solve(prob._problem, bogus=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'delta'"):
        pg.norm1(v, delta=2.0)
    with pytest.raises(pg.Error, match="patch_NLM: the argument 'sigma_fixed' is not supported"):
        pg.patch_NLM(v, sigma_fixed=0.3)
    with pytest.raises(pg.Error, match="least_squares: the argument 'diag' is not supported"):
        pg.least_squares(v, diag=np.ones((H, W)))
    with pytest.raises(pg.Error, match="dims=3 is not supported"):
        pg.conv(np.ones((3, 3)), pg.Variable((H, W, 2)), dims=3)
    with pytest.raises(pg.Error, match="psi_fns / omega_fns are not supported"):
        pg.Problem([pg.sum_squares(v)], psi_fns=[])
    with pytest.raises(TypeError, match="unexpected keyword argument 'frobnicate'; conv takes conv\\(kernel, e"):
        rt.conv(np.ones((3, 3)), rt.variable("x", (H, W)), frobnicate=1)


def test_modifiers_are_checked_as_proximal_checks_them():
    v = pg.Variable((H, W))
    with pytest.raises(pg.Error, match="alpha must be a nonnegative scalar"):
        pg.norm1(v, alpha=-1)
    with pytest.raises(pg.Error, match="gamma must be a nonnegative scalar"):
        pg.norm1(v, gamma=np.ones((H, W)))
    with pytest.raises(TypeError, match="Can only multiply by a positive scalar"):
        -2.0 * pg.norm1(v)
    with pytest.raises(TypeError, match="Can only multiply by a scalar constant"):
        np.ones((H, W)) * v


def test_problems_the_engine_does_not_solve_yet_say_so():
    x = pg.Variable((H, W))
    with pytest.raises(pg.Error, match="a variable is 2-D .* or 3-D"):
        pg.Variable((2, 3, 4, 5))
    with pytest.raises(pg.Error, match="x0 has 5 elements"):
        pg.Problem(pg.sum_squares(x - 1.0)).solve(x0=np.zeros(5))


def test_bad_calls_do_not_crash_the_interpreter():
    """Misuse that could reach C++ with wrong data runs in a child interpreter, which must exit
    normally with Python exceptions only."""
    script = textwrap.dedent("""
        import numpy as np, proxgen as pg
        from proxgen import rt
        caught = 0
        for build in (lambda: rt.call('conv'), lambda: rt.call('nope'), lambda: rt.Expr(),
                      lambda: rt.sum_squares(rt.Expr()), lambda: rt.variable('x', (0, 4)),
                      lambda: rt.variable('x', (-3, 4)), lambda: rt.grad(rt.variable('x', (4, 4)), [5]),
                      lambda: rt.transpose(rt.variable('x', (4, 4)), [0, 0]),
                      lambda: rt.crop(rt.variable('x', (4, 4)), 3, 3, 8, 8),
                      lambda: rt.subsample(rt.variable('x', (4, 4)), 0, 1),
                      lambda: rt.Data(np.zeros((0, 3))), lambda: rt.Data(np.zeros((2,) * 5)),
                      lambda: rt.solve(rt.Problem()),
                      lambda: rt.solve(rt.sum_squares(rt.variable('x', (4, 4))), max_iters='many'),
                      lambda: rt.solve(rt.sum_squares(rt.variable('x', (4, 4))), x0=np.zeros((3, 3))),
                      lambda: rt.objective(rt.sum_squares(rt.variable('x', (4, 4))), np.zeros((3, 3)))):
            try:
                build()
            except (pg.Error, TypeError, ValueError):
                caught += 1
        print('caught', caught)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["caught", "16"], out.stdout + out.stderr


def test_options_out_of_range_get_the_shared_sentence():
    prob = pg.Problem(pg.sum_squares(pg.Variable((H, W)) - 1.0))
    with pytest.raises(pg.Error, match="solve: max_iters must be an integer from 0 to 2147483647, got 1099511627776"):
        prob.solve(max_iters=2**40)
    with pytest.raises(pg.Error, match="solve: max_iters must be an integer from 0 to 2147483647, got "
                                       + str(2**1100)):
        rt.solve(prob._problem, max_iters=2**1100)
    with pytest.raises(pg.Error, match="solve: max_iters must be an integer from 0 to 2147483647, got 10.5"):
        rt.solve(prob._problem, max_iters=10.5)
    with pytest.raises(pg.Error, match="solve: cg_max_iters must be an integer from 1 to 2147483647, got 0"):
        prob.solve(solver="admm", cg_max_iters=0)
    with pytest.raises(pg.Error, match="solve: cg_tol must be a number >= 0 and < 1"):
        prob.solve(solver="admm", lin_solver_options=pg.cg_options(tol=-1e-3))
    with pytest.raises(pg.Error, match=r"solve: tau must be 0 \(automatic\) or a positive number"):
        rt.solve(prob._problem, tau=-1)
    with pytest.raises(pg.Error, match="solve: hqs_max_ratio must be a finite number >= 1, got 0"):
        rt.solve(prob._problem, algorithm="hqs", hqs_max_ratio=0)
    with pytest.raises(pg.Error, match="solve: rho must be 0 .*, got 1e\\+39, which float32"):
        rt.solve(prob._problem, algorithm="admm", rho=1e39)
    with pytest.raises(TypeError, match="option 'max_iters' has the wrong type \\(str\\)"):
        rt.solve(prob._problem, max_iters="many")


def test_weights_float32_cannot_hold_are_refused_with_what_was_given():
    v = pg.Variable((H, W))
    with pytest.raises(pg.Error, match="a penalty's weight must be finite and non-negative, got 1e\\+300, which "
                                       "float32 \\(ProxGen's arithmetic\\) cannot hold"):
        pg.Problem(1e300 * pg.norm1(v) + pg.sum_squares(v))
    x = rt.variable("x", (H, W))
    with pytest.raises(pg.Error, match="parameter 'lam': a penalty's weight must be finite and non-negative, got -1"):
        rt.parameter("lam", -1.0) * rt.norm1(x)


def test_a_variable_too_large_for_memory_is_an_error_naming_it_and_the_bytes():
    """Under a capped address space (a child interpreter), never a crash."""
    script = textwrap.dedent("""
        import resource, proxgen as pg
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, resource.RLIM_INFINITY))
        x = pg.Variable((100000, 100000))
        try:
            pg.Problem(pg.sum_squares(x)).solve()
        except pg.Error as e:
            print(e)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "(100000x100000, 40000000000 bytes per float32 copy): cannot allocate 40000000000 bytes" in out.stdout, \
        out.stdout + out.stderr


def test_a_bool_is_no_argument_of_an_operator():
    # rt.haar(x, True) used to take the bool as a 0-d image
    x = rt.variable("x", (16, 16))
    for bad in (True, np.bool_(False)):
        with pytest.raises(TypeError, match=r"haar: argument 2: got a bool \((True|False)\)"):
            rt.haar(x, bad)
    assert rt.haar(x, 2).shape == (16, 16)


def test_precondition_reaches_the_solver():
    # two split terms with operators of very different norms: PC's block preconditioning changes the
    # steps, so the iterates after a fixed number of iterations differ
    rng = np.random.default_rng(5)
    b = rng.uniform(0, 1, (H, W)).astype(np.float32)
    runs = {}
    for precondition in (False, True):
        x = pg.Variable((H, W))
        prob = pg.Problem([pg.sum_squares(x - b), pg.norm1(100.0 * pg.grad(x)), pg.norm1(x)])
        prob.solve(solver="pc", max_iters=20, eps_abs=0, eps_rel=0, precondition=precondition)
        runs[precondition] = x.value.copy()
    assert not np.array_equal(runs[False], runs[True])
