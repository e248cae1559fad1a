#!/usr/bin/env bash
# collbench hunt on the fake cluster, 4 nodes x 2 ranks:
#   1. node2 limited to 200 Mbit/s, --pattern auto: node2, and only node2, is the straggler ([FAIL],
#      exit 3), no link blamed, no node's own collective blamed (shaping leaves intra-node traffic
#      alone); the JSON holds the node phase, the pair rounds and a confirmation round, with timings
#      and the 4 x 4 matrix;
#   2. only the node0 <-> node1 link limited (50 Mbit/s: healthy pairs here vary by +-30%, so the
#      slow link must stand clear of that noise), --pattern pairwise: that link is named, and neither
#      node is a straggler;
#   3. no shaping, --pattern auto, three runs in a row: no [FAIL] and exit 0 each time ([WARN] for
#      an inconclusive node is allowed). 8 ranks share 2 cores here, so a short round can see one
#      node 20-40% slower from scheduling alone; these runs measure 4 MiB x 30 iterations per round,
#      enough to average that out (-b 1M -n 10 gave a false [FAIL] in about one run of ten).
# Exit: 0 pass, 1 fail, 77 skip (not root or no network namespaces; the reason is printed).
# Env: COLLBENCH (default build/collbench), FC_MPIRUN_TIMEOUT (seconds, default 150).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
say() { echo "hunt: $*"; }
# shellcheck source=tests/fakecluster/preflight.sh
source tests/fakecluster/preflight.sh

out=$(mktemp /tmp/cb-hunt.XXXXXX)
json=$(mktemp /tmp/cb-hunt-json.XXXXXX)
trap '"$FC" down >/dev/null 2>&1; rm -f "$out" "$json" "$json.partial"' EXIT
"$FC" up 4 >/dev/null || { say "FAIL: fake-cluster up"; exit 1; }
# hunt_once PATTERN [OPTIONS]: runs the hunt on the cluster as shaped now (default -b 1M -n 10);
# output in $out, JSON in $json, exit code in $rc.
hunt_once() {
  local pattern=$1
  shift
  [ $# -gt 0 ] || set -- -b 1M -n 10
  rm -f "$json"
  # shellcheck disable=SC2046
  timeout "${FC_MPIRUN_TIMEOUT:-150}" mpirun $("$FC" mpirun-args) -np 8 --map-by node \
    "$BIN" hunt --backend mpi --pattern "$pattern" "$@" --no-color --json "$json" >"$out" 2>&1
  rc=$?
  cat "$out"
}

"$FC" shape node 2 200mbit >/dev/null || { say "FAIL: shaping node 2"; exit 1; }
hunt_once auto
fails=$(grep -c '^\[FAIL\] STRAGGLER_NODE' "$out")
if [ "$rc" -ne 3 ]; then say "FAIL: slow node: expected exit 3, got $rc"; exit 1; fi
if [ "$fails" -ne 1 ] || ! grep -q '^\[FAIL\] STRAGGLER_NODE (P1): node2:' "$out"; then
  say "FAIL: slow node: expected exactly one straggler, node2 ($fails found)"; exit 1
fi
if grep -q 'SLOW_LINK\|SLOW_NODE_LOCAL' "$out"; then say "FAIL: slow node: a link or a node's own path was blamed"; exit 1; fi
python3 - "$json" <<'PY' || { say "FAIL: slow node: the JSON document"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "collbench.hunt/1", d["schema"]
phases = [r["phase"] for r in d["rounds"]]
assert phases[0] == "node" and phases.count("pairs") == 3 and "confirm" in phases, phases
assert all(r["wall_s"] > 0 for r in d["rounds"]), d["rounds"]
confirm = [p for r in d["rounds"] if r["phase"] == "confirm" for p in r["pairs"]]
assert any(2 in p["nodes"] for p in confirm), confirm
a = d["attribution"]
assert len(a["matrix_gbs"]) == 4 and all(len(row) == 4 for row in a["matrix_gbs"]), a["matrix_gbs"]
assert [n["verdict"] for n in a["nodes"]].count("straggler") == 1 and a["nodes"][2]["verdict"] == "straggler"
assert len(d["node_phase"]) == 4 and all(n["verdict"] != "slow" for n in d["node_phase"]), d["node_phase"]
assert d["verdict"]["exit_code"] == 3 and d["complete"] is True
print("hunt: JSON: phases %s, round times %s s" % (phases, [round(r["wall_s"], 2) for r in d["rounds"]]))
PY
say "PASS: slow node: node2 named, and only node2"

"$FC" unshape >/dev/null && "$FC" shape link 0 1 50mbit >/dev/null || { say "FAIL: shaping link 0-1"; exit 1; }
hunt_once pairwise
if [ "$rc" -ne 3 ]; then say "FAIL: slow link: expected exit 3, got $rc"; exit 1; fi
if ! grep -q '^\[FAIL\] SLOW_LINK (P1): node0 <-> node1' "$out"; then say "FAIL: slow link: node0 <-> node1 not named"; exit 1; fi
if grep -q 'STRAGGLER_NODE' "$out"; then say "FAIL: slow link: a node was called a straggler"; exit 1; fi
say "PASS: slow link: node0 <-> node1 named, no straggler"

"$FC" unshape >/dev/null || { say "FAIL: unshape"; exit 1; }
for i in 1 2 3; do
  hunt_once auto -b 4M -n 30
  if [ "$rc" -ne 0 ] || grep -q '^\[FAIL\]' "$out"; then say "FAIL: clean run $i: exit $rc, or a [FAIL] without any shaping"; exit 1; fi
  say "clean run $i: exit 0, no [FAIL] ($(grep -c '^\[WARN\]' "$out") [WARN])"
done
say "PASS: no shaping: three runs without a [FAIL]"
