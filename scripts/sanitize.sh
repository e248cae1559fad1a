#!/usr/bin/env bash
# The tests under AddressSanitizer and UndefinedBehaviorSanitizer, then a short fuzz of every
# target; see --help.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<EOF
Usage: scripts/sanitize.sh [--fuzz-seconds N] [--build-dir DIR] [--no-build] [--skip-verdict-e2e]
                           [--e2e-after FILE]

Configures and builds DIR with clang, ASan, UBSan and libFuzzer (-DCOLLBENCH_SANITIZE=ON
-DCOLLBENCH_FUZZ=ON, -O1, no CUDA), only the targets the checks need: collbench, the unit and
end-to-end test programs and the fuzz targets. Then runs
  1. the unit tests (unit_tests, inspector_tests) and analyze on simulated NCCL Inspector logs
     (e2e_inspector_tests), each split over the cores,
  2. every fuzz target: its regression inputs, then N seconds from its seeds (scripts/fuzz.sh),
     one target per core at a time,
  3. the end-to-end tests that run the sanitized collbench under mpirun (the fake-cluster,
     Chromium and Slurm tests are left to scripts/test.sh's main build).
Any sanitizer report fails it, wherever it came from (a test, or collbench under mpirun): the
sanitizers write their reports to DIR/sanitizer-logs/, and a report there is a failure even when
the test that caused it passed. Leaks that Open MPI and its libraries keep at exit are suppressed
(tests/sanitize/lsan_mpi.supp, with tests/sanitize/no_dlclose.c preloaded so that their plugins'
stacks can be matched); leaks in collbench's code are not.

Options:
  --fuzz-seconds N  fuzzing time per target (default 15; 0 replays the regression inputs only)
  --build-dir DIR   build folder (default build-san)
  --no-build        use what DIR already holds
  --skip-verdict-e2e  leave out e2e_verdict_tests (about 7 minutes sanitized on 2 cores; CI
                    runs without it to stay short, and they have run clean here)
  --e2e-after FILE  start the end-to-end tests only once FILE exists (scripts/test.sh creates it
                    when its fake-cluster tests, which judge the machine's load, are over)
  -h, --help        this text

Environment: CXX (default clang++-16, else clang++), BUILD_JOBS (default: the number of cores),
NICE (default 0).
EOF
}

fuzz_seconds=15
build_dir=build-san
build=1
verdict_e2e=1
e2e_after=""
while [ $# -gt 0 ]; do
  case "$1" in
    --fuzz-seconds) fuzz_seconds="${2:?--fuzz-seconds needs a number}"; shift 2 ;;
    --build-dir) build_dir="${2:?--build-dir needs a folder}"; shift 2 ;;
    --no-build) build=0; shift ;;
    --skip-verdict-e2e) verdict_e2e=0; shift ;;
    --e2e-after) e2e_after="${2:?--e2e-after needs a file}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "sanitize.sh: unknown argument '$1'; see scripts/sanitize.sh --help" >&2; exit 2 ;;
  esac
done
[[ "$fuzz_seconds" =~ ^[0-9]+$ ]] || { echo "sanitize.sh: --fuzz-seconds '$fuzz_seconds': write a whole number" >&2; exit 2; }
nice_cmd=(nice -n "${NICE:-0}")
# Symbolized stacks in the reports: the symbolizer of the clang that built the targets.
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && command -v llvm-symbolizer-16 >/dev/null; then
  export ASAN_SYMBOLIZER_PATH="$(command -v llvm-symbolizer-16)"
fi
step() { echo "sanitize: $* ($(date +%T))"; }

fuzz_targets=(fuzz_sizes fuzz_nccl_text_parser fuzz_nccl_log fuzz_thresholds fuzz_known_issues fuzz_partial_journal
              fuzz_result_input fuzz_report_document fuzz_inspector)
if [ "$build" = 1 ]; then
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    cxx="${CXX:-$(command -v clang++-16 || command -v clang++ || true)}"
    [ -n "$cxx" ] || { echo "sanitize.sh: clang++ not found; install clang-16 and libclang-rt-16-dev (scripts/test.sh installs them)" >&2; exit 1; }
    step "configuring $build_dir with $cxx"
    # -O1: the sanitizers' usual level; line tables only: symbolized stacks at a fraction of -g's cost.
    "${nice_cmd[@]}" cmake -S . -B "$build_dir" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DCOLLBENCH_CUDA=OFF -DCOLLBENCH_MICRO=OFF -DCOLLBENCH_TESTS=ON \
      -DCOLLBENCH_SANITIZE=ON -DCOLLBENCH_FUZZ=ON >/dev/null
  fi
  targets=(collbench unit_tests e2e_tests inspector_tests e2e_inspector_tests "${fuzz_targets[@]}")
  [ "$verdict_e2e" = 1 ] && targets+=(e2e_verdict_tests)  # 7 test files: not built when not run
  grep -q '^LIBFABRIC_FOUND:INTERNAL=1' "$build_dir/CMakeCache.txt" && targets+=(e2e_fabric_tests)
  step "building ${targets[*]}"
  "${nice_cmd[@]}" cmake --build "$build_dir" -j "${BUILD_JOBS:-$(nproc)}" --target "${targets[@]}" >"$build_dir/sanitize-build.log" 2>&1 ||
    { tail -40 "$build_dir/sanitize-build.log"; echo "sanitize.sh: the build failed (all of it in $build_dir/sanitize-build.log)" >&2; exit 1; }
