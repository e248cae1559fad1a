#!/usr/bin/env bash
# Prints, for 4 ranks on the mpi backend, the ratio of collbench's median all_reduce time to a bare
# MPI_Allreduce loop timed the same way (tests/perf/bare_allreduce.cpp), 64 KiB to 16 MiB.
# The two alternate ROUNDS times in one run and the per-size ratio is the median over rounds, so
# machine noise hits both sides alike. Target: within 3% (ratio <= 1.03) at every size.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}"
if ! [ -x "$build/collbench" ] || ! [ -x "$build/tests/perf/bare_allreduce" ]; then
  scripts/setup.sh >/dev/null
  cmake --build "$build" -j "$(nproc)" --target bare_allreduce >/dev/null  # setup.sh builds collbench only
fi
source scripts/mpi_env.sh
rounds="${ROUNDS:-5}" iters="${ITERS:-50}" np="${NP:-4}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
collbench_round() {
  mpirun -np "$np" "$build/collbench" run --backend mpi --ops all_reduce -b 64K -e 16M -f 2 -w 5 -n "$iters" \
    --placement out -c 0 --no-progress --json "$tmp/cb$1.json" >/dev/null
}
bare_round() { mpirun -np "$np" "$build/tests/perf/bare_allreduce" 65536 16777216 5 "$iters" >"$tmp/bare$1.txt"; }
for r in $(seq 1 "$rounds"); do
  # Alternate which goes first, so a drift in machine load favours neither.
  if [ $((r % 2)) -eq 1 ]; then collbench_round "$r"; bare_round "$r"; else bare_round "$r"; collbench_round "$r"; fi
done
python3 - "$tmp" "$rounds" <<'PY'
import json, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
ratios = {}
for r in range(1, rounds + 1):
    cb = {c["bytes"]: c["time_us"]["median"] for c in json.load(open(f"{tmp}/cb{r}.json"))["cases"]}
    for line in open(f"{tmp}/bare{r}.txt"):
        size, us = line.split()
        ratios.setdefault(int(size), []).append(cb[int(size)] / float(us))
print(f"{'bytes':>10}  {'ratio collbench/bare (median of rounds)':>40}  per round")
worst = 0.0
for size in sorted(ratios):
    m = statistics.median(ratios[size])
    worst = max(worst, m)
    print(f"{size:>10}  {m:>40.3f}  " + " ".join(f"{x:.3f}" for x in ratios[size]))
print(f"worst ratio {worst:.3f} (target <= 1.03): {'met' if worst <= 1.03 else 'NOT met'}")
PY
