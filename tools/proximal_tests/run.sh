#!/usr/bin/env bash
# ProxImaL's own test suite run against ProxGen: `import proximal` answered by proxgen module for
# module (alias_init.py), ProxImaL's test files unmodified. Needs python3-scipy and python3-opencv
# (Debian); where cvxpy is not installed (Debian has no package), stand_ins/cvxpy solves the tests'
# small reference problems (affine expressions, smoothed norms, L-BFGS-B), and where pooch is not
# (SciPy's test-image downloader) stand_ins/no_pooch gives scipy.datasets.ascent: a local estimate only.
#
#   tools/proximal_tests/run.sh <ProxImaL checkout> [pytest args]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[[ $# -ge 1 && -d "$1/proximal/tests" ]] || { echo "usage: $0 <ProxImaL checkout> [pytest args]" >&2; exit 2; }
src=$(cd "$1" && pwd); shift
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proximal"
cp -r "$src/proximal/tests" "$work/proximal/"
cp "$here/alias_init.py" "$work/proximal/__init__.py"
path="$repo/build/python"
python3 -c "import cvxpy" 2>/dev/null || path="$here/stand_ins:$path"
python3 -c "import pooch" 2>/dev/null || path="$here/stand_ins/no_pooch:$path"
cd "$work"
# the experimental IR (test_backend, test_frontend) has no ProxGen counterpart
PYTHONPATH="$path" PROXGEN_DATA_DIR="$repo/data" python3 -m pytest proximal/tests -q -p no:cacheprovider -rfs \
  --ignore proximal/tests/test_backend.py --ignore proximal/tests/test_frontend.py "$@"
