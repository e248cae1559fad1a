#!/usr/bin/env bash
# Wall time and rounds of `collbench hunt --pattern auto` next to `--pattern pairwise` on the fake
# cluster, at several cluster sizes, each size measured in one run of this script (the machine's
# load applies to both patterns alike). Both run with the hunt's defaults (probe-chosen size,
# default budget). Scenario: N nodes x RANKS ranks, node 2 limited to 200 Mbit/s. Needs root.
# Usage: scripts/hunt-bench.sh [NODES...]   (default: 4 6 8)
# Env: COLLBENCH (default build/collbench), RANKS (ranks per node, default 1)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
FC=scripts/fake-cluster.sh
BIN=${COLLBENCH:-build/collbench}
RANKS=${RANKS:-1}
[ $# -gt 0 ] || set -- 4 6 8
[ "$(id -u)" -eq 0 ] || { echo "hunt-bench: needs root (network namespaces, tc); running as uid $(id -u)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "hunt-bench: collbench binary '$BIN' not found (scripts/setup.sh, or set COLLBENCH)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/cb-hunt-bench.XXXXXX)
trap '"$FC" down >/dev/null 2>&1; rm -rf "$tmp"' EXIT

for nodes in "$@"; do
  "$FC" down >/dev/null 2>&1
  "$FC" up "$nodes" >/dev/null && "$FC" shape node 2 200mbit >/dev/null || { echo "hunt-bench: fake cluster set-up failed" >&2; exit 1; }
  for pattern in auto pairwise; do
    start=$(date +%s.%N)
    # shellcheck disable=SC2046
    timeout 900 mpirun $("$FC" mpirun-args) -np $((RANKS * nodes)) --map-by node "$BIN" hunt --backend mpi \
      --pattern "$pattern" --no-color --json "$tmp/$nodes-$pattern.json" >"$tmp/$nodes-$pattern.out" 2>&1
    echo "$? $(echo "$(date +%s.%N) - $start" | bc)" >"$tmp/$nodes-$pattern.wall"
  done
done
python3 - "$tmp" "$RANKS" "$@" <<'PY'
import json, sys, collections
tmp, ranks, sizes = sys.argv[1], sys.argv[2], sys.argv[3:]
print(f"hunt-bench: node2 at 200 Mbit/s, {ranks} rank(s) per node, defaults (probe-chosen size, default budget)")
print(f"{'nodes':>5} {'pattern':>9} {'wall_s':>7} {'rounds':>6} {'pairs':>5} {'confirm':>7} {'bytes':>9} "
      f"{'budget_s':>8} {'exit':>4}  stragglers")
for nodes in sizes:
    walls = {}
    for p in ("auto", "pairwise"):
        rc, wall = open(f"{tmp}/{nodes}-{p}.wall").read().split()
        try:
            d = json.load(open(f"{tmp}/{nodes}-{p}.json"))
        except (OSError, ValueError):
            print(f"{nodes:>5} {p:>9} {float(wall):7.1f}  no document (exit {rc}); output in {tmp}/{nodes}-{p}.out")
            continue
        phases = collections.Counter(r["phase"] for r in d["rounds"])
        named = [n["host"] for n in d["attribution"]["nodes"] if n["verdict"] == "straggler"]
        walls[p] = float(wall)
        print(f"{nodes:>5} {p:>9} {float(wall):7.1f} {sum(phases.values()):6d} {phases.get('pairs', 0):5d} "
              f"{phases.get('confirm', 0):7d} {d['hunt']['bytes']:9d} {d['hunt']['budget_s']:8.0f} {rc:>4}  {named}")
    if len(walls) == 2:
        print(f"{nodes:>5} auto/pairwise wall time: {walls['auto'] / walls['pairwise']:.2f}")
PY
