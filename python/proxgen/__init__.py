"""ProxGen for Python: ProxImaL's modelling language on ProxGen's planner and JIT-compiled Halide.

A ProxImaL script runs after changing its import::

    from proxgen import *
    x = Variable(I.shape)
    prob = Problem(sum_squares(x - b) + .1 * norm1(grad(x)) + nonneg(x))
    prob.solve(solver='admm', max_iters=200)     # returns the objective
    x.value                                       # float32, I.shape

Data with one more leading axis than the variable are a batch (NumPy's convention): b of shape
(n, H, W) solves n problems of one structure in one call, x.value then (n, H, W) (docs/python.md,
"Batches").

Images are NumPy arrays of shape (H, W) or (H, W, C) (ProxGen's x = W, y = H, c = C); float64,
float32, uint8, uint16 and other real dtypes are converted to float32. ``proxgen.rt`` is the
run-time API with ProxGen's own names (the C++ proxgen/runtime.hpp). docs/python.md lists every
difference from ProxImaL. ProxImaL's modules are here too: ``proxgen.lin_ops``, ``proxgen.prox_fns``,
``proxgen.algorithms`` (``from proxgen.algorithms import admm``), ``proxgen.utils``
(``from proxgen.utils.utils import *``), and their submodules' import paths.
"""

from . import rt
from .lin_ops import *  # noqa: F401,F403
from .lin_ops import __all__ as _lin_all
from .problem import *  # noqa: F401,F403
from .problem import __all__ as _problem_all
from .prox_fns import *  # noqa: F401,F403
from .prox_fns import __all__ as _prox_all
from .rt import Error, describe, IterationInfo
from . import algorithms, halide, lin_ops, prox_fns, utils  # noqa: E402 (ProxImaL's modules)
# what `import proximal as px` offers at the top, as ProxImaL's package re-exports its algorithms module
from .algorithms import (absorb, absorb_lin_op, absorb_offset, admm, can_merge, equil, half_quadratic_splitting,  # noqa: E402,F401
                         hqs, ladmm, linearized_admm, merge, merge_fns, pc, pock_chambolle)
from . import _layout

__version__ = "0.1.0"

__all__ = _lin_all + _prox_all + _problem_all + ["rt", "Error", "IterationInfo", "load_image", "save_image"]


def load_image(path, dtype=None):
    """An image file as a float NumPy array (H, W) or (H, W, C): .npy as stored; .png/.jpg scaled to
    [0, 1]. (PNG and JPEG need nothing beyond NumPy: ProxGen's C++ reader is used.)"""
    return _core_load_image(path)


def save_image(path, image):
    """Writes an (H, W) or (H, W, C) array: .npy/.pfm keep floats; .png/.jpg clamp to [0, 1]."""
    _core_save_image(path, image)


from ._core import load_image as _core_load_image, save_image as _core_save_image  # noqa: E402

_layout.install(__import__(__name__))
