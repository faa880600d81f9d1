"""ProxImaL's module layout: each import line of ProxImaL's own tests (proximal/tests/*.py, less its
Halide, CUDA and test-base modules) works with proximal replaced by proxgen, and what the modules
hold behaves as ProxImaL's."""

import os

import numpy as np
import pytest

import proxgen as px

# The import lines of ProxImaL's tests, proximal -> proxgen
IMPORT_LINES = """
import proxgen as px
from proxgen.algorithms import admm, pc, hqs, ladmm, absorb_offset
from proxgen.algorithms import Problem
from proxgen.algorithms import can_merge, absorb_offset, merge_fns, absorb_lin_op
from proxgen.algorithms.merge import merge_all
from proxgen.algorithms.equil import newton_equil
import proxgen.algorithms.absorb as absorb
from proxgen.lin_ops.vstack import vstack
from proxgen.lin_ops.comp_graph import CompGraph
from proxgen.lin_ops.conv_nofft import conv_nofft
from proxgen.lin_ops.grad import grad
from proxgen.lin_ops.pxwise_matrixmult import pxwise_matrixmult
from proxgen.lin_ops.subsample import subsample, uneven_subsample
from proxgen.lin_ops.transpose import transpose
from proxgen.lin_ops.variable import Variable
from proxgen.lin_ops.lin_op import LinOp
from proxgen.lin_ops.black_box import LinOpFactory
from proxgen.lin_ops import Variable, subsample, conv, sum, vstack, mul_elemwise, grad
from proxgen.prox_fns.group_norm1 import group_norm1
from proxgen.prox_fns.prox_fn import ProxFn
from proxgen.prox_fns import norm1, sum_squares, sum_entries, nonneg, weighted_norm1, group_norm1
from proxgen.utils.utils import im2nparray, psf2otf, get_test_image, get_kernel, Impl, tic, toc
from proxgen.utils.utils import *
from proxgen.utils import *
from proxgen.lin_ops import *
from proxgen.prox_fns import *
from proxgen.algorithms import *
"""


@pytest.mark.parametrize("line", [ln for ln in IMPORT_LINES.strip().splitlines()])
def test_proximal_import_lines_resolve(line):
    exec(line, {})


def test_modules_hold_the_same_objects():
    from proxgen.algorithms import Problem
    from proxgen.lin_ops.conv import conv
    from proxgen.prox_fns.norm1 import norm1
    from proxgen.utils import Impl

    assert Problem is px.Problem
    assert px.algorithms.problem.Problem is px.Problem
    assert conv is px.conv and px.lin_ops.conv is px.conv  # the alias module does not shadow the class
    assert norm1 is px.norm1 is px.prox_fns.norm1
    assert Impl is px.Impl


