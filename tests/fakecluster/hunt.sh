#!/usr/bin/env bash
# collbench hunt on the fake cluster, with its defaults (message size from the probe, the default
# budget), each hunt timed:
#   6 nodes x 1 rank:  node2 limited to 100 Mbit/s -> node2, and only node2, is the straggler
#                      ([FAIL], exit 3), no link blamed; the JSON holds the pair rounds, a
#                      confirmation round with node2 and the 6 x 6 matrix;
#                      only the node1 <-> node4 link limited to 50 Mbit/s -> that link is named and
#                      neither node is a straggler;
#                      no shaping, twice -> no [FAIL], exit 0.
#   4 nodes x 2 ranks: node2 limited to 100 Mbit/s -> node2 named, and no node's own path blamed
#                      (shaping leaves intra-node traffic alone; the node phase runs here). Each
#                      node's yardstick is the 3 pairs without it, which on a busy host cannot
#                      tell a node at a third of them (200 Mbit/s, beside another fake cluster in
#                      CI) from noise: that ends in doubt. A node below a quarter is named however
#                      noisy (OutlierRule::max_excused);
#                      no shaping, twice -> no [FAIL].
#   3 nodes x 1 rank:  node1 limited to 100 Mbit/s -> node1 named.
# Every hunt must end within HUNT_LIMIT seconds (default 300). A [WARN] (inconclusive) is allowed in
# the clean runs: noise may end in doubt, never in an accusation.
# Exit: 0 pass, 1 fail, 77 skip (not root or no network namespaces; the reason is printed).
# Env: COLLBENCH (default build/collbench), HUNT_LIMIT (seconds, default 300).
# The fake cluster of a lane (FC_LANE, scripts/fake-cluster.sh) is machine-wide: run it under flock
# /tmp/collbench-fc.lock when others may use that lane.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
say() { echo "hunt: $*"; }
# shellcheck source=tests/fakecluster/require.sh
source tests/fakecluster/require.sh

out=$(mktemp /tmp/cb-hunt.XXXXXX)
json=$(mktemp /tmp/cb-hunt-json.XXXXXX)
html=$(mktemp /tmp/cb-hunt-html.XXXXXX)
trap '"$FC" down >/dev/null 2>&1; rm -f "$out" "$json" "$json.partial" "$html"' EXIT
limit=${HUNT_LIMIT:-300}

# cluster NODES: a fresh fake cluster of NODES nodes, nothing shaped.
cluster() { "$FC" down >/dev/null 2>&1; "$FC" up "$1" >/dev/null || { say "FAIL: fake-cluster up $1"; exit 1; }; nodes=$1; }
# hunt_once NAME RANKS_PER_NODE: the hunt with its defaults on the cluster as shaped now; output in
# $out, JSON in $json, its page (--html) in $html, exit code in $rc; fails the test when it runs past $limit.
hunt_once() {
  local name=$1 per=$2 start=$SECONDS
  rm -f "$json" "$html"
  # shellcheck disable=SC2046
  timeout "$((limit + 30))" mpirun $("$FC" mpirun-args) -np $((nodes * per)) --map-by node \
    "$BIN" hunt --backend mpi --no-color --json "$json" --html "$html" >"$out" 2>&1
  rc=$?
  local took=$((SECONDS - start))
  grep -E '^# (Hunt|Budget|round|confirmation)|^\[(FAIL|WARN|PASS)\]' "$out"
  say "$name: exit $rc in $took s"
  if [ "$took" -gt "$limit" ]; then say "FAIL: $name took $took s (limit $limit s)"; exit 1; fi
}
expect_straggler() {  # NAME HOST
  if [ "$rc" -ne 3 ]; then cat "$out"; say "FAIL: $1: expected exit 3, got $rc"; exit 1; fi
  if [ "$(grep -c '^\[FAIL\]' "$out")" -ne 1 ] || ! grep -q "^\[FAIL\] STRAGGLER_NODE (P1): $2:" "$out"; then
    say "FAIL: $1: expected exactly one [FAIL], STRAGGLER_NODE $2"; exit 1
  fi
  say "PASS: $1: $2 named, and nothing else failed"
}
expect_clean() {  # NAME
  if [ "$rc" -ne 0 ] || grep -q '^\[FAIL\]' "$out"; then cat "$out"; say "FAIL: $1: exit $rc, or a [FAIL] without any shaping"; exit 1; fi
  say "PASS: $1: no [FAIL] ($(grep -c '^\[WARN\]' "$out") [WARN])"
}

