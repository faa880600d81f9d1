"""Batches by NumPy's convention (docs/python.md, "Batches"): data with one more leading axis than
the expression is one array per member; Problem.solve solves every member in one call
(rt::solve_batch), and each member equals the problem built with its data alone, bit for bit, with
the same iteration count."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import proxgen as pg
from proxgen import rt

H, W, N = 20, 24, 4


def _kernel():
    k = np.exp(-0.5 * ((np.arange(5) - 2.0) / 1.2) ** 2)
    k = np.outer(k, k)
    return (k / k.sum()).astype(np.float32)


def _observations(n=N, seed=0, shape=(H, W)):
    """n blurred, noisy images; the last member at ten times the scale, so that it stops at another
    iteration than the others."""
    rng = np.random.default_rng(seed)
    truth = np.cumsum(np.cumsum(rng.normal(size=(n,) + shape), axis=1), axis=2)
    truth = (truth - truth.min()) / (truth.max() - truth.min())
    b = np.stack([np.real(np.fft.ifft2(np.fft.fft2(t, axes=(0, 1)) * pg.utils.psf2otf(_kernel(), shape[:2])
                                      .reshape(shape[:2] + (1,) * (len(shape) - 2)), axes=(0, 1))) for t in truth])
    b = b + 0.01 * rng.normal(size=b.shape)
    b[-1] *= 10.0
    return b.astype(np.float32)


def _deblur(b):
    """TV deblurring of b (one image, or a batch of them) in a variable named x."""
    x = pg.Variable((H, W), name="x")
    return x, pg.Problem([pg.sum_squares(pg.conv(_kernel(), x) - b), 0.02 * pg.group_norm1(pg.grad(x), [2]),
                          pg.nonneg(x)])


def _same(a, b):
    """Bitwise equality of two float32 arrays (NaN where NaN)."""
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.view(np.uint32), b.view(np.uint32))


OPTIONS = {"pc": dict(max_iters=400, eps_abs=1e-4, eps_rel=1e-4), "ladmm": dict(max_iters=400, eps_abs=1e-4,
           eps_rel=1e-4), "admm": dict(max_iters=400, eps_abs=1e-4, eps_rel=1e-4), "hqs": dict(max_iters=1, max_inner_iters=12)}


@pytest.mark.parametrize("solver", ["pc", "ladmm", "admm", "hqs"])
def test_every_member_equals_solving_it_alone(solver):
    b = _observations()
    x, prob = _deblur(b)
    values = prob.solve(solver=solver, **OPTIONS[solver])
    assert x.value.shape == (N, H, W) and x.value.dtype == np.float32
    assert isinstance(values, np.ndarray) and values.shape == (N,) and values.dtype == np.float64
    assert isinstance(prob.result, list) and len(prob.result) == N
    for i in range(N):
        xi, alone = _deblur(b[i])
        value = alone.solve(solver=solver, **OPTIONS[solver])
        assert prob.result[i].status == alone.result.status, i
        assert prob.result[i].iterations == alone.result.iterations, i
        assert _same(x.value[i], xi.value), "member {}: max difference {}".format(
            i, np.abs(x.value[i] - xi.value).max())
        assert values[i] == value, i
    if solver != "hqs":  # HQS runs max_iters; the others stop on their residuals, member by member
        assert prob.result[0].status == "converged"
        assert prob.result[N - 1].iterations != prob.result[0].iterations


def test_a_second_batch_of_one_structure_compiles_nothing():
    b = _observations(seed=1)
    _deblur(b)[1].solve(solver="pc", max_iters=20)
    x, prob = _deblur(b + 0.5)  # new arrays, new reserved input names, one structure
    prob.solve(solver="pc", max_iters=20)
    assert [r.compile_seconds for r in prob.result] == [0.0] * N


def test_batched_weights_offsets_and_linear_terms_at_every_entry_point():
    rng = np.random.default_rng(2)
    B = rng.uniform(0, 1, (N, H, W))
    Wt = rng.uniform(0.5, 1.5, (N, H, W))
    G = 0.1 * rng.normal(size=(N, H, W, 2))
    Wf = rng.uniform(0.5, 1.5, (N, H, W))
    Wf[1, :3] = 0.0  # a folded weight with zeros: b is zeroed there (ProxImaL's absorb_lin_op)
    Bf = rng.uniform(0, 1, (N, H, W))
    C = 0.1 * rng.normal(size=(N, H, W))
    Wn = rng.uniform(0.5, 1.0, (H, W))  # shared by every member

    def problem(i):
        take = (lambda a: a) if i is None else (lambda a: a[i])
        x = pg.Variable((H, W), name="x")
        return x, pg.Problem([
            pg.sum_squares(pg.mul_elemwise(take(Wt), x) - take(B)),   # a lin op's weight, an offset
            0.1 * pg.norm1(pg.grad(x), b=take(G)),                     # a prox function's b (H, W, 2)
            pg.sum_squares(pg.mul_elemwise(take(Wf), x), b=take(Bf)),  # a weight folded with b
            pg.sum_squares(x, c=take(C), gamma=0.1),                   # a linear term c
            0.05 * pg.weighted_norm1(x, Wn),                           # shared data
        ])

    x, prob = problem(None)
    values = prob.solve(solver="pc", max_iters=300)
    for i in range(N):
        xi, alone = problem(i)
        assert values[i] == alone.solve(solver="pc", max_iters=300), i
        assert prob.result[i].iterations == alone.result.iterations, i
        assert _same(x.value[i], xi.value), i


def _weighted_and_masked(Ws, mask, Wg, Wd, x):
    return [pg.weighted_sum_squares(x, Ws, b=1.0), pg.masked_nonneg(x, mask),
            0.1 * pg.weighted_group_norm1(pg.grad(x), [2], Wg), 0.1 * pg.weighted_group_norm1(pg.grad(x), [2], Wd)]


def _poisson(counts, Wp, x):
    return [pg.poisson_norm(x, counts), pg.weighted_poisson_norm(x, counts, Wp), 0.1 * pg.sum_squares(pg.grad(x))]


@pytest.mark.parametrize("fns", [_weighted_and_masked, _poisson], ids=["weights-masks", "counts"])
def test_weighted_functions_counts_and_masks_take_batches(fns):
    rng = np.random.default_rng(3)
    Wg = np.repeat(rng.uniform(0.5, 1.5, (N, H, W, 1)), 2, axis=3)  # one weight per group (pixel)
    Wd = rng.uniform(0.5, 1.5, (N, H, W, 2))  # one weight per direction too
    data = {_weighted_and_masked: [rng.uniform(0.5, 1.5, (N, H, W)), rng.uniform(size=(N, H, W)) > 0.2, Wg, Wd],
            _poisson: [rng.poisson(5.0, (N, H, W)).astype(np.float32), rng.uniform(0.5, 1.5, (N, H, W))]}[fns]

    def problem(i):
        x = pg.Variable((H, W), name="x")
        return x, pg.Problem(fns(*[a if i is None else a[i] for a in data], x))

    x, prob = problem(None)
    prob.solve(solver="admm", max_iters=100)
    for i in range(N):
        xi, alone = problem(i)
        alone.solve(solver="admm", max_iters=100)
        assert prob.result[i].iterations == alone.result.iterations, i
        assert _same(x.value[i], xi.value), i


@pytest.mark.parametrize("shape", [(H, W, 3), (W,)], ids=["colour", "1-D"])
def test_colour_and_one_dimensional_variables(shape):
    b = np.random.default_rng(4).uniform(-1, 1, (N,) + shape).astype(np.float32)
    b = np.asfortranarray(b)  # any layout: the batch is stored member by member in ProxGen's layout

    def problem(data):
        x = pg.Variable(shape, name="x")
        return x, pg.Problem([pg.sum_squares(x - data), 0.1 * pg.norm1(pg.grad(x)), pg.nonneg(x)])

    x, prob = problem(b)
    prob.solve(solver="admm", max_iters=200)
    assert x.value.shape == (N,) + shape
    for i in range(N):
        xi, alone = problem(b[i])
        alone.solve(solver="admm", max_iters=200)
        assert _same(x.value[i], xi.value), i


def test_two_variables_each_member_with_its_own_observation():
    b = _observations(seed=5)

    def problem(data):
        x, y = pg.Variable((H, W), name="x"), pg.Variable((H, W), name="y")
        return x, y, pg.Problem([pg.sum_squares(pg.conv(_kernel(), x) + y - data),
                                 0.05 * pg.group_norm1(pg.grad(x), [2]), pg.nonneg(x),
                                 pg.sum_squares(pg.grad(y)), 0.1 * pg.sum_squares(y)])

    x, y, prob = problem(b)
    values = prob.solve(solver="admm", max_iters=150)
    assert x.value.shape == y.value.shape == (N, H, W)
    for i in range(N):
        xi, yi, alone = problem(b[i])
        assert values[i] == alone.solve(solver="admm", max_iters=150)
        assert _same(x.value[i], xi.value) and _same(y.value[i], yi.value), i
        assert set(prob.result[i].values) == {"x", "y"}


def test_a_member_with_nan_fails_alone_and_is_named_after_the_others_are_set():
    b = _observations(seed=6)
    b[2, 3, 4] = np.nan
    x, prob = _deblur(b)
    with pytest.raises(pg.Error, match=r"1 of 4 batch members failed.*batch member 2: input 'batched_offset_\d+' "
                                       r"holds a non-finite value, nan, at \(x, y\) = \(4, 3\)") as caught:
        prob.solve(solver="pc", max_iters=50)
    assert caught.value.failed == [2]
    assert [r.status for r in prob.result] == ["max_iterations", "max_iterations", "failed", "max_iterations"]
    assert prob.result[2].message.startswith("batch member 2: ")
    assert np.isnan(x.value[2]).all() and np.isnan(caught.value.objectives[2])
    for i in (0, 1, 3):
        xi, alone = _deblur(b[i])
        assert caught.value.objectives[i] == alone.solve(solver="pc", max_iters=50)
        assert _same(x.value[i], xi.value), i


def test_batched_data_must_agree_on_the_number_of_members():
    x = pg.Variable((H, W))
    b4, b3 = np.zeros((4, H, W)), np.zeros((3, H, W))
    with pytest.raises(pg.Error, match=r"disagree on the number of members: .* has 4 members, .* has 3"):
        pg.Problem([pg.sum_squares(x - b4), pg.sum_squares(pg.conv(_kernel(), x) - b3)])
    with pytest.raises(pg.Error, match="sum_squares: b holds 4 batch members, the weight of mul_elemwise holds 3"):
        pg.Problem(pg.sum_squares(pg.mul_elemwise(np.ones((3, H, W)), x), b=b4))


@pytest.mark.parametrize("make", [
    lambda x, a: pg.sum_squares(x - a),
    lambda x, a: pg.sum_squares(a - pg.conv(_kernel(), x)),
    lambda x, a: pg.mul_elemwise(a, x),
    lambda x, a: pg.norm1(x, b=a),
    lambda x, a: pg.weighted_norm1(x, a),
], ids=["offset", "rsub", "mul_elemwise", "prox b", "weight"])
@pytest.mark.parametrize("shape", [(H, W, N), (N, H, W + 1)], ids=["members-last", "wrong-size"])
def test_a_batch_whose_members_are_not_on_the_first_axis_is_an_error(make, shape):
    with pytest.raises(pg.Error, match=r"an array of shape {} against an expression of shape \({}, {}\): an array "
                                       r"with one more axis is a batch, its members along the FIRST axis".format(
                                           re_tuple(shape), H, W)):
        make(pg.Variable((H, W)), np.ones(shape))


def re_tuple(t):
    return r"\({}\)".format(", ".join(str(d) for d in t))


def test_members_that_differ_in_structure_are_an_error():
    mask = np.ones((2, H, W))
    mask[1, 0, 0] = 0.0  # member 1 constrains x = 0 there: one more term than member 0
    with pytest.raises(pg.Error, match="masked_nonneg: whether the mask leaves any element out: batch member 1 and "
                                       "member 0 differ"):
        pg.Problem(pg.masked_nonneg(pg.Variable((H, W)), mask))


def test_callbacks_are_refused_and_warm_starts_continue_every_member():
    b = _observations(seed=7)
    x, prob = _deblur(b)
    with pytest.raises(pg.Error, match="callback= is not supported with a batch"):
        prob.solve(callback=lambda info: True)
    prob.solve(solver="admm", max_iters=400)
    first = [r.iterations for r in prob.result]
    assert all(r.status == "converged" for r in prob.result)
    prob.solve(solver="admm", max_iters=400, warm_start=prob)
    assert all(r.iterations < n for r, n in zip(prob.result, first))
    with pytest.raises(TypeError, match="warm_start"):
        prob.solve(solver="admm", warm_start=prob.result[0])


def _long_batch():
    x = rt.variable("x", (12, 16))
    prob = rt.sum_squares(x - rt.input("b", np.zeros((12, 16)))) + 0.1 * rt.group_norm1(rt.grad(x))
    members = [{"b": np.full((12, 16), float(i))} for i in range(N)]
    rt.solve_batch(prob, members, algorithm="pc", max_iters=1)  # compiled before the clocks start
    return lambda: rt.solve_batch(prob, members, algorithm="pc", max_iters=3 * 10 ** 5, eps_abs=0, eps_rel=0)


def test_the_gil_is_released_and_ctrl_c_stops_the_batch():
    solve = _long_batch()
    ticks, done = [], threading.Event()
    t = threading.Thread(target=lambda: (solve(), done.set()))
    t.start()
    while not done.is_set():
        ticks.append(time.monotonic())
        time.sleep(0.001)
    t.join()
    assert len(ticks) > 5  # the main thread ran while the batch did
    timer = threading.Timer(0.1, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            solve()
    finally:
        timer.cancel()
    interrupted = time.monotonic() - start
    # the members stopped at the signal instead of running on to max_iters
    assert interrupted < 0.5 * (ticks[-1] - ticks[0])


def test_verbose_prints_every_members_table(capfd):
    x, prob = _deblur(_observations(seed=10))
    prob.solve(solver="pc", max_iters=10, verbose=True)
    assert capfd.readouterr().out.count("ProxGen plan (pock_chambolle)") == N


def test_prox_fn_value_after_a_batch_is_one_objective_per_member():
    b = _observations(seed=8)
    x = pg.Variable((H, W))
    fit = pg.sum_squares(pg.conv(_kernel(), x) - b)
    prob = pg.Problem([fit, pg.nonneg(x)])
    values = prob.solve(solver="pc", max_iters=100)
    np.testing.assert_allclose(fit.value, values, rtol=1e-6)
    assert pg.nonneg(x).value.tolist() == [0.0] * N


def test_rt_solve_batch_replaces_named_inputs_and_parameters():
    b = _observations(seed=9)
    x = rt.variable("x", (H, W))
    prob = rt.sum_squares(rt.conv(_kernel(), x) - rt.input("b", b[0])) + \
        rt.parameter("lam", 0.01) * rt.group_norm1(rt.grad(x))
    lams = [0.01, 0.02, 0.05, 0.1]
    results = rt.solve_batch(prob, [{"b": b[i], "lam": lams[i]} for i in range(N)], algorithm="pc", max_iters=100)
    for i in range(N):
        alone = prob.copy()
        alone.set_input("b", b[i])
        alone.set_parameter("lam", lams[i])
        one = rt.solve(alone, algorithm="pc", max_iters=100)
        assert results[i].iterations == one.iterations
        assert _same(results[i]["x"], one["x"]), i
    assert prob.parameter("lam") == 0.01  # copies are independent
    bad = rt.solve_batch(prob, [{"b": b[0]}, {"c": b[1]}], algorithm="pc", max_iters=5)
    assert bad[0].status == "max_iterations"
    assert bad[1].status == "failed" and bad[1].message.startswith("batch member 1: ") and "'c'" in bad[1].message


def test_get_offset_of_batched_constants_is_a_batch_of_offsets():
    rng = np.random.default_rng(11)
    B, Wt = rng.uniform(size=(N, H, W)), rng.uniform(size=(N, H, W))
    x = pg.Variable((H, W))
    np.testing.assert_array_equal((x - B).get_offset(), -B)  # float64, as ProxImaL's
    np.testing.assert_array_equal(pg.mul_elemwise(Wt, x - B).get_offset(), -Wt * B)
    np.testing.assert_array_equal(pg.sum([2 * (x + B), np.ones((H, W))]).get_offset(), 2 * B + 1)
    with pytest.raises(pg.Error, match=r"the offset of conv\(...\) with batched data inside is not computed"):
        pg.conv(_kernel(), x - B).get_offset()
