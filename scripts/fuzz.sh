#!/usr/bin/env bash
# Runs collbench's libFuzzer targets (tests/fuzz) on their seed corpora; see --help.
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(fuzz_sizes fuzz_nccl_text_parser fuzz_nccl_log fuzz_thresholds fuzz_known_issues fuzz_partial_journal fuzz_result_input
             fuzz_report_document fuzz_inspector)

usage() {
  cat <<EOF
Usage: scripts/fuzz.sh [--seconds N] [--jobs J] [--keep-going] [--build-dir DIR] [--no-build] [TARGET...]

Builds the fuzz targets if needed (clang, -DCOLLBENCH_FUZZ=ON: ASan, UBSan and libFuzzer), then for
each TARGET (default: all) replays its regression inputs (tests/fuzz/regressions/TARGET/) and
fuzzes it for N seconds starting from its seed corpus (repository fixtures, thresholds/*.json and
tests/fuzz/seeds/). Prints per target: executions, executions per second, coverage (cov/ft, from
libFuzzer's last status line), and the crashes, leaks, timeouts and out-of-memory inputs found,
with where their files are. Exits 1 when any target found something or failed a replay.

Targets: ${all_targets[*]}

Options:
  --seconds N      fuzzing time per target (default 60; 0: run the regression and seed inputs once)
  --jobs J         fuzz J targets at once (default 1); each is one process, so up to the cores
  --keep-going     go on after a crash, leak or timeout (libFuzzer's -fork=1 mode) and report
                   them all at the end; for long runs
  --build-dir DIR  build folder (default \$BUILD_DIR or build-san; configured here when empty)
  --no-build       use the targets already built in the build folder
  -h, --help       this text

Files, under the build folder's fuzz/ folder:
  corpus/TARGET/    inputs found interesting; kept between runs and used as the next run's start
  findings/TARGET/  crash-*, leak-*, timeout-*, oom-* inputs. Reproduce one with
                    BUILD/tests/fuzz/TARGET FILE; keep it small under tests/fuzz/regressions/TARGET/
  logs/TARGET.log   libFuzzer's output

Environment: CXX (default clang++-16, else clang++), BUILD_JOBS (default 2), NICE (default 10),
SHARED_FIXTURES (more nccl-tests outputs to seed from; default ../shared/fixtures).
EOF
}

seconds=60
jobs=1
build_dir="${BUILD_DIR:-build-san}"
build=1
mode=()
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="${2:?--seconds needs a number}"; shift 2 ;;
    --build-dir) build_dir="${2:?--build-dir needs a folder}"; shift 2 ;;
    --no-build) build=0; shift ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --keep-going) mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1); shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1'; see scripts/fuzz.sh --help" >&2; exit 2 ;;
    *)
      if [[ " ${all_targets[*]} " != *" $1 "* ]]; then
        echo "fuzz.sh: unknown target '$1'; the targets are: ${all_targets[*]}" >&2
        exit 2
      fi
      targets+=("$1"); shift ;;
  esac
done
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: --seconds '$seconds': write a whole number of seconds" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --jobs '$jobs': write a whole number from 1" >&2; exit 2; }
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
nice_cmd=(nice -n "${NICE:-10}")
# Symbolized stacks in the reports: the symbolizer of the clang that built the targets.
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && command -v llvm-symbolizer-16 >/dev/null; then
  export ASAN_SYMBOLIZER_PATH="$(command -v llvm-symbolizer-16)"
fi

if [ "$build" = 1 ]; then
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    cxx="${CXX:-$(command -v clang++-16 || command -v clang++ || true)}"
    [ -n "$cxx" ] || { echo "fuzz.sh: clang++ not found; install clang-16 and libclang-rt-16-dev (scripts/test.sh installs them)" >&2; exit 1; }
    "${nice_cmd[@]}" cmake -S . -B "$build_dir" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DCOLLBENCH_CUDA=OFF -DCOLLBENCH_MICRO=OFF \
      -DCOLLBENCH_SANITIZE=ON -DCOLLBENCH_FUZZ=ON >/dev/null
  fi
  "${nice_cmd[@]}" cmake --build "$build_dir" -j "${BUILD_JOBS:-2}" --target "${targets[@]}" >/dev/null
fi

shared="${SHARED_FIXTURES:-../shared/fixtures}"
# Seed folders per target; missing ones are skipped.
seeds_of() {
  case "$1" in
    fuzz_sizes) echo tests/fuzz/seeds/sizes ;;
    fuzz_nccl_text_parser) echo tests/fixtures/nccl-tests tests/fixtures/written tests/fuzz/seeds/text "$shared/nccl-tests" ;;
    fuzz_nccl_log) echo tests/fixtures/nccl-tests tests/fixtures/written "$shared/nccl-tests" ;;
    fuzz_thresholds) echo thresholds ;;
    fuzz_known_issues) echo tests/fuzz/seeds/known_issues ;;
    fuzz_partial_journal) echo tests/fuzz/seeds/partial tests/fuzz/seeds/run ;;
    fuzz_result_input) echo tests/fuzz/seeds/run tests/fuzz/seeds/partial tests/fuzz/seeds/text tests/fixtures/collbench tests/fixtures/written ;;
    fuzz_report_document) echo tests/fuzz/seeds/run tests/fuzz/seeds/documents tests/fixtures/collbench ;;
    fuzz_inspector) echo tests/fuzz/seeds/inspector ;;
  esac
}
dict_of() {
  case "$1" in
    fuzz_sizes) echo tests/fuzz/dict/sizes.dict ;;
    fuzz_nccl_text_parser) echo tests/fuzz/dict/nccl_tests.dict ;;
    fuzz_nccl_log) echo tests/fuzz/dict/nccl_log.dict ;;
    *) echo tests/fuzz/dict/json.dict ;;
  esac
}
# Inputs longer than this are cut when loaded; shorter ones mutate faster.
max_len_of() {
  case "$1" in
    fuzz_sizes) echo 64 ;;
    fuzz_thresholds|fuzz_known_issues) echo 16384 ;;
    fuzz_nccl_text_parser) echo 16384 ;;
    *) echo 131072 ;;
  esac
}

out="$build_dir/fuzz"
mkdir -p "$out/logs" "$out/rows"
export TMPDIR="${TMPDIR:-/tmp}"
# fuzz_one TARGET: replays its regression inputs, fuzzes it, writes its table row to
# $out/rows/TARGET; returns 1 when it found something or a replay failed.
fuzz_one() {
  local t="$1" status=0
  local bin="$build_dir/tests/fuzz/$t"
  local corpus="$out/corpus/$t" findings="$out/findings/$t" log="$out/logs/$t.log"
  mkdir -p "$corpus" "$findings"

  # Earlier crashes first: each regression input is run once.
  local replay_note="" regressions
  regressions=(tests/fuzz/regressions/"$t"/*)
  if [ -e "${regressions[0]}" ]; then
    if ! "${nice_cmd[@]}" "$bin" -runs=1 "${regressions[@]}" >"$out/logs/$t.replay.log" 2>&1; then
      replay_note="; a regression input fails again (see $out/logs/$t.replay.log)"
      status=1
    fi
  fi

  local seed_dirs=() d
  for d in $(seeds_of "$t"); do [ -d "$d" ] && seed_dirs+=("$d"); done
  ls "$findings" >"$out/logs/$t.before"
  local rc=0
  # -max_total_time=0 would mean no limit: 0 seconds runs the inputs once instead.
  local limit=(-max_total_time="$seconds")
  [ "$seconds" != 0 ] || limit=(-runs=0)
  "${nice_cmd[@]}" "$bin" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len_of "$t")" \
    -dict="$(dict_of "$t")" -print_final_stats=1 -artifact_prefix="$findings/" ${mode[@]+"${mode[@]}"} \
    "$corpus" "${seed_dirs[@]}" >"$log" 2>&1 || rc=$?

  local execs rate cov ft new summary
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  # Fork mode prints no final stats: its last status line has the totals.
  [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  [ -n "$rate" ] || rate=$(grep -oE 'exec/s: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  new=$(ls "$findings" | grep -vxFf "$out/logs/$t.before" || true)
  summary="none"
  if [ -n "$new" ] || [ "$rc" -ne 0 ]; then
    status=1
    local kinds="" k n
    for k in crash leak timeout oom; do
      n=$(grep -c "^$k-" <<<"$new" || true)
      [ "$n" -gt 0 ] && kinds+="$n $k, "
    done
    summary="${kinds}exit $rc: $findings/; output in $log"
  fi
  printf '%-22s %12s %9s %7s %7s  %s%s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$summary" "$replay_note" \
    >"$out/rows/$t"
  return $status
}

for t in "${targets[@]}"; do
  [ -x "$build_dir/tests/fuzz/$t" ] || { echo "fuzz.sh: $build_dir/tests/fuzz/$t is not built; run without --no-build" >&2; exit 1; }
  rm -f "$out/rows/$t"
done
# Up to --jobs targets at once, each on a core of its own; the rows in the targets' order.
status=0
running=()
for t in "${targets[@]}"; do
  if [ "${#running[@]}" -ge "$jobs" ]; then
    wait "${running[0]}" || status=1
    running=("${running[@]:1}")
  fi
  fuzz_one "$t" &
  running+=($!)
done
for pid in "${running[@]}"; do wait "$pid" || status=1; done
printf '%-22s %12s %9s %7s %7s  %s\n' target executions exec/s cov ft findings
for t in "${targets[@]}"; do cat "$out/rows/$t" 2>/dev/null || echo "$t: no result (see $out/logs/$t.log)"; done
exit $status
