#!/usr/bin/env bash
# The README's Python install, checked: a virtual environment that sees Debian's NumPy, then
# `pip install --no-build-isolation .` (offline: --no-index), then `from proxgen import *` and a
# small solve in that environment. The wheel is built from the existing build tree ($2).
#   pip_install.sh <source dir> <build dir> <python>
set -euo pipefail
source_dir=$1 build_dir=$2 python=$3
venv=$build_dir/pip_install_test/venv
rm -rf "$venv"
"$python" -m venv --system-site-packages "$venv"
PROXGEN_BUILD_DIR=$build_dir "$venv/bin/pip" install -q --no-index --no-build-isolation "$source_dir"
cd "$build_dir/pip_install_test"  # not the source tree: import the installed package
"$venv/bin/python3" - <<'PY'
import numpy as np
from proxgen import *
import proxgen
assert proxgen.__file__.startswith(__import__("sys").prefix), proxgen.__file__
b = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
x = Variable(b.shape)
value = Problem([sum_squares(x - b), nonneg(x)]).solve(solver="admm", eps_abs=1e-6, eps_rel=1e-6, max_iters=500)
np.testing.assert_allclose(x.value, np.maximum(b, 0), atol=1e-3)
assert abs(value - float(np.sum(np.minimum(b, 0) ** 2))) < 1e-3, value
print("pip install: proxgen imported from", proxgen.__file__)
PY
