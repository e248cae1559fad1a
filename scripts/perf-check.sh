#!/usr/bin/env bash
# Runs the micro benchmarks (tests/perf) and compares each with its figure in
# tests/perf/baseline.json: a benchmark more than --max-ratio (default 2) times slower than its
# baseline fails the check, with both figures printed. Figures are CPU time per iteration, the
# least of a few repetitions: on a shared machine that is what load disturbs least.
# Usage: scripts/perf-check.sh [--update] [--build-dir DIR] [--max-ratio R] [--min-time S] [--repetitions N]
#   --update       rewrite the baseline with this run's figures (keep the old one's list of benchmarks)
# Env: PERF_CHECK_SLOWDOWN=k multiplies every measured figure by k before comparing: a planted
#      k-times slowdown, to see the check fail (PERF_CHECK_SLOWDOWN=3 must fail).
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD_DIR:-build}"
baseline=tests/perf/baseline.json
update=0
max_ratio=2
min_time=0.05
repetitions=3
while [ $# -gt 0 ]; do
  case "$1" in
    --update) update=1 ;;
    --build-dir) build="$2"; shift ;;
    --baseline) baseline="$2"; shift ;;
    --max-ratio) max_ratio="$2"; shift ;;
    --min-time) min_time="$2"; shift ;;
    --repetitions) repetitions="$2"; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "perf-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -f "$baseline" ] || { echo "perf-check: no baseline at $baseline" >&2; exit 2; }

tmp=$(mktemp -d /tmp/cb-perf-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Which programs and benchmarks run is the baseline's list: {"programs": {"micro_hunt": {"filter": ...}}}.
programs=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["programs"]))' "$baseline")
start=$(date +%s)
for p in $programs; do
  bin="$build/tests/perf/$p"
  [ -x "$bin" ] || { echo "perf-check: $bin not built (scripts/test.sh builds the micro benchmarks; setup.sh does not), or --build-dir" >&2; exit 2; }
  filter=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["programs"][sys.argv[2]].get("filter", "."))' \
    "$baseline" "$p")
  echo "perf-check: $p --benchmark_filter='$filter'" >&2
  "$bin" --benchmark_filter="$filter" --benchmark_min_time="$min_time" --benchmark_repetitions="$repetitions" \
    --benchmark_format=json --benchmark_out="$tmp/$p.json" --benchmark_out_format=json >/dev/null
done
echo "perf-check: benchmarks ran in $(( $(date +%s) - start )) s" >&2

python3 - "$baseline" "$tmp" "$update" "$max_ratio" "${PERF_CHECK_SLOWDOWN:-1}" <<'PY'
import json, os, sys

baseline_path, out_dir, update, max_ratio, slowdown = sys.argv[1], sys.argv[2], sys.argv[3] == "1", float(sys.argv[4]), float(sys.argv[5])
base = json.load(open(baseline_path))
scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}

measured = {}  # program -> benchmark -> least CPU time per iteration, ms
for program in base["programs"]:
    doc = json.load(open(os.path.join(out_dir, program + ".json")))
    for b in doc["benchmarks"]:
        if b.get("run_type") == "aggregate" or "error_occurred" in b and b["error_occurred"]:
            continue
        ms = b["cpu_time"] * scale[b.get("time_unit", "ns")] * slowdown
        name = b.get("run_name", b["name"])
        figures = measured.setdefault(program, {})
        figures[name] = min(ms, figures.get(name, float("inf")))

if update:
    for program, figures in measured.items():
        base["programs"][program]["cpu_ms"] = {k: float(f"{v:.4g}") for k, v in sorted(figures.items())}
    with open(baseline_path + ".tmp", "w") as f:
        json.dump(base, f, indent=2)
        f.write("\n")
    os.replace(baseline_path + ".tmp", baseline_path)
    print(f"perf-check: baseline {baseline_path} rewritten ({sum(len(f) for f in measured.values())} benchmarks)")
    sys.exit(0)

failed = 0
print(f"{'benchmark':<48} {'baseline ms':>12} {'now ms':>12} {'ratio':>7}")
for program, entry in base["programs"].items():
    figures = measured.get(program, {})
    for name, was in entry.get("cpu_ms", {}).items():
        now = figures.get(name)
        label = f"{program}:{name}"
        if now is None:
            print(f"{label:<48} {was:>12.4g} {'-':>12} {'-':>7}  FAIL: not measured")
            failed += 1
            continue
        ratio = now / was if was > 0 else float("inf")
        verdict = f"FAIL: more than {max_ratio:g}x slower than its baseline" if ratio > max_ratio else "ok"
        failed += ratio > max_ratio
        print(f"{label:<48} {was:>12.4g} {now:>12.4g} {ratio:>6.2f}x  {verdict}")
    for name in sorted(set(figures) - set(entry.get("cpu_ms", {}))):
        print(f"{program + ':' + name:<48} {'-':>12} {figures[name]:>12.4g} {'-':>7}  new: no baseline (--update)")
if slowdown != 1:
    print(f"perf-check: measured figures multiplied by {slowdown:g} (PERF_CHECK_SLOWDOWN)")
if failed:
    print(f"perf-check: FAIL: {failed} benchmark(s) more than {max_ratio:g}x slower than tests/perf/baseline.json "
          "(rerun on a quiet machine; if the slowdown is meant, scripts/perf-check.sh --update)")
    sys.exit(1)
print("perf-check: every benchmark within", f"{max_ratio:g}x of its baseline")
PY
