#!/usr/bin/env bash
# Smoke test of scripts/fake-cluster.sh with collbench on it: a real multi-"node" MPI run on one
# machine (network namespaces, own hostnames, a bridge, tc shaping).
#   1. 2 nodes, 4 ranks (--map-by node): the JSON's world.nodes names 2 distinct nodes
#   2. 4 nodes, 4 ranks: 4 distinct nodes; all_reduce busbw at 4 MiB (baseline)
#   3. node1 limited to 200mbit (tbf): the same run is at least 2x slower (busbw ratio printed)
# Exit: 0 pass, 1 fail, 77 skip (not root, or `ip netns` unusable — the reason is printed).
# Env: COLLBENCH (default build/collbench, relative to the repository root), FC_SHAPE_RATE
# (default 200mbit), FC_MPIRUN_TIMEOUT (seconds per mpirun, default 120).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
FC=scripts/fake-cluster.sh
BIN=${COLLBENCH:-build/collbench}
RATE=${FC_SHAPE_RATE:-200mbit}
MPI_TIMEOUT=${FC_MPIRUN_TIMEOUT:-120}

say() { echo "smoke: $*"; }
skip() { say "SKIP: $*"; exit 77; }
fail() { say "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, veths, bridge, tc); running as uid $(id -u)"
command -v ip >/dev/null || skip "'ip' (iproute2) not installed"
ip netns list >/dev/null 2>&1 || skip "'ip netns' is not usable here"
probe=cbsmoke-probe-$$
if ! ip netns add "$probe" 2>/dev/null; then skip "cannot create a network namespace ('ip netns add' failed)"; fi
ip netns del "$probe" 2>/dev/null || true
command -v unshare >/dev/null || skip "'unshare' (util-linux) not installed"
command -v tc >/dev/null || skip "'tc' (iproute2) not installed"
command -v mpirun >/dev/null || fail "mpirun not found (scripts/setup.sh installs Open MPI)"
command -v python3 >/dev/null || fail "python3 not found"
[ -x "$BIN" ] || fail "collbench binary '$BIN' not found or not executable (build it: scripts/setup.sh; or set COLLBENCH)"

TMP=$(mktemp -d /tmp/cb-fakecluster.XXXXXX)
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
  local rc=$?
  "$FC" down >/dev/null 2>&1 || say "warning: fake-cluster down failed"
  rm -rf "$TMP"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# run_case NAME NODES: runs collbench on the fake cluster, checks the JSON, writes the 4 MiB
# all_reduce busbw (GB/s, out-of-place) to $TMP/NAME.busbw; fails the test otherwise
run_case() {
  local name=$1 nodes=$2 json=$TMP/$1.json log=$TMP/$1.log rc t0 t1
  local args
  args=$("$FC" mpirun-args) || fail "fake-cluster mpirun-args failed"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  timeout "$MPI_TIMEOUT" mpirun $args -np 4 --map-by node \
    "$BIN" run --backend mpi --ops all_reduce -b 1M -e 4M -f 2 -n 5 --no-progress --json "$json" >"$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  say "  [$name] mpirun exit $rc in $(python3 -c "print(f'{$t1 - $t0:.1f}')") s"
  if [ "$rc" -eq 124 ]; then tail -20 "$log"; fail "[$name] mpirun timed out after ${MPI_TIMEOUT}s"; fi
  # 0 = no [FAIL]; 3 = ran but some verdict failed (e.g. a bandwidth threshold) — still a complete run.
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then tail -30 "$log"; fail "[$name] mpirun/collbench exited $rc"; fi
  [ -s "$json" ] || { tail -30 "$log"; fail "[$name] no JSON written"; }
  python3 - "$json" "$nodes" "$name" "$TMP/$name.busbw" <<'EOF' || fail "[$name] JSON check failed"
import json, sys
path, want, name, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
d = json.load(open(path))
names = [n["name"] for n in d["world"]["nodes"]]
ranks = {n["name"]: n.get("ranks") for n in d["world"]["nodes"]}
print(f"smoke:   [{name}] world.nodes = {ranks}")
if len(set(names)) != want:
    sys.exit(f"smoke:   [{name}] expected {want} distinct nodes, got {len(set(names))}: {names}")
if d["world"]["ranks"] != 4:
    sys.exit(f"smoke:   [{name}] expected 4 ranks, got {d['world']['ranks']}")
if not d.get("complete", False):
    sys.exit(f"smoke:   [{name}] run not complete: {d.get('error')}")
cases = [c for c in d["cases"] if c["op"] == "all_reduce" and c["bytes"] == 4 << 20
         and c.get("group", {}).get("scope", "world") in ("world", None)]
if not cases:
    sys.exit(f"smoke:   [{name}] no all_reduce case at 4 MiB")
wrong = [c["wrong"] for c in cases if c.get("wrong")]
if wrong:
    sys.exit(f"smoke:   [{name}] wrong results: {wrong}")
bw = {c["placement"]: c["busbw_gbs"] for c in cases}
print("smoke:   [%s] all_reduce 4 MiB busbw: %s" % (name, ", ".join(f"{k} {v:.3f} GB/s" for k, v in bw.items())))
open(out, "w").write("%r\n" % bw.get("out_of_place", bw.get("out", next(iter(bw.values())))))
EOF
}

say "collbench: $BIN; fake cluster: $FC; shaped rate: $RATE; mpirun timeout: ${MPI_TIMEOUT}s"

say "1/3: up 2 nodes, 4 ranks --map-by node"
"$FC" up 2 || fail "fake-cluster up 2"
run_case two 2

say "2/3: up 4 nodes, 4 ranks --map-by node (baseline)"
"$FC" up 4 || fail "fake-cluster up 4"
run_case base 4
base=$(cat "$TMP/base.busbw")
[ -n "$base" ] || fail "no baseline busbw"

say "3/3: shape node1 to $RATE, same run"
"$FC" shape node 1 "$RATE" || fail "fake-cluster shape node 1 $RATE"
"$FC" status
run_case shaped 4
shaped=$(cat "$TMP/shaped.busbw")
[ -n "$shaped" ] || fail "no shaped busbw"

python3 - "$base" "$shaped" "$RATE" <<'EOF' || fail "the shaped run is not at least 2x slower"
import sys
base, shaped, rate = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
ratio = base / shaped if shaped > 0 else float("inf")
print(f"smoke: all_reduce 4 MiB busbw (out-of-place): unshaped {base:.3f} GB/s, node1 at {rate} {shaped:.3f} GB/s, ratio {ratio:.1f}x")
sys.exit(0 if ratio >= 2 else 1)
EOF

say "PASS (cleanup follows: fake-cluster down)"
exit 0
