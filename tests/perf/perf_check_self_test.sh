#!/usr/bin/env bash
# scripts/perf-check.sh must fail a planted 3x slowdown of collbench's benchmarks, and pass when the
# whole machine is 3x slower (its reference benchmarks with them). Both judge the figures of the last
# check (BUILD/perf-check-figures, which scripts/test.sh's perf-check step leaves); without them, a
# check measures them first.
# Usage: perf_check_self_test.sh BUILD_DIR
set -uo pipefail
build="$1"
cd "$(dirname "$0")/../.." || exit 1
figures="$build/perf-check-figures"
if [ ! -f "$figures/reference-before.json" ]; then
  scripts/perf-check.sh --build-dir "$build" >/dev/null 2>&1
  [ -f "$figures/reference-before.json" ] || { echo "FAIL: perf-check left no figures in $figures"; exit 1; }
fi
check() { scripts/perf-check.sh --build-dir "$build" --figures "$figures" 2>/dev/null; }
out=$(PERF_CHECK_SLOWDOWN=3 check); rc=$?
echo "$out" | tail -n 2
[ "$rc" = 1 ] && grep -q '^perf-check: FAIL: ' <<<"$out" || { echo "FAIL: a planted 3x slowdown passed (exit $rc)"; exit 1; }
out=$(PERF_CHECK_MACHINE=3 check); rc=$?
echo "$out" | grep -E 'factor|within|FAIL'
[ "$rc" = 0 ] || { echo "FAIL: a machine 3x slower as a whole read as a regression (exit $rc)"; exit 1; }
echo "perf_check_self_test: the planted slowdown fails, the slower machine passes"
