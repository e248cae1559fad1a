#!/usr/bin/env bash
# collbench hunt on the fake cluster, 4 nodes x 2 ranks:
#   1. node2 limited to 200 Mbit/s: node2, and only node2, is the straggler ([FAIL], exit 3), no link blamed;
#   2. only the node0 <-> node1 link limited (50 Mbit/s: healthy pairs here vary by +-30%, so the
#      slow link must stand clear of that noise): that link is named, and neither node is a straggler.
# Exit: 0 pass, 1 fail, 77 skip (not root or no network namespaces; the reason is printed).
# Env: COLLBENCH (default build/collbench), FC_MPIRUN_TIMEOUT (seconds, default 150).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
FC=scripts/fake-cluster.sh
BIN=${COLLBENCH:-build/collbench}
say() { echo "hunt: $*"; }
[ "$(id -u)" -eq 0 ] || { say "SKIP: needs root (network namespaces, tc); running as uid $(id -u)"; exit 77; }
probe=cbhunt-probe-$$
ip netns add "$probe" 2>/dev/null || { say "SKIP: cannot create a network namespace"; exit 77; }
ip netns del "$probe"
[ -x "$BIN" ] || { say "FAIL: collbench binary '$BIN' not found (scripts/setup.sh, or set COLLBENCH)"; exit 1; }

out=$(mktemp /tmp/cb-hunt.XXXXXX)
trap '"$FC" down >/dev/null 2>&1; rm -f "$out"' EXIT
"$FC" up 4 >/dev/null || { say "FAIL: fake-cluster up"; exit 1; }
# hunt_once: runs the hunt on the cluster as shaped now; output in $out, exit code in $rc.
hunt_once() {
  # shellcheck disable=SC2046
  timeout "${FC_MPIRUN_TIMEOUT:-150}" mpirun $("$FC" mpirun-args) -np 8 --map-by node \
    "$BIN" hunt --backend mpi --pattern pairwise -b 1M -n 10 --no-color >"$out" 2>&1
  rc=$?
  cat "$out"
}

"$FC" shape node 2 200mbit >/dev/null || { say "FAIL: shaping node 2"; exit 1; }
hunt_once
fails=$(grep -c '^\[FAIL\] STRAGGLER_NODE' "$out")
if [ "$rc" -ne 3 ]; then say "FAIL: slow node: expected exit 3, got $rc"; exit 1; fi
if [ "$fails" -ne 1 ] || ! grep -q '^\[FAIL\] STRAGGLER_NODE (P1): node2:' "$out"; then
  say "FAIL: slow node: expected exactly one straggler, node2 ($fails found)"; exit 1
fi
if grep -q 'SLOW_LINK' "$out"; then say "FAIL: slow node: a link was blamed for a slow node"; exit 1; fi
say "PASS: slow node: node2 named, and only node2"

"$FC" unshape >/dev/null && "$FC" shape link 0 1 50mbit >/dev/null || { say "FAIL: shaping link 0-1"; exit 1; }
hunt_once
if [ "$rc" -ne 3 ]; then say "FAIL: slow link: expected exit 3, got $rc"; exit 1; fi
if ! grep -q '^\[FAIL\] SLOW_LINK (P1): node0 <-> node1' "$out"; then say "FAIL: slow link: node0 <-> node1 not named"; exit 1; fi
if grep -q 'STRAGGLER_NODE' "$out"; then say "FAIL: slow link: a node was called a straggler"; exit 1; fi
say "PASS: slow link: node0 <-> node1 named, no straggler"