def reference_otf(k, shape):
    """k zero-padded to shape, rolled so that its centre (size // 2) is at the origin, FFT'd."""
    padded = np.zeros(shape)
    padded[tuple(slice(0, s) for s in k.shape)] = k
    return np.fft.fftn(np.roll(padded, [-(s // 2) for s in k.shape], axis=tuple(range(k.ndim))))


def test_psf2otf_matches_a_numpy_fft():
    from proxgen.utils import psf2otf

    k = np.random.default_rng(3).random((3, 5))
    np.testing.assert_allclose(psf2otf(k, (8, 9)), reference_otf(k, (8, 9)), atol=1e-12)
    sym = np.outer([1.0, 2.0, 1.0], [1.0, 2.0, 1.0])  # symmetric about its centre: a real OTF
    assert np.all(psf2otf(sym, (6, 6)).imag == 0)
    # the OTF diagonalizes ProxGen's conv: conv(k, x) = ifft(otf * fft(x))
    x = px.Variable((8, 9))
    X = np.random.default_rng(4).standard_normal((8, 9))
    B = np.real(np.fft.ifft2(reference_otf(k, (8, 9)) * np.fft.fft2(X)))
    x.value = X
    assert px.sum_squares(px.conv(k, x) - B).value == pytest.approx(0.0, abs=1e-8)


def test_absorb_offset_moves_the_constant_into_b():
    from proxgen.algorithms import absorb_offset

    x = px.Variable(10)
    b = np.arange(10.0)
    np.testing.assert_allclose((x - b).get_offset(), -b)
    fn = absorb_offset(px.sum_squares(x - b))
    np.testing.assert_allclose(fn.b, b)
    assert not np.any(fn.lin_op.get_offset())
    k = np.array([1.0, 2.0, 0.5])
    y = px.Variable((6, 7))
    B = np.random.default_rng(5).standard_normal((6, 7))
    expected = np.real(np.fft.ifft2(reference_otf(k.reshape(1, 3), (6, 7)) * np.fft.fft2(B)))
    np.testing.assert_allclose(px.conv(k.reshape(1, 3), y + B).get_offset(), expected, atol=1e-9)
    # an operator without a NumPy form: its offset by ProxGen's lowering (forward differences of B)
    dx, dy = np.zeros((6, 7)), np.zeros((6, 7))
    dx[:, :-1], dy[:-1, :] = B[:, 1:] - B[:, :-1], B[1:, :] - B[:-1, :]
    np.testing.assert_allclose(px.grad(y + B).get_offset(), np.stack([dx, dy], axis=-1), atol=1e-5)


def test_absorb_lin_op_and_merge_keep_the_function():
    from proxgen.algorithms import absorb_lin_op, can_merge, merge_all, merge_fns

    x = px.Variable((3, 4))
    rng = np.random.default_rng(6)
    X, W, C = rng.standard_normal((3, 4)), 0.5 + rng.random((3, 4)), rng.standard_normal((3, 4))
    x.value = X
    for fn in (px.norm1(2.0 * x, b=C, c=W), px.sum_squares(px.mul_elemwise(W, x), b=C)):
        (absorbed,) = absorb_lin_op(fn)
        assert absorbed.lin_op is x
        assert absorbed.value == pytest.approx(fn.value, rel=1e-5)
    sq, l1 = px.sum_squares(x, alpha=3.0, beta=2.0, b=C, gamma=1.0), px.norm1(x)
    assert can_merge(sq, l1)
    assert merge_fns(sq, l1).value == pytest.approx(sq.value + l1.value, rel=1e-5)
    assert len(merge_all([sq, l1, px.sum_entries(x)])) == 1


def test_timing_and_image_helpers(tmp_path, monkeypatch):
    from proxgen.utils.utils import get_kernel, get_test_image, im2nparray, tic, toc

    t = tic()
    assert toc() >= 0.0 and toc(t) >= 0.0
    np.testing.assert_allclose(im2nparray(np.array([0, 255], dtype=np.uint8)), [0.0, 1.0])
    k = get_kernel(9, 2)
    assert k.shape == (9, 9) and k.dtype == np.float32 and k.sum() == pytest.approx(1.0, rel=1e-6)
    assert get_kernel(5, 3).shape == (5, 5, 3)
    monkeypatch.setenv("PROXGEN_DATA_DIR", str(tmp_path))
    with pytest.raises(px.Error, match="camera.png not found"):
        get_test_image(16)
    gray = np.tile(np.linspace(0, 1, 32), (32, 1))
    px.save_image(os.path.join(str(tmp_path), "camera.png"), gray)
    image = get_test_image(16)
    assert image.shape == (16, 16) and image.dtype == np.float32
    assert image.min() >= 0 and image.max() <= 1 and np.all(np.diff(image[0]) > 0)


class _Alias:
    """A finder answering `import proxgen_as_proximal.X.Y` with proxgen.X.Y, as a module-for-module
    mapping of ProxImaL's names onto ProxGen's does."""

    prefix = "proxgen_as_proximal"

    def find_spec(self, name, path, target=None):
        import importlib.util

        if name == self.prefix or name.startswith(self.prefix + "."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        import importlib

        return importlib.import_module("proxgen" + spec.name[len(self.prefix):])

    def exec_module(self, module):
        pass


def test_a_module_for_module_mapping_imports_every_submodule_and_keeps_the_classes():
    import sys

    finder = _Alias()
    sys.meta_path.insert(0, finder)
    try:
        names = {}
        for line in IMPORT_LINES.strip().splitlines() + ["from proxgen.halide.halide import Halide"]:
            exec(line.replace("proxgen", _Alias.prefix), names)
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n.startswith(_Alias.prefix)]:
            del sys.modules[name]
    # the import system binds each imported submodule on its parent; ProxGen's names stay the classes
    assert px.lin_ops.grad is names["grad"] is px.grad
    assert px.lin_ops.vstack is px.vstack and px.prox_fns.group_norm1 is px.group_norm1
    assert names["Halide"] is px.halide.Halide


def test_the_top_level_holds_the_algorithms_as_proximal_does():
    assert px.admm is px.algorithms.admm and px.pc is px.pock_chambolle
    assert callable(px.equil) and px.absorb_offset is px.algorithms.absorb_offset