fi

source scripts/mpi_env.sh
logs="$(cd "$build_dir" && pwd)/sanitizer-logs"
rm -rf "$logs" && mkdir -p "$logs"
# Reports go to files (one per process) so that a report from a rank under mpirun, whose output a
# test may swallow, still fails the run. Undefined behaviour aborts (-fno-sanitize-recover).
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:log_path=$logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitize/lsan_mpi.supp:print_suppressions=0"
# Open MPI, PMIx, hwloc and libfabric unload their plugins before exit: with dlclose a no-op the
# stacks of what those leak still name their library, and the suppressions match.
cc_bin="$(command -v clang-16 || command -v cc)"
"$cc_bin" -shared -fPIC -O1 tests/sanitize/no_dlclose.c -o "$build_dir/no_dlclose.so"
export LD_PRELOAD="$(cd "$build_dir" && pwd)/no_dlclose.so${LD_PRELOAD:+:$LD_PRELOAD}"

status=0
# run_tests PROGRAM [ARGS...]: one test program; with SHARDS=N in its environment, its tests split
# N ways (GoogleTest's sharding) and run side by side, for programs whose tests do not measure.
run_tests() {
  local program="$1" shards="${SHARDS:-1}" i failed=0 pids=(); shift
  step "$program${SHARDS:+ ($shards shards)}"
  for ((i = 0; i < shards; i++)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "${nice_cmd[@]}" "$build_dir/tests/$program" --gtest_brief=1 "$@" \
      >"$build_dir/sanitize-$program.$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" && continue
    failed=1
    tail -60 "$build_dir/sanitize-$program.$i.log"
    echo "sanitize: $program failed (all of its output in $build_dir/sanitize-$program.$i.log)"
  done
  [ "$failed" = 0 ] || status=1
}
# The end-to-end programs run the collbench whose path they were built with (COLLBENCH_BIN): the
# sanitized one here, or the checks below would test an unsanitized binary without saying so.
collbench_bin="$(cd "$build_dir" && pwd)/collbench"
[ "$(nm "$collbench_bin" 2>/dev/null | grep -c __asan_init)" -gt 0 ] ||
  { echo "sanitize.sh: $collbench_bin is not built with AddressSanitizer" >&2; exit 1; }
e2e_programs=(e2e_tests e2e_inspector_tests)
[ "$verdict_e2e" = 1 ] && e2e_programs+=(e2e_verdict_tests)
for program in "${e2e_programs[@]}"; do
  grep -aq "$collbench_bin" "$build_dir/tests/$program" ||
    { echo "sanitize.sh: $build_dir/tests/$program does not run $collbench_bin" >&2; exit 1; }
done

# The unit tests, and analyze on simulated Inspector logs, measure nothing: split over the cores.
SHARDS=$(nproc) run_tests unit_tests
SHARDS=$(nproc) run_tests inspector_tests
SHARDS=$(nproc) run_tests e2e_inspector_tests

# The fuzzers handle their own sanitizer reports (a crash input per finding).
step "fuzzing each target for $fuzz_seconds s"
(unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS LD_PRELOAD
 NICE="${NICE:-0}" scripts/fuzz.sh --no-build --build-dir "$build_dir" --seconds "$fuzz_seconds" --jobs "$(nproc)") || status=1

if [ -n "$e2e_after" ] && [ ! -e "$e2e_after" ]; then
  step "waiting for $e2e_after before the end-to-end tests"
  while [ ! -e "$e2e_after" ]; do sleep 2; done
fi
# This build has no CUDA: --backend nccl is refused before the set-up that test injects a failure in.
run_tests e2e_tests --gtest_filter=-E2E.RankFailingBackendSetUpIsNamedAndNobodyWaits
if [ "$verdict_e2e" = 1 ]; then run_tests e2e_verdict_tests; fi
if [ -x "$build_dir/tests/e2e_fabric_tests" ]; then run_tests e2e_fabric_tests; fi

reports=$(find "$logs" -type f | sort)
if [ -n "$reports" ]; then
  for f in $reports; do echo "== $f"; head -80 "$f"; done
  echo "sanitize: $(wc -l <<<"$reports") sanitizer report(s) above (in $logs/)"
  status=1
fi

[ "$status" = 0 ] && step "no sanitizer finding" || step "FAILED"
exit $status
