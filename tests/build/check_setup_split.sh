#!/usr/bin/env bash
# The user's set-up apart from the tests': scripts/setup.sh installs no test-only package, and the
# project configures without GoogleTest and Google Benchmark (leaving out the tests and micro
# benchmarks), but not when the tests are asked for.
# Usage: check_setup_split.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src="$1" work="$2"
fail() { echo "FAIL: $*"; exit 1; }

runtime=$("$src/scripts/setup.sh" --list)
tests=$("$src/scripts/test.sh" --list)
for p in cmake libopenmpi-dev libfmt-dev; do
  grep -qx "$p" <<<"$runtime" || fail "setup.sh --list lacks $p"
done
for p in libgtest-dev libbenchmark-dev slurmctld prometheus chromium clang-16; do
  grep -qx "$p" <<<"$tests" || fail "test.sh --list lacks $p"
done
both=$(comm -12 <(sort <<<"$runtime") <(sort <<<"$tests"))
[ -z "$both" ] || fail "in both lists (setup.sh would install test-only packages): $both"
grep -q -- '--target collbench' "$src/scripts/setup.sh" || fail "setup.sh builds more than collbench"

rm -rf "$work" && mkdir -p "$work"
no_test_packages=(-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON -DCOLLBENCH_CUDA=OFF)
cmake -S "$src" -B "$work/auto" "${no_test_packages[@]}" >"$work/auto.log" 2>&1 ||
  { cat "$work/auto.log"; fail "does not configure without GoogleTest and Benchmark"; }
[ ! -e "$work/auto/tests/Makefile" ] || fail "tests configured without GoogleTest"
grep -q '^bare_allreduce:' "$work/auto/tests/perf/Makefile" || fail "bare_allreduce (MPI only) left out"
! grep -q '^micro_pattern:' "$work/auto/tests/perf/Makefile" || fail "micro benchmarks configured without Benchmark"
if cmake -S "$src" -B "$work/asked" "${no_test_packages[@]}" -DCOLLBENCH_TESTS=ON >"$work/asked.log" 2>&1; then
  fail "-DCOLLBENCH_TESTS=ON configured without GoogleTest"
fi
echo "setup split: runtime packages $(wc -l <<<"$runtime"), test-only $(wc -l <<<"$tests"); configures without test packages"
