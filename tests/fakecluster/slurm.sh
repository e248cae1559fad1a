#!/usr/bin/env bash
# collbench under a real Slurm on the fake cluster (scripts/fake-slurm.sh up 4: munge, slurmctld,
# one slurmd per fake node), driven the way a user drives it: an sbatch file, `sbatch --wait`.
#   1. run, default launcher (srun --mpi=pmix where `srun --mpi=list` offers pmix): the job's log
#      exists and names every node, its collbench JSON names 4 distinct nodes (world.nodes), and
#      the job's exit code (sbatch --wait, scontrol's ExitCode) is collbench's (verdict.exit_code);
#   2. the same with COLLBENCH_LAUNCHER=mpirun: Open MPI's mpirun inside the allocation;
#   3. bad input at run time (a --baseline file broken after the sbatch file was written):
#      collbench exits 2, and so must the job (sbatch --wait and scontrol's ExitCode);
#   4. the user's own program (--command) with --inspector: every rank runs it with the Inspector's
#      variables (NCCL_INSPECTOR_DUMP_DIR = DIR/<job id>, made by the script), the job's exit code is
#      the program's, and with no plugin loaded (none here) the log says the folder stayed empty;
#   5. `collbench launch prolog` as the cluster's Prolog (PrologFlags=Alloc), node3's loopback
#      slowed (its ranks talk over TCP on lo): a one-node job on each node in turn runs it there; node3's log has the [FAIL] and
#      the drain line, the others passed, and node3 is not drained (the script only prints it).
# The sbatch files are `collbench launch slurm`'s. Jobs are submitted from a clean environment
# (env -i: PATH, HOME, SLURM_CONF) plus only the variables in JOB_EXPORTS, so whatever they need
# is in the file or in that list.
# Exit: 0 pass, 1 fail, 77 skip (not root, no network namespaces, or Slurm/munge not installed:
# apt-get install -y slurmctld slurmd slurm-client munge — the reason is printed).
# Env: COLLBENCH (default build/collbench), FS_JOB_TIMEOUT (seconds per job, default 180),
#   FS_UP_TIMEOUT (passed to fake-slurm.sh, default 60).
# The fake cluster is machine-wide and this test does not lock it; run it as
#   flock /tmp/collbench-fc.lock bash tests/fakecluster/slurm.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
say() { echo "slurm: $*"; }
fail() { say "FAIL: $*"; exit 1; }
# shellcheck source=tests/fakecluster/require.sh disable=SC1091  # followed with shellcheck -x
source tests/fakecluster/require.sh
FS=scripts/fake-slurm.sh
JOB_TIMEOUT=${FS_JOB_TIMEOUT:-180}
for c in slurmctld slurmd sbatch scontrol munged; do
  command -v "$c" >/dev/null || { say "SKIP: '$c' not installed (apt-get install -y slurmctld slurmd slurm-client munge)"; exit 77; }
done
command -v mpirun >/dev/null || fail "mpirun not found (scripts/setup.sh installs Open MPI)"
command -v python3 >/dev/null || fail "python3 not found"

# Everything the nodes read or write is in TMP (all namespaces share the filesystem). The binary is
# copied there: a rebuild of $BIN while a job runs made mpirun fail to exec it on the nodes.
TMP=$(mktemp -d /tmp/cb-slurm.XXXXXX)
chmod 755 "$TMP"
cp "$BIN" "$TMP/collbench" || fail "cannot copy $BIN"
"$TMP/collbench" --version >/dev/null 2>&1 || fail "the copy of $BIN does not run (was it being rebuilt?)"
CB="$TMP/collbench"
# What the job needs beyond the sbatch file: Open MPI's mpirun refuses root without these (srun
# --mpi=pmix does not need them). Nothing else: see scripts/fake-slurm.sh's header.
JOB_EXPORTS="OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"

passed=0
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
  local rc=$?
  if [ "$passed" != 1 ]; then
    say "job logs and sbatch files kept in $TMP; daemons' logs (last 20 lines each):"
    "$FS" logs 20 2>&1 | sed 's/^/  /'
    rm -f "$TMP/collbench"
  else
    rm -rf "$TMP"
  fi
  "$FS" down >/dev/null 2>&1 || say "warning: fake-slurm down failed"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# write_sbatch FILE OUTDIR COLLBENCH-ARGS...: `collbench launch slurm` for 4 nodes x 1 rank.
