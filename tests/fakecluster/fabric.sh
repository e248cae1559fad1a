#!/usr/bin/env bash
# collbench fabric on the fake cluster, 4 nodes x 1 rank, libfabric's tcp provider:
#   1. node3 limited to 200 kbit/s: once tbf's burst is spent, every small message waits ~6 ms for
#      its tokens, so node3's latency, and only node3's, is flagged (FABRIC_SLOW_NODE_LATENCY,
#      exit 3). The wait must be longer than a busy host's scheduling stalls: at 2 Mbit/s, and
#      under heavy load at 500 kbit/s, stalls let enough tokens gather that most of node3's
#      messages passed at once, and node3 looked healthy with one partner;
#   2. node1 limited to 200 Mbit/s: its bandwidth is flagged (FABRIC_SLOW_NODE_BANDWIDTH), its
#      latency is not (8-byte ping-pongs never empty the token bucket at that rate). On busy hosts
#      contention alone has made one healthy pair's ping-pong 25x slower than the others', which is
#      reported as a doubt (FABRIC_INCONCLUSIVE), so this asks for no latency [FAIL], not for a pass.
# Exit: 0 pass, 1 fail, 77 skip (not root or no network namespaces; the reason is printed).
# Env: COLLBENCH (default build/collbench), FC_MPIRUN_TIMEOUT (seconds, default 150).
# The fake cluster of a lane (FC_LANE, scripts/fake-cluster.sh) is machine-wide: run it under flock
# /tmp/collbench-fc.lock when others may use that lane.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
say() { echo "fabric: $*"; }
# shellcheck source=tests/fakecluster/require.sh
source tests/fakecluster/require.sh
"$BIN" fabric --help >/dev/null 2>&1 || { say "FAIL: '$BIN' has no fabric subcommand"; exit 1; }

out=$(mktemp /tmp/cb-fabric.XXXXXX)
trap '"$FC" down >/dev/null 2>&1; rm -f "$out" "$out.json"' EXIT
"$FC" up 4 >/dev/null || { say "FAIL: fake-cluster up"; exit 1; }
# fabric_once ARGS...: runs collbench fabric on the cluster as shaped now; output in $out, exit code in $rc.
fabric_once() {
  # shellcheck disable=SC2046
  timeout "${FC_MPIRUN_TIMEOUT:-150}" mpirun $("$FC" mpirun-args) -np 4 --map-by node \
    "$BIN" fabric --provider tcp --pattern pairwise --no-color -o "$out.json" "$@" >"$out" 2>&1
  rc=$?
  cat "$out"
}

# 1. Latency. Warm-up long enough to spend tbf's 16 KiB burst (about 110 messages at ~150 bytes).
"$FC" shape node 3 200kbit >/dev/null || { say "FAIL: shaping node 3"; exit 1; }
start=$SECONDS
fabric_once -b 8 -e 8 --latency-max 8 --bandwidth-min 1M -n 100 -w 150
say "slow-latency scenario took $((SECONDS - start)) s"
if [ "$rc" -ne 3 ]; then say "FAIL: slow latency: expected exit 3, got $rc"; exit 1; fi
if [ "$(grep -c '^\[FAIL\] FABRIC_SLOW_NODE_LATENCY' "$out")" -ne 1 ] ||
   ! grep -q '^\[FAIL\] FABRIC_SLOW_NODE_LATENCY (P1): node3:' "$out"; then
  say "FAIL: slow latency: expected exactly one slow node on latency, node3"; exit 1
fi
if grep -q 'FABRIC_SLOW_LINK' "$out"; then say "FAIL: slow latency: a link was blamed for a slow node"; exit 1; fi
say "PASS: slow latency: node3 named on latency, and only node3"

# 2. Bandwidth.
"$FC" unshape >/dev/null && "$FC" shape node 1 200mbit >/dev/null || { say "FAIL: shaping node 1"; exit 1; }
start=$SECONDS
fabric_once -b 8 -e 256K --latency-max 8 --bandwidth-min 256K -n 300 -w 300 --bw-iters 8 --bw-warmup 1 --window 8
say "slow-bandwidth scenario took $((SECONDS - start)) s"
if [ "$rc" -ne 3 ]; then say "FAIL: slow bandwidth: expected exit 3, got $rc"; exit 1; fi
if [ "$(grep -c '^\[FAIL\] FABRIC_SLOW_NODE_BANDWIDTH' "$out")" -ne 1 ] ||
   ! grep -q '^\[FAIL\] FABRIC_SLOW_NODE_BANDWIDTH (P1): node1:' "$out"; then
  say "FAIL: slow bandwidth: expected exactly one slow node on bandwidth, node1"; exit 1
fi
if grep -q '^\[FAIL\] FABRIC_SLOW_NODE_LATENCY (P1): node1:' "$out"; then
  say "FAIL: slow bandwidth: node1's latency was flagged too"; exit 1
fi
if grep -q '^\[FAIL\] FABRIC_SLOW_[A-Z]*_LATENCY' "$out"; then
  say "FAIL: slow bandwidth: a latency fault was named"; exit 1
fi
say "PASS: slow bandwidth: node1 named on bandwidth, not on latency"
