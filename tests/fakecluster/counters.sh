#!/usr/bin/env bash
# EFA hardware counters on the fake cluster, 2 nodes x 1 rank, mpi backend. Each node reads its own
# fake sysfs tree (COLLBENCH_SYSFS_ROOT=<dir>/<its hostname>, set by a sh wrapper as mpirun's
# program), efa0 with ports/1/hw_counters:
#   1. node1's retrans_pkts and impaired_remote_conn_events rise while collbench runs (a loop here
#      rewrites the files): EFA_ERRORS_ROSE names node1, and only node1, and the JSON's counters
#      hold node1's deltas (node0's are 0);
#   2. nothing changes: [PASS] EFA_COUNTERS_OK;
#   3. no EFA device (an mlx5 device only): no EFA counters finding at all, counters {"devices": 0}.
# Exit: 0 pass, 1 fail, 77 skip (not root or no network namespaces; the reason is printed).
# Env: COLLBENCH (default build/collbench), FC_MPIRUN_TIMEOUT (seconds, default 90).
# The fake cluster of a lane (FC_LANE, scripts/fake-cluster.sh) is machine-wide: run it under flock
# /tmp/collbench-fc.lock when others may use that lane.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
say() { echo "counters: $*"; }
# shellcheck source=tests/fakecluster/require.sh
source tests/fakecluster/require.sh

work=$(mktemp -d /tmp/cb-counters.XXXXXX)
bumper=""
cleanup() {
  [ -n "$bumper" ] && kill "$bumper" 2>/dev/null
  "$FC" down >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
"$FC" up 2 >/dev/null || { say "FAIL: fake-cluster up"; exit 1; }

# tree NAME DEVICE: a fresh sysfs tree per node under $work/NAME/<hostname>, counters at fixed values.
tree() {
  rm -rf "${work:?}/$1"
  for node in node0 node1; do
    local c="$work/$1/$node/sys/class/infiniband/$2/ports/1/hw_counters"
    mkdir -p "$c"
    for name in tx_pkts rx_pkts tx_bytes retrans_pkts retrans_timeout_events impaired_remote_conn_events \
                unresponsive_remote_events rdma_read_wr_err rx_drops; do
      echo 1000 >"$c/$name"
    done
  done
}
# bump FILE...: adds to each counter every 20 ms until killed; written beside and renamed, so a
# read never sees a half-written file.
bump() {
  local v=1000
  while :; do
    v=$((v + 7))
    for f in "$@"; do echo "$v" >"$work/next" && mv -f "$work/next" "$f"; done
    sleep 0.02
  done
}
# run_once NAME: collbench run with each node on its own tree; output in $out, JSON in $out.json.
out="$work/out"
run_once() {
  # shellcheck disable=SC2016,SC2046
  timeout "${FC_MPIRUN_TIMEOUT:-90}" mpirun $("$FC" mpirun-args) -np 2 --map-by node \
    sh -c 'COLLBENCH_SYSFS_ROOT="$0/$(hostname)" exec "$@"' "$work/$1" \
    "$BIN" run --backend mpi --ops all_reduce -b 1M -e 4M -n 20 --no-progress --no-color --json "$out.json" \
    >"$out" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then cat "$out"; say "FAIL: $1: collbench exited $rc"; exit 1; fi
}
json() { python3 -c "import json,sys; d=json.load(open('$out.json')); print($1)"; }

# 1. node1's counters rise during the run.
start=$SECONDS
tree rising efa0
c1="$work/rising/node1/sys/class/infiniband/efa0/ports/1/hw_counters"
bump "$c1/retrans_pkts" "$c1/impaired_remote_conn_events" &
bumper=$!
run_once rising
kill "$bumper"; wait "$bumper" 2>/dev/null; bumper=""
say "rising scenario took $((SECONDS - start)) s"
if [ "$(grep -c '^\[WARN\] EFA_ERRORS_ROSE' "$out")" -ne 1 ] ||
   ! grep -q '^\[WARN\] EFA_ERRORS_ROSE (P1): node1: EFA error counters rose during the world sweep: efa0 impaired_remote_conn_events +[0-9]*, efa0 retrans_pkts +[0-9]*' "$out"; then
  cat "$out"; say "FAIL: rising: expected one EFA_ERRORS_ROSE, naming node1"; exit 1
fi
if grep -q 'EFA_COUNTERS_OK' "$out"; then cat "$out"; say "FAIL: rising: a pass beside the warning"; exit 1; fi
hosts=$(json "[f['subject']['hosts'] for f in d['findings'] if f['code']=='EFA_ERRORS_ROSE']")
[ "$hosts" = "[['node1']]" ] || { say "FAIL: rising: subject hosts $hosts, expected [['node1']]"; exit 1; }
deltas=$(json "sorted((e['host'], e['deltas']['retrans_pkts'] > 0) for e in d['counters']['entries'])")
[ "$deltas" = "[('node0', False), ('node1', True)]" ] || { say "FAIL: rising: counters in the JSON: $deltas"; exit 1; }
say "PASS: rising: node1 named, and only node1; the JSON has both nodes' deltas"

# 2. Unchanged.
start=$SECONDS
tree steady efa0
run_once steady
say "steady scenario took $((SECONDS - start)) s"
if ! grep -q '^\[PASS\] EFA_COUNTERS_OK: no EFA error counter rose during the world sweep on 2 node(s), 2 device(s)' "$out" ||
   grep -q 'EFA_ERRORS_ROSE' "$out"; then
  cat "$out"; say "FAIL: steady: expected [PASS] EFA_COUNTERS_OK and no EFA_ERRORS_ROSE"; exit 1
fi
say "PASS: steady: [PASS] EFA_COUNTERS_OK"

# 3. No EFA device: an InfiniBand device of another driver only.
start=$SECONDS
tree other mlx5_0
run_once other
say "no-EFA scenario took $((SECONDS - start)) s"
if grep -q 'EFA_COUNTERS_OK\|EFA_ERRORS_ROSE' "$out"; then cat "$out"; say "FAIL: no EFA: a counters finding"; exit 1; fi
[ "$(json "d['counters']")" = "{'devices': 0}" ] || { say "FAIL: no EFA: counters $(json "d.get('counters')")"; exit 1; }
say "PASS: no EFA device: nothing claimed"