write_sbatch() {
  local file=$1 outdir=$2
  shift 2
  "$CB" launch slurm --nodes 4 --tasks-per-node 1 --collbench "$CB" --output-dir "$outdir" -o "$file" -- "$@" ||
    fail "collbench launch slurm failed"
}

# submit NAME FILE [VAR=VALUE,...]: sbatch --wait from a clean environment; sets JOB (id), JOB_RC
# (sbatch's exit code: the job's), JOB_LOG (the job's output file) and JOB_EXIT (scontrol's ExitCode).
submit() {
  local name=$1 file=$2 extra=${3:-} t0=$SECONDS
  local exports="ALL,$JOB_EXPORTS${extra:+,$extra}"
  env -i PATH="$PATH" HOME="${HOME:-/root}" SLURM_CONF="$SLURM_CONF" \
    timeout "$JOB_TIMEOUT" sbatch --parsable --wait --export="$exports" --chdir="$TMP/$name" "$file" \
    >"$TMP/$name/sbatch.out" 2>"$TMP/$name/sbatch.err"
  JOB_RC=$?
  JOB=$(head -1 "$TMP/$name/sbatch.out" | cut -d';' -f1)
  say "  [$name] job ${JOB:-?}: sbatch --wait exit $JOB_RC after $((SECONDS - t0)) s"
  if [ "$JOB_RC" -eq 124 ]; then
    squeue
    [ -z "$JOB" ] || scontrol show job "$JOB"
    for f in "$TMP/$name"/*.out; do [ "$f" = "$TMP/$name/sbatch.out" ] || { echo "--- $f"; tail -40 "$f"; }; done
    fail "[$name] job did not finish in ${JOB_TIMEOUT}s"
  fi
  [[ "$JOB" =~ ^[0-9]+$ ]] || { cat "$TMP/$name/sbatch.err"; fail "[$name] sbatch did not print a job id"; }
  JOB_LOG=$(find "$TMP/$name" -maxdepth 1 -name "*-$JOB.out" | head -1)
  [ -s "$JOB_LOG" ] || fail "[$name] no job output file $TMP/$name/*-$JOB.out"
  JOB_EXIT=$(scontrol show job -o "$JOB" | grep -o 'ExitCode=[0-9]*:[0-9]*' | cut -d= -f2)
  say "  [$name] scontrol: ExitCode=$JOB_EXIT; $(grep -m1 '^collbench: launching' "$JOB_LOG" || echo 'no launch line')"
}

# run_case NAME [VAR=VALUE,...]: a good run; checks the log, the JSON and the exit codes.
run_case() {
  local name=$1 extra=${2:-} i json
  mkdir -p "$TMP/$name"
  # --timeout: a hung step is ended and named by collbench itself, well inside the job's time.
  write_sbatch "$TMP/$name/job.sbatch" "$TMP/$name" run --backend mpi --ops all_reduce -b 1K -e 64K -n 5 --no-progress \
    --timeout 60
  submit "$name" "$TMP/$name/job.sbatch" "$extra"
  for ((i = 0; i < 4; i++)); do
    grep -qw "node$i" "$JOB_LOG" || { tail -30 "$JOB_LOG"; fail "[$name] the job's output does not name node$i"; }
  done
  json="$TMP/$name/collbench-$JOB.json"
  [ -s "$json" ] || { tail -30 "$JOB_LOG"; fail "[$name] no collbench JSON $json"; }
  python3 - "$json" "$name" "$JOB_RC" "$JOB_EXIT" <<'EOF' || { tail -30 "$JOB_LOG"; fail "[$name] JSON check failed"; }
import json, sys
path, name, rc, exit_code = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
d = json.load(open(path))
if d.get("schema") != "collbench.run/1":
    sys.exit(f"slurm:   [{name}] schema {d.get('schema')!r}, expected collbench.run/1")
nodes = [n["name"] for n in d["world"]["nodes"]]
print(f"slurm:   [{name}] world.nodes = {nodes}, ranks {d['world']['ranks']}")
if sorted(set(nodes)) != [f"node{i}" for i in range(4)]:
    sys.exit(f"slurm:   [{name}] expected node0..node3, once each: {nodes}")
if d["world"]["ranks"] != 4 or not d.get("complete", False):
    sys.exit(f"slurm:   [{name}] expected a complete run of 4 ranks: {d['world']['ranks']} ranks, error {d.get('error')}")
want = d["verdict"]["exit_code"]
if want not in (0, 3):   # 3: ran, a threshold failed: still a complete run on this slow machine
    sys.exit(f"slurm:   [{name}] collbench's verdict.exit_code is {want}")
if rc != want or exit_code != f"{want}:0":
    sys.exit(f"slurm:   [{name}] job exit {rc} (scontrol {exit_code}) is not collbench's {want}")
EOF
}

say "collbench: $CB (copy of $BIN); job timeout ${JOB_TIMEOUT}s"
t0=$SECONDS
"$FS" up 4
case $? in
  0) ;;
  77) say "SKIP: fake-slurm.sh up: a package is missing (see above)"; exit 77 ;;
  *) fail "fake-slurm.sh up 4" ;;
esac
say "up took $((SECONDS - t0)) s"
eval "$("$FS" env)"
sinfo -N

say "1/5: run on 4 nodes, default launcher"
run_case auto
say "2/5: run on 4 nodes, COLLBENCH_LAUNCHER=mpirun"
run_case mpirun COLLBENCH_LAUNCHER=mpirun
grep -q '^collbench: launching .* with mpirun' "$JOB_LOG" || fail "[mpirun] the job did not launch with mpirun"

# `collbench launch slurm` checks the wrapped command when it writes the file (--ops nosuch is
# refused there), so the bad input must go bad later: a baseline that is a valid result when the
# file is written (case 1's) and garbage when the job runs.
say "3/5: bad input at run time (--baseline FILE no longer a result): collbench exits 2, the job must too"
mkdir -p "$TMP/bad"
cp "$TMP/auto/collbench-"*.json "$TMP/bad/baseline.json" || fail "[bad] no JSON from case 1 to use as a baseline"
write_sbatch "$TMP/bad/job.sbatch" "$TMP/bad" run --backend mpi --ops all_reduce -b 1K -e 64K -n 5 --no-progress \
  --baseline "$TMP/bad/baseline.json"
echo "not a collbench result" >"$TMP/bad/baseline.json"
submit bad "$TMP/bad/job.sbatch"
if [ "$JOB_RC" -ne 2 ] || [ "$JOB_EXIT" != "2:0" ]; then
  tail -20 "$JOB_LOG"; fail "[bad] expected job exit 2 (scontrol 2:0), got $JOB_RC ($JOB_EXIT)"
fi
grep -q 'baseline.json' "$JOB_LOG" || { tail -20 "$JOB_LOG"; fail "[bad] the job failed, but not on the baseline"; }

say "4/5: your own program with --command and --inspector: each rank sees the Inspector's variables"
mkdir -p "$TMP/own"
# Each rank leaves its environment in the output folder and exits 5; the words reach sh as written.
"$CB" launch slurm --nodes 4 --tasks-per-node 1 --output-dir "$TMP/own" --inspector "$TMP/own/inspector" \
  --inspector-plugin /opt/nccl/libnccl-profiler-inspector.so -o "$TMP/own/job.sbatch" --command -- \
  /bin/sh -c 'env >"$1/env-$SLURM_PROCID.txt"; exit 5' sh "$TMP/own" || fail "[own] collbench launch slurm --command failed"
submit own "$TMP/own/job.sbatch"
if [ "$JOB_RC" -ne 5 ] || [ "$JOB_EXIT" != "5:0" ]; then
  tail -20 "$JOB_LOG"; fail "[own] expected the program's exit 5 as the job's (scontrol 5:0), got $JOB_RC ($JOB_EXIT)"
fi
[ -d "$TMP/own/inspector/$JOB" ] || fail "[own] the script did not make $TMP/own/inspector/$JOB"
for ((i = 0; i < 4; i++)); do
  f="$TMP/own/env-$i.txt"
  [ -s "$f" ] || { tail -20 "$JOB_LOG"; fail "[own] rank $i left no environment ($f)"; }
  for want in "NCCL_INSPECTOR_DUMP_DIR=$TMP/own/inspector/$JOB" NCCL_INSPECTOR_ENABLE=1 \
    NCCL_PROFILER_PLUGIN=/opt/nccl/libnccl-profiler-inspector.so; do
    grep -qx "$want" "$f" || fail "[own] rank $i's environment lacks $want"
  done
done
grep -q "^collbench: no NCCL Inspector log in $TMP/own/inspector/$JOB" "$JOB_LOG" ||
  { tail -20 "$JOB_LOG"; fail "[own] the log does not say the Inspector folder stayed empty"; }
say "  [own] 4 ranks ran with NCCL_INSPECTOR_DUMP_DIR=$TMP/own/inspector/$JOB; job exit $JOB_RC"

say "5/5: collbench launch prolog as Slurm's Prolog; node3's loopback at 100 Mbit/s"
mkdir -p "$TMP/prolog/logs"
# A made-up instance type whose node-scope row sits between a healthy loopback (GB/s) and the
# slowed one (about 0.01 GB/s): all_reduce at 1 MiB must reach 0.05 GB/s. The check's sweep ends
# there (-e 1M).
cat >"$TMP/prolog/t.json" <<'EOF'
{"schema": "collbench.thresholds/1", "instance_type": "test.node",
 "hardware": {"gpus": 2, "gpu": "none", "efa_devices": 0, "efa_gbps": 0, "source": "a test profile"},
 "thresholds": [{"op": "all_reduce", "scope": "node", "bytes": 1048576, "fail_below": 0.05, "warn_below": 0.1,
                 "basis": "derived", "source": "between a loopback at 100 Mbit/s and an unshaped one"}]}
EOF
# OMPI_MCA_btl=tcp,self: the node's two ranks talk over lo (shared memory would not see the limit);
# yield_when_idle: a waiting rank gives its core up, as on a busy host it must.
"$CB" launch prolog --tasks-per-node 2 --collbench "$CB" --mpirun "$(command -v mpirun)" --log-dir "$TMP/prolog/logs" \
  --env OMPI_MCA_btl=tcp,self --env OMPI_MCA_mpi_yield_when_idle=1 -o "$TMP/prolog/prolog.sh" -- --backend mpi -e 1M --instance-type test.node \
  --thresholds "$TMP/prolog/t.json" || fail "[prolog] collbench launch prolog failed"
bash -n "$TMP/prolog/prolog.sh" || fail "[prolog] the script does not parse"
# A Prolog is read when the daemons start: the cluster comes up again with it (a few seconds).
FS_PROLOG="$TMP/prolog/prolog.sh" "$FS" up 4 >/dev/null || fail "[prolog] fake-slurm.sh up 4 with the Prolog"
scripts/fake-cluster.sh shape loopback 3 100mbit >/dev/null || fail "[prolog] cannot shape node3's loopback"
# One single-node job per node, one after the other: the four checks at once on this one machine
# would measure each other (under load, healthy loopbacks fell to the slowed one's 0.02 GB/s).
for ((i = 0; i < 4; i++)); do
  mkdir -p "$TMP/prolog-$i"
  cat >"$TMP/prolog-$i/job.sbatch" <<EOF
#!/bin/bash
#SBATCH --nodes=1
#SBATCH --nodelist=node$i
#SBATCH --output=$TMP/prolog-$i/%x-%j.out
srun hostname
EOF
  submit "prolog-$i" "$TMP/prolog-$i/job.sbatch"
  [ "$JOB_RC" -eq 0 ] || { cat "$JOB_LOG"; fail "[prolog] the job on node$i failed (exit $JOB_RC): the Prolog must not fail a job"; }
  log="$TMP/prolog/logs/collbench-node-check-node$i.log"
  [ -s "$log" ] || fail "[prolog] node$i: no check log $log (did the Prolog run?)"
  if [ "$i" = 3 ]; then
    grep -q '^\[FAIL\] BUSBW_BELOW_THRESHOLD' "$log" || { tail -20 "$log"; fail "[prolog] node3: no [FAIL] in its check"; }
    grep -q '^collbench: next step: scontrol update nodename=node3 state=drain reason="collbench node check: BUSBW_BELOW_THRESHOLD"$' "$log" ||
      { tail -5 "$log"; fail "[prolog] node3: no drain line"; }
  else
    grep -q "^collbench: node$i passed its node check$" "$log" || { tail -20 "$log"; fail "[prolog] node$i did not pass"; }
  fi
  say "  [prolog] node$i: $(grep -m1 -o 'busbw [0-9.e+-]* GB/s at 1 MiB' "$log"); $(tail -1 "$log")"
done
state=$(sinfo -h -n node3 -o '%t')
case "$state" in *drain*|*drng*) fail "[prolog] node3 is $state: the script must print the drain line, not run it" ;; esac
say "  [prolog] node3 is $state: not drained"

t0=$SECONDS
"$FS" down || fail "fake-slurm.sh down"
say "down took $((SECONDS - t0)) s"
if ip netns list | grep -q '^cb-node'; then fail "namespaces left after down: $(ip netns list | tr '\n' ' ')"; fi
passed=1
say "PASS"
exit 0
