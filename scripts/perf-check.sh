#!/usr/bin/env bash
# Runs the micro benchmarks (tests/perf) and compares each with its figure in
# tests/perf/baseline.json. Figures are CPU time per iteration, the least of a few repetitions: on a
# shared machine that is what load disturbs least. The machine's own speed is measured in the same
# run (micro_reference: a sort and a copy with no collbench code in them, before and after the
# others): each benchmark's slowdown against its baseline is divided by the machine's, and one more
# than --max-ratio (default 2) times slower fails the check, with the figures printed. A program
# over the limit runs once more first (with the reference around it), and the least figure counts.
# Usage: scripts/perf-check.sh [--update] [--build-dir DIR] [--max-ratio R] [--min-time S] [--repetitions N]
#                              [--figures DIR]
#   --update       rewrite the baseline with the median of three whole runs' figures (keep the old one's
#                  list of benchmarks)
#   --figures DIR  judge the figures an earlier check measured instead of measuring (a check keeps its
#                  own in BUILD/perf-check-figures); nothing runs a second time
# Env: PERF_CHECK_SLOWDOWN=k multiplies every measured figure but the machine's by k before
#      comparing: a planted k-times slowdown in collbench, to see the check fail (3 must fail).
#      PERF_CHECK_MACHINE=k multiplies every figure, the machine's too: a machine k times slower,
#      which must pass.
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD_DIR:-build}"
baseline=tests/perf/baseline.json
update=0
figures=""
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
    --figures) figures="$2"; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "perf-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -f "$baseline" ] || { echo "perf-check: no baseline at $baseline" >&2; exit 2; }

tmp=$(mktemp -d /tmp/cb-perf-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Which programs and benchmarks run is the baseline's list: {"programs": {"micro_hunt": {"filter": ...}}};
# its "reference" program is the machine's own speed.
programs=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["programs"]))' "$baseline")
reference=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reference"]["program"])' "$baseline")
# run_program NAME FILTER OUT: one program's benchmarks, JSON to OUT.
run_program() {
  local bin="$build/tests/perf/$1"
  [ -x "$bin" ] || { echo "perf-check: $bin not built (scripts/test.sh builds the micro benchmarks; setup.sh does not), or --build-dir" >&2; exit 2; }
  echo "perf-check: $1 --benchmark_filter='$2'" >&2
  "$bin" --benchmark_filter="$2" --benchmark_min_time="$min_time" --benchmark_repetitions="$repetitions" \
    --benchmark_format=json --benchmark_out="$3" --benchmark_out_format=json >/dev/null
}
filter_of() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["programs"][sys.argv[2]].get("filter", "."))' "$baseline" "$1"
}
# run_all DIR: the reference, every program, the reference again, JSON into DIR.
run_all() {
  mkdir -p "$1"
  run_program "$reference" . "$1/reference-before.json"
  for p in $programs; do
    run_program "$p" "$(filter_of "$p")" "$1/$p.json"
  done
  run_program "$reference" . "$1/reference-after.json"
}
start=$(date +%s)
# A baseline is the median of three whole runs (one lucky quiet moment would make the limit tighter
# than the machine's own spread); a check is one run, and its least figures.
if [ -n "$figures" ]; then
  [ "$update" = 0 ] || { echo "perf-check: --figures judges, --update measures: give one" >&2; exit 2; }
  [ -f "$figures/reference-before.json" ] ||
    { echo "perf-check: --figures $figures: no figures there (scripts/perf-check.sh keeps them in BUILD/perf-check-figures)" >&2; exit 2; }
  cp -r "$figures" "$tmp/run1"
  echo "perf-check: the figures in $figures" >&2
else
  for ((run = 1; run <= (update ? 3 : 1); run++)); do
    run_all "$tmp/run$run"
  done
  echo "perf-check: benchmarks ran in $(( $(date +%s) - start )) s" >&2
fi

# judge MODE: "failing" prints the programs with a benchmark over the limit; "report" prints the
# table and exits 1 on a failure. Each figure is the least of every run of it so far.
judge() {
  python3 "$tmp/judge.py" "$baseline" "$tmp" "$update" "$max_ratio" "${PERF_CHECK_SLOWDOWN:-1}" \
    "${PERF_CHECK_MACHINE:-1}" "$1"
}
cat >"$tmp/judge.py" <<'PY'
import json, math, os, sys

baseline_path, out_dir, update, max_ratio = sys.argv[1], sys.argv[2], sys.argv[3] == "1", float(sys.argv[4])
slowdown, machine_slowdown, mode = float(sys.argv[5]), float(sys.argv[6]), sys.argv[7]
base = json.load(open(baseline_path))
scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def least_cpu_ms(paths, k):
    """benchmark -> least CPU ms per iteration over every repetition in the files, times k."""
    figures = {}
    for path in paths:
        for b in json.load(open(path))["benchmarks"]:
            if b.get("run_type") == "aggregate" or b.get("error_occurred"):
                continue
            ms = b["cpu_time"] * scale[b.get("time_unit", "ns")] * k
            name = b.get("run_name", b["name"])
            figures[name] = min(ms, figures.get(name, float("inf")))
    return figures


run_dirs = sorted(os.path.join(out_dir, d) for d in os.listdir(out_dir) if d.startswith("run"))


