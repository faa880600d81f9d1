#!/usr/bin/env bash
# A generated solver's iteration against the JIT's on the same plan, every algorithm with a
# generated loop, in one run: the deployment example's programs (examples/deploy: deploy.cpp over
# the solver each `proxgen_add_solver(deblur… ALGORITHM …)` generated) against
# `proxgen_aot_jit_reference` (tests/aot/jit_reference.cpp: the same TV deconvolution with
# nonnegativity, aot::halide_only's plan, the JIT engine). Both run exactly N iterations
# (tolerances 0) and print ms per iteration of the iterations alone (compilation, set-up and a
# warm-up iteration excluded). The JIT is given the generated library's target (HL_JIT_TARGET, as
# the generated program prints it), so that both run the same vector width and rounding. The pairs
# are interleaved, JIT first and generated first in turn, so each pair sees the same load; the
# table keeps every pair's range.
#   bench/aot_vs_jit.sh [build dir] [sizes, default "512 1024"] [rounds, default 3] [algorithms, default all]
# Prints a Markdown table: size, algorithm, iterations, JIT ms, generated ms, generated / JIT.
set -euo pipefail
build=${1:-build}
sizes=${2:-512 1024}
rounds=${3:-3}
only=${4:-}
jit=$build/tests/aot/proxgen_aot_jit_reference
deploy=$build/examples/deploy
work=$(mktemp -d "${TMPDIR:-/tmp}/proxgen-aot-vs-jit.XXXXXX")
trap 'rm -rf "$work"' EXIT

# algorithm name and its deployment program (examples/deploy/CMakeLists.txt)
algorithms=(
  "pc proxgen_deploy"
  "ladmm proxgen_deploy_ladmm"
  "admm proxgen_deploy_admm"
  "hqs proxgen_deploy_hqs"
  "cv proxgen_deploy_cv"
)
built() { [[ -x $1 ]] || { echo "aot_vs_jit: $1 is not built (tools/build.sh builds it)" >&2; exit 2; }; }
built "$jit"
for entry in "${algorithms[@]}"; do built "$deploy/${entry#* }"; done
# iterations per run: about a second of work at each size
iterations() {
  local alg=$1 size=$2 n
  case $alg in pc | ladmm | cv) n=300 ;; *) n=60 ;; esac
  ((size > 512)) && n=$((n / 4))
  echo "$n"
}
ms() { sed -n 's/.* \([0-9.]*\) ms\/iteration.*/\1/p'; }
# "lo–hi" of the numbers given (one number where they are all equal)
range() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (lo == hi) print lo; else print lo "–" hi }' | tr -d '\n'; }

echo "| size | algorithm | iterations | JIT ms/iteration | generated ms/iteration | generated / JIT |"
echo "|---|---|---|---|---|---|"
for size in $sizes; do
  dir=$work/$size
  mkdir -p "$dir"
  "$jit" "$size" 0.002 0 "$dir" >/dev/null  # b.npy and kernel.npy
  for entry in "${algorithms[@]}"; do
    read -r alg program <<<"$entry"
    [[ -z $only || " $only " == *" $alg "* ]] || continue
    n=$(iterations "$alg" "$size")
    run_generated() { "$deploy/$program" "$dir/b.npy" "$dir/kernel.npy" 0.002 "$1" "$dir/x_$alg.npy" --warmup; }
    # the generated library names its target ("… (target x86-64-linux-avx2)"); the JIT is given it
    target=$(run_generated 1 | sed -n 's/.*(target \(.*\))$/\1/p')
    [[ -n $target ]] || { echo "aot_vs_jit: $program printed no target" >&2; exit 1; }
    run_jit() { HL_JIT_TARGET=$target "$jit" "$size" 0.002 "$1" "$dir" "$alg"; }
    run_jit 1 >/dev/null  # compiles the JIT's kernels once
    js=() gs=() rs=()
    for ((r = 0; r < rounds; ++r)); do
      if ((r % 2 == 0)); then j=$(run_jit "$n" | ms); g=$(run_generated "$n" | ms); else
        g=$(run_generated "$n" | ms); j=$(run_jit "$n" | ms); fi
      js+=("$j") gs+=("$g") rs+=("$(awk -v g="$g" -v j="$j" 'BEGIN { printf "%.2f", g / j }')")
    done
    echo "| ${size}² | $alg | $n | $(range "${js[@]}") | $(range "${gs[@]}") | $(range "${rs[@]}") |"
  done
done
