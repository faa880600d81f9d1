# Helpers of the CI stages (sourced by tools/ci/*.sh; run from the repository root).

# Prints "<stage>: N s" when the sourcing script exits, whatever its status.
ci_stage_timer() {
  CI_STAGE_NAME=$1
  CI_STAGE_START=$(date +%s)
  trap 'rc=$?; echo "== ${CI_STAGE_NAME}: $(( $(date +%s) - CI_STAGE_START )) s (exit ${rc})"' EXIT
}

# Configures a sanitized build of the library and its unit tests only: no examples, benchmarks or
# ahead-of-time solvers (PROXGEN_BUILD_EXAMPLES/BENCH off: their AOT generators and JIT demos add
# build time and no code the unit tests do not already cover). -O1 keeps the stack traces honest
# and the tests fast; -g1 gives file:line in reports at a fraction of full debug info's cost. The
# library is a unity build as in tools/build.sh. CMAKE_CXX_COMPILER_LAUNCHER=ccache in the
# environment is honoured (CMake reads it). With SANITIZER_CC=clang (clang-14) the build also
# defines the libFuzzer targets (PROXGEN_BUILD_FUZZERS), whose library is this one: the fuzz stage
# builds them here instead of compiling the library a third time; clang also compiles the
# sanitized sources in about half g++'s time.
#   [SANITIZER_CC=clang] sanitizer_configure <build dir> <-fsanitize=… flags> [optimization, default -O1]
sanitizer_configure() {
  local dir=$1 flags=$2 opt=${3:--O1}
  local compile="${opt} -g1 -fno-omit-frame-pointer ${flags}"
  local compilers=()
  if [[ ${SANITIZER_CC:-gcc} == clang ]]; then
    # (ld.bfd: gold warns about every AddressSanitizer helper symbol clang's runtime keeps local,
    # 131 lines a link, which would bury a real link error in the log's tail)
    compilers=(-DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DPROXGEN_BUILD_FUZZERS=ON
               -DPROXGEN_GOLD_LINKER=OFF)
  fi
  mkdir -p "$dir"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Sanitize -DPROXGEN_UNITY_BUILD=ON "${compilers[@]}" \
    "-DCMAKE_C_FLAGS_SANITIZE=${compile}" "-DCMAKE_CXX_FLAGS_SANITIZE=${compile}" \
    "-DCMAKE_EXE_LINKER_FLAGS=${flags}" "-DCMAKE_SHARED_LINKER_FLAGS=${flags}" \
    -DPROXGEN_BUILD_EXAMPLES=OFF -DPROXGEN_BUILD_BENCH=OFF >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; return 1; }
}

# A fresh on-disk kernel cache for a sanitizer stage, in its build directory: kernels compiled by
# another build would let the tests skip ProxGen's lowering code, which the stage is there to
# check (a cache hit does not build the pipeline).
#   fresh_kernel_cache <build dir>
fresh_kernel_cache() {
  rm -rf "$1/kernel-cache"
  PROXGEN_CACHE_DIR="$(cd "$1" && pwd)/kernel-cache"
  export PROXGEN_CACHE_DIR
}

# The unit-test executables a configured build defines: every test_* target except the
# ahead-of-time ones (test_aot_*: generated solvers, built by the main stage only).
unit_test_targets() {
  ninja -C "$1" -t targets all | sed -n 's/^\(test_[A-Za-z0-9_]*\): .*/\1/p' | grep -v '^test_aot' | sort -u
}

# Builds the given test executables of a configured sanitizer build (and the library with them).
#   build_tests <build dir> <target>...
build_tests() {
  local dir=$1; shift
  echo "${CI_STAGE_NAME}: building proxgen and $*"
  cmake --build "$dir" --target "$@" >"$dir/build.log" 2>&1 || { tail -n 100 "$dir/build.log"; return 1; }
}

# Runs built test executables whole (run_catch_executables), logs in <build dir>/logs.
#   run_tests <build dir> <target>...
run_tests() {
  local dir=$1; shift
  local exes
  mapfile -t exes < <(executables_in "$dir" "$@")
  run_catch_executables "$dir/logs" "${exes[@]}"
}

# Builds the given test executables and runs each whole against a fresh kernel cache.
#   build_and_run_tests <build dir> <target>...
build_and_run_tests() {
  local dir=$1; shift
  build_tests "$dir" "$@" || return 1
  fresh_kernel_cache "$dir"
  run_tests "$dir" "$@"
}

# The paths of built executables, by target name, under a build directory.
#   executables_in <build dir> <name>...
executables_in() {
  local dir=$1 name path; shift
  for name in "$@"; do
    path=$(find "$dir" -type f -name "$name" -perm -u+x -print -quit)
    [[ -n $path ]] || { echo "no executable $name under $dir" >&2; return 1; }
    echo "$path"
  done
}

# Runs Catch2 executables, two at a time (the machine's cores), each whole in one process so its
# test cases share the JIT cache. Each one's output goes to <log dir>/<name>.log and is printed if
# it fails. Returns non-zero if any failed.
#   run_catch_executables <log dir> <executable>...
run_catch_executables() {
  local logs=$1; shift
  mkdir -p "$logs"
  local -A running=()   # pid → executable name
  local failed=() exe pid name
  run_one() {
    local start=$(date +%s) rc=0
    "$1" --order decl >"$2" 2>&1 || rc=$?
    echo "   $(basename "$1"): $(( $(date +%s) - start )) s, exit ${rc}"
    return $rc
  }
  reap_one() {
    local done_pid rc=0
    wait -n -p done_pid "${!running[@]}" || rc=$?
    [[ $rc -eq 0 ]] || failed+=("${running[$done_pid]}")
    unset "running[$done_pid]"
  }
  for exe in "$@"; do
    [[ ${#running[@]} -lt 2 ]] || reap_one
    name=$(basename "$exe")
    run_one "$exe" "$logs/$name.log" &
    running[$!]=$name
  done
  while [[ ${#running[@]} -gt 0 ]]; do reap_one; done
  for name in "${failed[@]}"; do
    echo "---- ${name} failed; the end of its output (${logs}/${name}.log):"
    tail -n 200 "$logs/$name.log"
  done
  [[ ${#failed[@]} -eq 0 ]]
}
