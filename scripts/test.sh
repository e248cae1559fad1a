#!/usr/bin/env bash
# Fresh Debian machine: installs what building and running need (scripts/packages/runtime.txt) and
# what only the tests need (scripts/packages/test.txt), builds collbench, the end-to-end tests and the
# micro benchmarks, and runs every test: the end-to-end tests under mpirun here, and the unit tests,
# the mpirun end-to-end tests and a short fuzz of every reader under ASan and UBSan
# (scripts/sanitize.sh, in build-san; the tests it runs run there only). GPU-only tests skip with their
# reason when no GPU is visible.
# The micro benchmarks are built first and run alone on a quiet machine (scripts/perf-check.sh); then,
# with the sanitizer step beside all that follows, niced: the rest of the build, the Debian package from
# the build's own objects and its test in a clean Debian root (scripts/package.sh,
# tests/install/deb_clean_root.sh), the tests, and the fake-cluster tests in two lanes; the sanitizer
# step's own mpirun tests last.
# Each step's wall time goes to $STEP_TIMES (default BUILD/step-times.tsv; .ci/run prints them).
#   scripts/test.sh --list   prints the test-only packages it installs besides setup.sh's
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --list ]; then
  exec scripts/lib/install-packages.sh --list scripts/packages/test.txt
fi
[ $# -eq 0 ] || { echo "test.sh: unknown argument '$1' (only --list)" >&2; exit 2; }
build="${BUILD_DIR:-build}"
mkdir -p "$build"
step_times="${STEP_TIMES:-$build/step-times.tsv}"
: >"$step_times"
# shellcheck source=scripts/lib/step-cpu.sh
source scripts/lib/step-cpu.sh
# timed NAME COMMAND...: runs it and appends "NAME<TAB>seconds<TAB>exit status<TAB>CPU seconds" to
# $step_times (CPU: the step's processes and all they start, on every core; "-" when not counted).
timed() {
  local name="$1" start=$SECONDS rc=0 cpu
  shift
  step_cpu_enter "$name"
  "$@" || rc=$?
  cpu=$(step_cpu_seconds)
  step_cpu_leave
  printf '%s\t%s\t%s\t%s\n' "$name" $((SECONDS - start)) "$rc" "$cpu" >>"$step_times"
  return "$rc"
}
# Line tables only (-g1): symbolized stacks, at a third less compile time than full debug information
# on the heaviest files; precompiled headers unless a compiler launcher (ccache) is given
# (cmake/pch.cmake). First only the micro benchmarks and the libraries they link, for perf-check.
build_benchmarks() {
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" -DCOLLBENCH_TESTS=ON \
    -DCOLLBENCH_MICRO=ON -DCOLLBENCH_SANITIZED_TESTS=OFF "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" ${CMAKE_ARGS:-} >/dev/null &&
    cmake --build "$build" -j "$(nproc)" --target micro_reference micro_hunt micro_summary micro_report micro_pattern
}

timed packages scripts/lib/install-packages.sh scripts/packages/runtime.txt scripts/packages/test.txt
timed "build (benchmarks)" build_benchmarks
source scripts/mpi_env.sh
# The micro benchmarks first, on a machine nothing else of this script is using yet.
# Its table is printed again at the end when it fails, where a CI log's tail shows it.
perf_check() { scripts/perf-check.sh --build-dir "$build" 2>&1 | tee "$build/perf-check.log"; }
perf=0
timed perf-check perf_check || perf=$?
# Each step runs even when an earlier one failed, so one run shows every failure; the exit status comes last.
# From here on, niced beside everything else (whose timing sees a busy machine but keeps the CPU it asks
# for): the sanitizer build, the unit tests (this build leaves out what it runs: COLLBENCH_SANITIZED_TESTS=OFF) and the
# fuzzing; its mpirun tests wait for the gate, made once the fake-cluster tests are over (they judge the
# machine's load, and a sanitized run's ranks beside them were load enough to hide a planted fault).
gate="$build/sanitizer-e2e.go"
rm -f "$gate"
trap 'touch "$gate"' EXIT
NICE=10 timed "sanitize (beside)" scripts/sanitize.sh --skip-verdict-e2e --e2e-after "$gate" >"$build/sanitize.log" 2>&1 &
sanitizer=$!
if ! timed "build (the rest)" cmake --build "$build" -j "$(nproc)"; then
  touch "$gate"
  wait "$sanitizer" || true
  cat "$build/sanitize.log"
  echo "test.sh: the build failed (its output is above the sanitizer step's)" >&2
  exit 1
fi
# The Debian package from the build's own objects (its mpi-only collbench: a link, no compile), and
# deb_clean_root installing it in a clean Debian root.
package_deb() { COLLBENCH_DEB=$(PKG_FROM_BUILD="$build" scripts/package.sh | tail -n 1) && export COLLBENCH_DEB; }
packaged=0
timed package package_deb || packaged=$?
[ "$packaged" != 0 ] || timed "deb clean root" ctest --test-dir "$build" -R '^deb_clean_root$' --output-on-failure \
  --timeout 900 || packaged=$?
tested=0
timed tests ctest --test-dir "$build" -E '^(fake_cluster_|deb_clean_root$)' --output-on-failure --timeout 600 \
  -j "$(nproc)" || tested=$?
# The fake-cluster tests after the tests, in two lanes (two fake clusters side by side, each lane's tests
# one at a time; most of their time waits on slowed links and timeouts), beside what is left of the
# sanitizer step. Run beside the tests too, they loaded 2 cores 7-fold: single calls outran their
# watchdog and a 2-rank run's noise hid a 2x slowdown.
fake_cluster=0
timed "fake-cluster" ctest --test-dir "$build" -R '^fake_cluster_' --output-on-failure --timeout 900 -j 2 \
  >"$build/fake-cluster-tests.log" 2>&1 || fake_cluster=$?
touch "$gate"
sanitized=0
wait "$sanitizer" || sanitized=$?
cat "$build/sanitize.log"
cat "$build/fake-cluster-tests.log"
step_cpu_cleanup
[ "$perf" = 0 ] || grep -E '^perf-check: this machine|^benchmark |FAIL' "$build/perf-check.log" || true
echo "test.sh: perf-check exit $perf, tests exit $tested, fake-cluster tests exit $fake_cluster," \
  "sanitizer step exit $sanitized, package steps exit $packaged"
[ "$perf" = 0 ] && [ "$tested" = 0 ] && [ "$fake_cluster" = 0 ] && [ "$sanitized" = 0 ] && [ "$packaged" = 0 ]
