#!/usr/bin/env bash
# Fresh Debian machine: installs what building and running need (scripts/packages/runtime.txt) and
# what only the tests need (scripts/packages/test.txt), builds everything (collbench, the tests,
# the micro benchmarks), and runs every test (unit tests and the end-to-end tests under mpirun),
# and, beside them, the unit tests, the mpirun end-to-end tests and a short fuzz of every reader
# under ASan and UBSan (scripts/sanitize.sh, in build-san). GPU-only tests skip with their reason
# when no GPU is visible.
# After the build and the micro benchmarks (alone, on a quiet machine), the tests run at normal
# priority with the sanitizer build and its tests beside them, niced; then the fake-cluster tests
# (about 12-18 minutes, most of it waiting on slowed links and timeouts; each is made to hold on a
# busy machine) beside what is left of the sanitizer step and, niced, the Debian package
# (scripts/package.sh, its own build without CUDA) and its test in a clean Debian root
# (tests/install/deb_clean_root.sh, ctest's deb_clean_root).
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
# timed NAME COMMAND...: runs it and appends "NAME<TAB>seconds<TAB>exit status" to $step_times.
timed() {
  local name="$1" start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  printf '%s\t%s\t%s\n' "$name" $((SECONDS - start)) "$rc" >>"$step_times"
  return "$rc"
}
# Line tables only (-g1): symbolized stacks, at a third less compile time than full debug information
# on the heaviest files; precompiled headers unless a compiler launcher (ccache) is given
# (cmake/pch.cmake).
build_all() {
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" -DCOLLBENCH_TESTS=ON \
    -DCOLLBENCH_MICRO=ON "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" ${CMAKE_ARGS:-} >/dev/null &&
    cmake --build "$build" -j "$(nproc)"
}

timed packages scripts/lib/install-packages.sh scripts/packages/runtime.txt scripts/packages/test.txt
timed build build_all
source scripts/mpi_env.sh
# The Debian package from the build's own objects (its mpi-only collbench: a link, no compile), and
# deb_clean_root installing it in a clean Debian root.
package_deb() { COLLBENCH_DEB=$(PKG_FROM_BUILD="$build" scripts/package.sh | tail -n 1) && export COLLBENCH_DEB; }
packaged=0
timed package package_deb || packaged=$?
[ "$packaged" != 0 ] || timed "deb clean root" ctest --test-dir "$build" -R '^deb_clean_root$' --output-on-failure \
  --timeout 900 || packaged=$?
# The micro benchmarks first, on a machine nothing else of this script is using yet.
# Its table is printed again at the end when it fails, where a CI log's tail shows it.
perf_check() { scripts/perf-check.sh --build-dir "$build" 2>&1 | tee "$build/perf-check.log"; }
perf=0
timed perf-check perf_check || perf=$?
# Each step runs even when an earlier one failed, so one run shows every failure; the exit status comes last.
# Then three streams at once: the tests, the fake-cluster tests (most of their time waits on slowed links
# and timeouts; each is made to hold on a busy machine) and, niced, the sanitizer build and its tests
# (the tests' timing sees a busy machine but keeps the CPU it asks for).
NICE=10 timed "sanitize (beside)" scripts/sanitize.sh --skip-verdict-e2e >"$build/sanitize.log" 2>&1 &
sanitizer=$!
timed "fake-cluster (beside)" ctest --test-dir "$build" -R '^fake_cluster_' --output-on-failure --timeout 900 \
  >"$build/fake-cluster-tests.log" 2>&1 &
fake=$!
tested=0
timed tests ctest --test-dir "$build" -E '^(fake_cluster_|deb_clean_root$)' --output-on-failure --timeout 600 \
  -j "$(nproc)" || tested=$?
sanitized=0
wait "$sanitizer" || sanitized=$?
cat "$build/sanitize.log"
fake_cluster=0
wait "$fake" || fake_cluster=$?
cat "$build/fake-cluster-tests.log"
[ "$perf" = 0 ] || grep -E '^perf-check: this machine|^benchmark |FAIL' "$build/perf-check.log" || true
echo "test.sh: perf-check exit $perf, tests exit $tested, fake-cluster tests exit $fake_cluster," \
  "sanitizer step exit $sanitized, package steps exit $packaged"
[ "$perf" = 0 ] && [ "$tested" = 0 ] && [ "$fake_cluster" = 0 ] && [ "$sanitized" = 0 ] && [ "$packaged" = 0 ]
