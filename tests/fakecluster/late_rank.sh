#!/usr/bin/env bash
# The late rank on the fake cluster: 2 nodes x 1 rank, mpi backend, each rank pinned to a core of
# its own. CPU hogs (busy loops, each in a session of its own so the scheduler gives each the rank's
# share; HOGS, default 3) share one rank's core; collbench must name that rank in LATE_RANK, and no
# other. Four runs, the hogs on node1, node0, node1, node0: each names the hogged rank and host (the
# JSON finding's subject) and no second rank. No run without hogs is judged here: on a busy machine
# (stress-ng, CI's parallel builds) the machine's own load makes one of the two cores busier, and
# collbench then names that core's rank, rightly. Sizes 64K-4M: at small sizes a healthy rank that
# shares its core with mpirun's daemons is late too often to tell apart (docs/run.md, "The late rank").
# Exit: 0 pass, 1 fail, 77 skip (not root, no network namespaces, fewer than 2 cores).
# Env: COLLBENCH (default build/collbench), FC_MPIRUN_TIMEOUT (seconds per run, default 90).
# The fake cluster of a lane (FC_LANE, scripts/fake-cluster.sh) is machine-wide: run it under flock
# /tmp/collbench-fc.lock when others may use that lane.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
HOGS=${HOGS:-3}
say() { echo "late_rank: $*"; }
# shellcheck source=tests/fakecluster/require.sh
source tests/fakecluster/require.sh
command -v taskset >/dev/null || { say "SKIP: taskset (util-linux) not installed"; exit 77; }
mapfile -t cores < <(python3 -c 'import os; print("\n".join(map(str, sorted(os.sched_getaffinity(0))[:2])))')
[ "${#cores[@]}" -ge 2 ] || { say "SKIP: needs 2 cores to give each rank its own; this process may use ${#cores[@]}"; exit 77; }

work=$(mktemp -d /tmp/cb-laterank.XXXXXX)
hogs=()
cleanup() {
  [ "${#hogs[@]}" -gt 0 ] && kill "${hogs[@]}" 2>/dev/null
  "$FC" down >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
"$FC" up 2 >/dev/null || { say "FAIL: fake-cluster up"; exit 1; }

# node I runs on cores[I]; the hog joins the hogged node's core.
cat >"$work/pin" <<EOF2
#!/bin/sh
case "\$(hostname)" in
  node0) exec taskset -c ${cores[0]} "\$@" ;;
  *) exec taskset -c ${cores[1]} "\$@" ;;
esac
EOF2
chmod 755 "$work/pin"

# run HOGGED: the hogs on node HOGGED's core.
run() {
  local hogged=$1 out="$work/out-$1" rc
  for _ in $(seq "$HOGS"); do
    taskset -c "${cores[$hogged]}" setsid sh -c 'while :; do :; done' &
    hogs+=($!)
  done
  # shellcheck disable=SC2046
  timeout "${FC_MPIRUN_TIMEOUT:-90}" mpirun $("$FC" mpirun-args) -np 2 --map-by node "$work/pin" \
    "$BIN" run --backend mpi --ops all_reduce -b 64K -e 4M -n 50 --no-progress --no-color --json "$out.json" \
    >"$out" 2>&1
  rc=$?
  if [ "${#hogs[@]}" -gt 0 ]; then kill "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null; hogs=(); fi
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then cat "$out"; say "FAIL: hog on $hogged: collbench exited $rc"; exit 1; fi
  python3 - "$out.json" "$hogged" <<'PY' || { grep -E "LATE_RANK|ARRIVALS" "$out"; say "FAIL: hog on $hogged"; exit 1; }
import json, sys
doc = json.load(open(sys.argv[1]))
hogged = sys.argv[2]
late = [f for f in doc["findings"] if f["code"] == "LATE_RANK"]
even = [f for f in doc["findings"] if f["code"] == "ARRIVALS_EVEN"]
cases = doc["cases"]
if not cases or any(c.get("arrival") is None for c in cases):
    sys.exit("a case without arrival times")
named = [c["arrival"]["rank"] for c in cases]
print(f"late_rank:   hog on {hogged}: cases name {named}; " +
      (late[0]["message"][:160] + "..." if late else (even[0]["message"] if even else "no arrival finding")))
want = int(hogged)
if len(late) != 1:
    sys.exit(f"{len(late)} LATE_RANK findings, want 1")
s = late[0]["subject"]
if s != {"kind": "rank", "ranks": [want], "hosts": [f"node{want}"]}:
    sys.exit(f"LATE_RANK names {s}, want rank {want} on node{want}")
PY
}

for hogged in 1 0 1 0; do run "$hogged"; done
say "PASS: the hogged rank, and no other, was named in each of 4 runs"