def runs(d, name):
    return [os.path.join(d, f) for f in sorted(os.listdir(d)) if f in (name + ".json", name + ".retry.json")]


def measure(d):
    """(program -> benchmark -> least CPU ms, reference benchmark -> least CPU ms) of one run folder."""
    return ({p: least_cpu_ms(runs(d, p), slowdown * machine_slowdown) for p in base["programs"]},
            least_cpu_ms([os.path.join(d, f) for f in os.listdir(d) if f.startswith("reference-")], machine_slowdown))


def median(values):
    v = sorted(values)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


if update:
    per_run = [measure(d) for d in run_dirs]
    for program in base["programs"]:
        names = sorted(set().union(*(m[program] for m, _ in per_run)))
        base["programs"][program]["cpu_ms"] = {
            n: float(f"{median([m[program][n] for m, _ in per_run if n in m[program]]):.4g}") for n in names}
    base["reference"]["cpu_ms"] = {
        n: float(f"{median([r[n] for _, r in per_run if n in r]):.4g}") for n in sorted(per_run[0][1])}
    with open(baseline_path + ".tmp", "w") as f:
        json.dump(base, f, indent=2)
        f.write("\n")
    os.replace(baseline_path + ".tmp", baseline_path)
    print(f"perf-check: baseline {baseline_path} rewritten ({sum(len(p['cpu_ms']) for p in base['programs'].values())} "
          f"benchmarks, the median of {len(per_run)} runs)")
    sys.exit(0)

measured, reference = measure(run_dirs[0])

# The machine's slowdown: the geometric mean of the reference benchmarks' (a machine twice as busy
# doubles both; one spike in one of them moves the factor by its square root only).
ref_ratios = {n: reference[n] / was for n, was in base["reference"]["cpu_ms"].items() if n in reference and was > 0}
if len(ref_ratios) != len(base["reference"]["cpu_ms"]):
    print("perf-check: FAIL: the machine's reference benchmarks did not all run")
    sys.exit(1)
machine = math.exp(sum(math.log(r) for r in ref_ratios.values()) / len(ref_ratios))
# Every baseline benchmark: (program, name, baseline, now or None, slowdown over the machine's).
rows = []
for program, entry in base["programs"].items():
    for name, was in entry.get("cpu_ms", {}).items():
        now = measured.get(program, {}).get(name)
        relative = None if now is None else (now / was if was > 0 else float("inf")) / machine
        rows.append((program, name, was, now, relative))
over = [r for r in rows if r[4] is None or r[4] > max_ratio]

if mode == "failing":
    print("\n".join(dict.fromkeys(r[0] for r in over)))
    sys.exit(0)

print("perf-check: this machine runs the reference benchmarks at "
      + ", ".join(f"{n} {r:.2f}x" for n, r in ref_ratios.items()) + f" of their baseline: factor {machine:.2f}")
print(f"{'benchmark':<44} {'baseline ms':>11} {'now ms':>10} {'ratio':>6} {'/machine':>8}")
for program, name, was, now, relative in rows:
    label = f"{program}:{name}"
    if now is None:
        print(f"{label:<44} {was:>11.4g} {'-':>10} {'-':>6} {'-':>8}  FAIL: not measured")
        continue
    verdict = f"FAIL: more than {max_ratio:g}x slower than its baseline" if relative > max_ratio else "ok"
    print(f"{label:<44} {was:>11.4g} {now:>10.4g} {relative * machine:>5.2f}x {relative:>7.2f}x  {verdict}")
for program, entry in base["programs"].items():
    figures = measured.get(program, {})
    for name in sorted(set(figures) - set(entry.get("cpu_ms", {}))):
        print(f"{program + ':' + name:<44} {'-':>11} {figures[name]:>10.4g} {'-':>6} {'-':>8}  new: no baseline (--update)")
if slowdown != 1 or machine_slowdown != 1:
    print(f"perf-check: figures multiplied by {slowdown:g} (PERF_CHECK_SLOWDOWN) and all, the machine's too, "
          f"by {machine_slowdown:g} (PERF_CHECK_MACHINE)")
if over:
    print(f"perf-check: FAIL: {len(over)} benchmark(s) more than {max_ratio:g}x slower than tests/perf/baseline.json, "
          "the machine's own speed taken out (if the slowdown is meant, scripts/perf-check.sh --update)")
    sys.exit(1)
print("perf-check: every benchmark within", f"{max_ratio:g}x of its baseline, the machine's own speed taken out")
PY
# A slowdown must hold on a second run: a program over the limit runs once more, between two more
# runs of the reference, and the least figure of each counts (one busy moment fails nothing).
if [ "$update" = 0 ] && [ -z "$figures" ]; then
  failing=$(judge failing)
  if [ -n "$failing" ]; then
    echo "perf-check: once more, over the limit on the first run: $(echo $failing)" >&2
    run_program "$reference" . "$tmp/run1/reference-retry-before.json"
    for p in $failing; do
      run_program "$p" "$(filter_of "$p")" "$tmp/run1/$p.retry.json"
    done
    run_program "$reference" . "$tmp/run1/reference-retry-after.json"
  fi
  # Kept for --figures (tests/perf/perf_check_self_test.sh judges them again, planted slowdowns and all).
  rm -rf "$build/perf-check-figures" && cp -r "$tmp/run1" "$build/perf-check-figures"
fi
judge report
