#!/usr/bin/env bash
# On a machine with an NVIDIA GPU, from the folder tests/device/prepare_cuda.sh wrote: solves the
# deblurring problem with every generated algorithm on the CPU (AVX2) and on CUDA, compares each
# CUDA x with its CPU x (relative L2 within RTOL: GPU square roots and divisions round
# differently), and prints ms/iteration for both. A second run of each with the default tolerances
# (--converge) checks that the checks (residual sums, HQS's objective on the CPU side) stop both
# alike. Exit status 0 only when every program ran and every pair agrees.
#   run_prepared.sh [iterations] [converge iterations]   env: RTOL (1e-4), OUT (a folder for the x files)
set -uo pipefail
cd "$(dirname "$0")"
iterations=${1:-50}
converge_iterations=${2:-200}
rtol=${RTOL:-1e-4}
out=${OUT:-/tmp/proxgen-device}
mkdir -p "$out"
nvidia-smi -L || { echo "run_prepared: FAILED: no NVIDIA GPU visible" >&2; exit 2; }
failed=0
compare() {  # relative L2 distance of two .npy files of float32
  python3 - "$1" "$2" "$rtol" <<'PY'
import sys, numpy as np
a, b, rtol = np.load(sys.argv[1]), np.load(sys.argv[2]), float(sys.argv[3])
d = float(np.linalg.norm(a.astype(np.float64) - b) / np.linalg.norm(b.astype(np.float64)))
print(f"  cuda vs cpu: relative L2 {d:.3e} (finite: {bool(np.isfinite(a).all())})")
sys.exit(0 if np.isfinite(d) and d <= rtol else 1)
PY
}
for name in deblur deblur_ladmm deblur_admm deblur_hqs deblur_cv; do
  for mode in fixed converge; do
    flag=$([[ $mode == converge ]] && echo --converge || echo --warmup)
    n=$([[ $mode == converge ]] && echo "$converge_iterations" || echo "$iterations")
    echo "== $name, $mode ($n iterations at most)"
    ok=1
    for kind in cpu cuda; do
      echo -n "  $kind: "
      ./${name}_$kind b.npy kernel.npy 0.002 "$n" "$out/x_${name}_${mode}_$kind.npy" $flag || ok=0
    done
    if [[ $ok == 1 ]]; then
      compare "$out/x_${name}_${mode}_cuda.npy" "$out/x_${name}_${mode}_cpu.npy" || { echo "  MISMATCH"; failed=1; }
    else
      echo "  FAILED to run"; failed=1
    fi
  done
done
[[ $failed == 0 ]] && echo "run_prepared: PASSED" || echo "run_prepared: FAILED"
exit $failed
