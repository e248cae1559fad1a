#!/usr/bin/env bash
# collbench preflight on the fake cluster, 4 nodes x 2 ranks, mpi backend, libfabric's tcp provider,
# a 2-minute budget:
#   1. node2 limited to 100 Mbit/s -> exit 3; every [FAIL] that names a node names node2 and no
#      other; the scheduler hints name node2 only; every phase ran; done within the budget plus
#      set-up (PREFLIGHT_LIMIT, default 200 s).
#   2. no shaping -> exit 0, no [FAIL]; every phase ran.
#   3. node3's processes never start (the launch runs `sleep` there instead of collbench) -> the
#      others leave within --timeout plus a few seconds with exit 1, and node3's ranks are named
#      with the host the launcher placed them on (its hostfile names node3 by address, 198.18.L.13 on lane L).
# Exit: 0 pass, 1 fail, 77 skip (not root or no network namespaces; the reason is printed).
# Env: COLLBENCH (default build/collbench), PREFLIGHT_LIMIT (seconds, default 200).
# The fake cluster of a lane (FC_LANE, scripts/fake-cluster.sh) is machine-wide: run it under flock
# /tmp/collbench-fc.lock when others may use that lane.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
say() { echo "preflight: $*"; }
# shellcheck source=tests/fakecluster/require.sh
source tests/fakecluster/require.sh

out=$(mktemp /tmp/cb-preflight.XXXXXX)
trap 'pkill -f "^sleep 601$" 2>/dev/null; "$FC" down >/dev/null 2>&1; rm -f "$out" "$out.json" "$out.json.partial"' EXIT
limit=${PREFLIGHT_LIMIT:-200}
"$FC" up 4 >/dev/null || { say "FAIL: fake-cluster up 4"; exit 1; }

# preflight_once NAME: the preflight on the cluster as shaped now; output in $out, exit code in $rc.
preflight_once() {
  local start=$SECONDS
  rm -f "$out.json"
  # shellcheck disable=SC2046
  timeout "$((limit + 60))" mpirun $("$FC" mpirun-args) -np 8 --map-by node \
    "$BIN" preflight --backend mpi --provider tcp --budget 2m -e 4M --no-color --json "$out.json" >"$out" 2>&1
  rc=$?
  local took=$((SECONDS - start))
  grep -E '^# (Preflight|  +[0-9]\.|---- phase|preflight:|Scheduler|  +node|    +(slurm|k8s):)|^\[(FAIL|WARN)\]' "$out"
  say "$1: exit $rc in $took s"
  if [ "$took" -gt "$limit" ]; then say "FAIL: $1 took $took s (limit $limit s)"; exit 1; fi
}

# check_json NAME BAD_HOST|"" EXIT: the document's phases, accusations and hints.
check_json() {
  python3 - "$out.json" "$2" "$3" <<'PY' || { cat "$out"; say "FAIL: $1: the JSON document"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1])); bad = sys.argv[2]; code = int(sys.argv[3])
assert d["schema"] == "collbench.preflight/1", d["schema"]
assert [p["name"] for p in d["phases"]] == ["environment", "node", "world", "pairs", "fabric"], d["phases"]
assert all(p["status"] == "ran" for p in d["phases"]), [(p["name"], p["status"], p["reason"]) for p in d["phases"]]
assert d["verdict"]["exit_code"] == code, d["verdict"]
accused = {h for f in d["findings"] if f["tag"] == "FAIL" and f["subject"]["kind"] in ("node", "rank")
           for h in f["subject"]["hosts"]}
assert accused == ({bad} if bad else set()), accused
assert [h["host"] for h in d["scheduler_hints"]] == ([bad] if bad else []), d["scheduler_hints"]
assert d["valid_until"] > d["finished_at"], (d["valid_until"], d["finished_at"])
print("preflight: JSON: phases %s; accused %s" % ([(p["name"], round(p["wall_s"])) for p in d["phases"]], sorted(accused)))
PY
}

"$FC" shape node 2 100mbit >/dev/null || { say "FAIL: shaping node 2"; exit 1; }
preflight_once "slow node2"
if [ "$rc" -ne 3 ]; then cat "$out"; say "FAIL: slow node2: expected exit 3, got $rc"; exit 1; fi
check_json "slow node2" node2 3
grep -q 'scontrol update nodename=node2 state=drain' "$out" || { say "FAIL: slow node2: no drain hint printed"; exit 1; }
say "PASS: slow node2: named, and no other node"

"$FC" unshape >/dev/null || { say "FAIL: unshape"; exit 1; }
preflight_once "clean"
if [ "$rc" -ne 0 ]; then cat "$out"; say "FAIL: clean: expected exit 0, got $rc"; exit 1; fi
check_json "clean" "" 0
start=$SECONDS
# shellcheck disable=SC2016,SC2046
timeout 120 mpirun $("$FC" mpirun-args) -np 8 --map-by node \
  sh -c 'if [ "$(hostname)" = node3 ]; then exec sleep 601; fi; exec "$0" "$@"' \
  "$BIN" preflight --backend mpi --provider tcp --budget 2m --timeout 30 -e 4M --no-color >"$out" 2>&1
rc=$? took=$((SECONDS - start))
pkill -f '^sleep 601$' 2>/dev/null
grep 'collbench: error' "$out"
say "never started: exit $rc in $took s"
if [ "$rc" -ne 1 ] || [ "$took" -gt 90 ]; then cat "$out"; say "FAIL: never started: expected exit 1 within 90 s"; exit 1; fi
node3=$("$FC" name addr 3)
if ! grep -qF "never started: rank 3 (host $node3), rank 7 (host $node3);" "$out"; then
  cat "$out"; say "FAIL: never started: node3's ranks 3 and 7 not named"; exit 1
fi
say "PASS: never started: node3's ranks named"
say "PASS: every scenario"