cluster 6
"$FC" shape node 2 100mbit >/dev/null || { say "FAIL: shaping node 2"; exit 1; }
hunt_once "6x1 slow node" 1
expect_straggler "6x1 slow node" node2
python3 - "$json" <<'PY' || { say "FAIL: 6x1 slow node: the JSON document"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "collbench.hunt/1", d["schema"]
phases = [r["phase"] for r in d["rounds"]]
assert phases.count("pairs") == 5 and "confirm" in phases, phases
assert all(r["wall_s"] > 0 for r in d["rounds"]), d["rounds"]
confirm = [p for r in d["rounds"] if r["phase"] == "confirm" for p in r["pairs"]]
assert any(2 in p["nodes"] for p in confirm), confirm
a = d["attribution"]
assert len(a["matrix_gbs"]) == 6 and all(len(row) == 6 for row in a["matrix_gbs"]), a["matrix_gbs"]
assert [n["verdict"] for n in a["nodes"]] == ["healthy"] * 2 + ["straggler"] + ["healthy"] * 3, a["nodes"]
assert d["hunt"]["bytes_chosen_by"] == "probe" and d["hunt"]["budget_s"] > 0, d["hunt"]
assert d["not_measured"]["pairs"] == [], d["not_measured"]
f = [x for x in d["findings"] if x["code"] == "STRAGGLER_NODE"]
assert f and f[0]["subject"] == {"kind": "node", "hosts": ["node2"], "ranks": [2]}, f
assert d["verdict"]["exit_code"] == 3 and d["complete"] is True
print("hunt: JSON: %d bytes a pair, phases %s" % (d["hunt"]["bytes"], phases))
PY
# The page: the pair matrix as a heatmap, node2 marked on it.
grep -q '<rect class="h0"' "$html" && grep -q '>▲ node2<' "$html" ||
  { say "FAIL: 6x1 slow node: the --html page has no heatmap with node2 marked"; exit 1; }

"$FC" unshape >/dev/null && "$FC" shape link 1 4 50mbit >/dev/null || { say "FAIL: shaping link 1-4"; exit 1; }
hunt_once "6x1 slow link" 1
if [ "$rc" -ne 3 ] || ! grep -q '^\[FAIL\] SLOW_LINK (P1): node1 <-> node4' "$out"; then
  cat "$out"; say "FAIL: 6x1 slow link: node1 <-> node4 not named (exit $rc)"; exit 1
fi
if grep -q 'STRAGGLER_NODE' "$out" || [ "$(grep -c '^\[FAIL\]' "$out")" -ne 1 ]; then
  say "FAIL: 6x1 slow link: a node was blamed, or more than the link"; exit 1
fi
say "PASS: 6x1 slow link: node1 <-> node4 named, no straggler"

"$FC" unshape >/dev/null || { say "FAIL: unshape"; exit 1; }
for i in 1 2; do hunt_once "6x1 clean $i" 1; expect_clean "6x1 clean $i"; done

cluster 4
"$FC" shape node 2 100mbit >/dev/null || { say "FAIL: shaping node 2"; exit 1; }
hunt_once "4x2 slow node" 2
expect_straggler "4x2 slow node" node2
if grep -q 'SLOW_NODE_LOCAL' "$out"; then say "FAIL: 4x2 slow node: a node's own path was blamed"; exit 1; fi
"$FC" unshape >/dev/null || { say "FAIL: unshape"; exit 1; }
for i in 1 2; do hunt_once "4x2 clean $i" 2; expect_clean "4x2 clean $i"; done

cluster 3
"$FC" shape node 1 100mbit >/dev/null || { say "FAIL: shaping node 1"; exit 1; }
hunt_once "3x1 slow node" 1
expect_straggler "3x1 slow node" node1
say "PASS: every scenario"
