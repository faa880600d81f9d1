"""NumPy arrays in and out: dtypes converted to float32, (H, W[, C]) <-> ProxGen's (x, y, c), no copy
where the layout allows, arrays kept alive by what uses them."""

import gc

import numpy as np
import pytest

import proxgen as pg
from proxgen import rt

H, W = 12, 16


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8, np.uint16, np.int32, np.float16, bool])
@pytest.mark.parametrize("shape", [(H, W), (H, W, 3), (H, W, 3, 2), (7,)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_round_trip_keeps_every_value_in_place(dtype, shape, order):
    a = (np.arange(np.prod(shape)).reshape(shape) % 97).astype(dtype)
    a = np.asarray(a, order=order)
    back = pg._core.to_numpy_roundtrip(a)
    assert back.dtype == np.float32 and back.shape == shape
    assert np.array_equal(back, a.astype(np.float32))


def test_the_axis_mapping_is_numpy_rows_to_y():
    """A one at NumPy [row 2, column 5] is ProxGen's pixel x = 5, y = 2: cropping x in [4, 7),
    y in [1, 4) keeps it at [1, 1] of the crop (checked through a solve's value)."""
    b = np.zeros((H, W), np.float32)
    b[2, 5] = 1.0
    x = rt.variable("x", (H, W))
    res = rt.solve(rt.sum_squares(x - b), algorithm="admm", max_iters=50)
    assert res["x"].shape == (H, W)
    assert np.allclose(res["x"], b, atol=1e-4)
    assert rt.crop(x, 4, 1, 3, 3).shape == (3, 3)
    assert rt.pad(x, 1, 2, 3, 4).shape == (H + 6, W + 4)
    assert rt.subsample(x, 2, 3).shape == (4, 8)
    assert rt.grad(rt.variable("c", (H, W, 3))).shape == (H, W, 3, 2)


def test_layouts_that_allow_it_are_used_without_copying():
    assert rt.Data(np.zeros((H, W), np.float32)).borrowed
    planar = np.zeros((3, H, W), np.float32).transpose(1, 2, 0)  # (H, W, 3), one plane per channel
    assert rt.Data(planar).borrowed
    assert rt.Data(np.zeros((H, W, 3, 2), np.float32).transpose(1, 0, 2, 3).copy().transpose(1, 0, 2, 3)).borrowed \
        is False  # x not fastest
    assert not rt.Data(np.zeros((H, W, 3), np.float32)).borrowed  # interleaved channels
    assert not rt.Data(np.zeros((H, W), np.float32, order="F")).borrowed
    assert not rt.Data(np.zeros((H, W), np.float64)).borrowed
    assert not rt.Data(np.zeros((H, 2 * W), np.float32)[:, ::2]).borrowed  # strided view


def test_borrowed_arrays_live_as_long_as_the_problem_and_are_not_written():
    b = np.linspace(0, 1, H * W, dtype=np.float32).reshape(H, W)
    keep = b.copy()
    x = rt.variable("x", (H, W))
    prob = rt.sum_squares(x - b) + 0.1 * rt.norm1(rt.grad(x)) + rt.nonneg(x)
    del b
    gc.collect()
    garbage = [np.full((H, W), 7.0, np.float32) for _ in range(50)]  # reuse freed memory, if any
    res = rt.solve(prob, algorithm="pc", max_iters=40)
    del garbage
    expected = rt.solve(rt.sum_squares(x - keep) + 0.1 * rt.norm1(rt.grad(x)) + rt.nonneg(x), algorithm="pc",
                        max_iters=40)
    assert np.array_equal(res["x"], expected["x"])
    b2 = keep.copy()
    rt.solve(rt.sum_squares(x - b2) + rt.nonneg(x), algorithm="admm", max_iters=20)
    assert np.array_equal(b2, keep)


def test_results_are_float32_views_that_outlive_the_result():
    x = pg.Variable((H, W, 3))
    prob = pg.Problem(pg.sum_squares(x - np.ones((H, W, 3))))
    prob.solve(solver="admm", max_iters=20)
    value = x.value
    assert value.dtype == np.float32 and value.shape == (H, W, 3)
    prob.result = None
    gc.collect()
    assert np.allclose(value, 1.0, atol=1e-3)
    res = rt.solve(rt.sum_squares(rt.variable("y", (H, W)) - 2.0), algorithm="admm", max_iters=20)
    y = res["y"]
    assert set(res.values) == {"y"} and res.x.shape == (H, W)
    del res
    gc.collect()
    assert np.allclose(y, 2.0, atol=1e-3)


def test_images_load_and_save(tmp_path):
    img = (np.arange(H * W * 3).reshape(H, W, 3) % 251).astype(np.float32) / 250
    pg.save_image(str(tmp_path / "a.npy"), img)
    assert np.array_equal(np.load(tmp_path / "a.npy"), img)
    assert np.array_equal(pg.load_image(str(tmp_path / "a.npy")), img)
    pg.save_image(str(tmp_path / "a.png"), img)
    png = pg.load_image(str(tmp_path / "a.png"))
    assert png.shape == (H, W, 3) and np.abs(png - img).max() <= 0.5 / 255 + 1e-6
