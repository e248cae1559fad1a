#!/usr/bin/env bash
# Wall time of `collbench hunt --pattern auto` next to `--pattern pairwise` on the fake cluster,
# with the rounds each ran, measured in one run of this script (the machine's load applies to both).
# Scenario: N nodes (default 4) x 2 ranks, node 2 limited to 200 Mbit/s. Needs root.
# Usage: scripts/hunt-bench.sh [NODES]      Env: COLLBENCH (default build/collbench)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
FC=scripts/fake-cluster.sh
BIN=${COLLBENCH:-build/collbench}
NODES=${1:-4}
[ "$(id -u)" -eq 0 ] || { echo "hunt-bench: needs root (network namespaces, tc); running as uid $(id -u)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "hunt-bench: collbench binary '$BIN' not found (scripts/setup.sh, or set COLLBENCH)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/cb-hunt-bench.XXXXXX)
trap '"$FC" down >/dev/null 2>&1; rm -rf "$tmp"' EXIT
"$FC" up "$NODES" >/dev/null && "$FC" shape node 2 200mbit >/dev/null || { echo "hunt-bench: fake cluster set-up failed" >&2; exit 1; }

for pattern in auto pairwise; do
  start=$(date +%s.%N)
  # shellcheck disable=SC2046
  timeout 600 mpirun $("$FC" mpirun-args) -np $((2 * NODES)) --map-by node "$BIN" hunt --backend mpi \
    --pattern "$pattern" -b 1M -n 10 --no-color --json "$tmp/$pattern.json" >"$tmp/$pattern.out" 2>&1
  echo "$? $(echo "$(date +%s.%N) - $start" | bc)" >"$tmp/$pattern.wall"
done
python3 - "$tmp" "$NODES" <<'PY'
import json, sys, collections
tmp, nodes = sys.argv[1], sys.argv[2]
rows = {}
for p in ("auto", "pairwise"):
    rc, wall = open(f"{tmp}/{p}.wall").read().split()
    d = json.load(open(f"{tmp}/{p}.json"))
    phases = collections.Counter(r["phase"] for r in d["rounds"])
    named = [n["host"] for n in d["attribution"]["nodes"] if n["verdict"] == "straggler"]
    rows[p] = float(wall)
    print(f"hunt-bench: {nodes} nodes, node2 at 200mbit, --pattern {p:8s}: wall {float(wall):6.1f} s, "
          f"rounds {sum(phases.values())} ({', '.join(f'{k} {v}' for k, v in phases.items())}), "
          f"rounds alone {sum(r['wall_s'] for r in d['rounds']):.1f} s, estimate {d['hunt']['estimate_s']:.1f} s, "
          f"exit {rc}, stragglers {named}")
print(f"hunt-bench: wall time auto / pairwise = {rows['auto'] / rows['pairwise']:.2f}")
PY
