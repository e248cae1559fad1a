#!/usr/bin/env bash
# The fault matrix: run, hunt, fabric and preflight (mpi backend; fabric and preflight on libfabric's
# tcp provider) on the fake cluster, 4 nodes x 1 rank, --timeout T, each command with each fault
# on rank 2 (node2, 198.18.0.12 on lane 0):
#   kill   rank 2 SIGKILLed from outside while measuring;
#   link   node2's veth (cbh2) set down while measuring, up again once the cell is over;
#   stop   rank 2 SIGSTOPped while measuring (a hang); SIGCONT and SIGKILL once the cell is over;
#   term   SIGTERM to mpirun while measuring (scancel, a deleted launcher pod): no culprit to name;
#          every process must stop within 10 s, say "stopped by SIGTERM", and FILE (not only
#          FILE.partial) must be written with "complete": false (mpirun runs with
#          odls_base_sigkill_timeout 2: docs/run.md, "Stopping a run");
#   never  rank 2 never starts (the launch runs `sleep` on node2 instead of collbench); the four
#          commands' launches run side by side, as each only waits.
# "While measuring" is read from the output, never from a fixed sleep: run after the first table
# row, hunt after the line of pair round 0, fabric after its header once node2's veth has carried
# 256 KiB more. preflight is hit in a different phase per fault: kill after the world sweep's first
# row, link after the pair screen's round 0, stop in the fabric phase (as fabric).
# Every cell must:
#   - end (mpirun, the command a person runs) within T + MARGIN seconds of the fault; "never":
#     within max(30, T) + MARGIN once the other processes have started (the wait for a process
#     that never joins is at least 30 s); link: every collbench process gone within T + MARGIN.
#     With a node cut off, Open MPI 4.1's mpirun cannot reach that node's daemon and either hangs
#     or crashes in PMIx_Finalize once collbench's processes are gone: the test ends it 3 s after
#     they are, and the table shows what mpirun did (exit column) without judging it;
#   - name rank 2 with its host (node2 or 198.18.0.12) on one line of stdout or stderr written
#     after the fault, by another process than rank 2 (mpirun counts);
#   - exit 1 (could not finish; 3 only with a [FAIL] naming node2, a verdict, which no fault here
#     leaves room for); kill: 137, mpirun's status for a rank killed by SIGKILL (docs/run.md, "Exit codes");
#     link: not judged (above);
#   - leave --json FILE (or FILE.partial) valid: FILE one JSON document, FILE.partial JSON lines
#     (a run's .partial also read by `collbench analyze`), holding every case (run, preflight's
#     world sweep) and every pair round (hunt, preflight's pair screen) the output showed
#     finished; no file is needed where the output showed nothing finished (fabric prints its
#     tables at the end).
# A launch that starts no collbench process within 30 s (Open MPI's daemons did not all call back)
# or is stopped from outside before the fault is launched once more, and says so.
# It prints the matrix as a Markdown table: outcome, seconds from the fault to the end, when the
# last collbench process had left (the launcher may take longer), exit code, who named the culprit,
# what the file kept. It passes only when every cell passed.
# Exit: 0 pass, 1 fail, 77 skip (not root or no network namespaces; the reason is printed).
# Env: COLLBENCH (default build/collbench), FAULTS_TIMEOUT (T, seconds, default 10), FAULTS_MARGIN
# (seconds, default 15), FAULTS_ONLY ("CMD/FAULT ..." to run those cells only; shell patterns, as
# "*/never", match), FAULTS_KEEP (a
# folder to copy every cell's output and JSON into).
# The fake cluster of a lane (FC_LANE, scripts/fake-cluster.sh) is machine-wide: run it under flock
# /tmp/collbench-fc.lock when others may use that lane.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
say() { echo "faults: $*"; }
# shellcheck source=tests/fakecluster/require.sh
source tests/fakecluster/require.sh

NODES=4 BAD=2
BAD_HOST=node$BAD
# This lane's names (FC_LANE; scripts/fake-cluster.sh name), set once the cluster is up.
NODE_NS=() BAD_NS="" BAD_VETH="" BAD_ADDR="" BRIDGE=""
T=${FAULTS_TIMEOUT:-10}
MARGIN=${FAULTS_MARGIN:-15}
START_LIMIT=120   # seconds a launch may take to start measuring before the cell is failed
# Seconds Open MPI may take to start any collbench process of a launch. Open MPI 4.1's mpirun waits
# for every node's daemon (orted, daemonized) to call back before it starts a rank and has no
# timeout by default: a daemon that never calls back leaves the launch waiting forever with no
# collbench process anywhere (seen here now and then on the cell after a link cell: node2 without
# an orted). That is the launcher's start, before collbench runs; the cell is launched once more.
SPAWN_LIMIT=30
work=$(mktemp -d /tmp/cb-faults.XXXXXX)
exe=$(readlink -f "$BIN")
stopped=""

# Ends what a cell left behind: a stopped rank, a link down, mpirun, and any process of the launch
# still inside a fake node (by pid: every process in these namespaces was started by this test).
cell_cleanup() {
  local pid ns name _
  if [ -n "$stopped" ]; then kill -CONT "$stopped" 2>/dev/null; kill -KILL "$stopped" 2>/dev/null; stopped=""; fi
  [ -z "$BAD_VETH" ] || ip link set "$BAD_VETH" up 2>/dev/null
  for name in "${!MPID[@]}"; do
    pid=${MPID[$name]}
    kill -0 "$pid" 2>/dev/null || continue
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  for ns in "${NODE_NS[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  done
}
cleanup() {
  cell_cleanup
  "$FC" down >/dev/null 2>&1
  if [ -n "${FAULTS_KEEP:-}" ]; then mkdir -p "$FAULTS_KEEP" && cp -r "$work"/. "$FAULTS_KEEP"/; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

"$FC" up "$NODES" >/dev/null || { say "FAIL: fake-cluster up $NODES"; exit 1; }
for i in $(seq 0 $((NODES - 1))); do NODE_NS[i]=$("$FC" name ns "$i"); done
BAD_NS=${NODE_NS[$BAD]} BAD_VETH=$("$FC" name veth "$BAD") BAD_ADDR=$("$FC" name addr "$BAD") BRIDGE=$("$FC" name bridge)
read -r -a MPIRUN_ARGS <<<"$("$FC" mpirun-args)"

now() { echo "$EPOCHREALTIME"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# rank_pid: the pid of collbench rank $BAD (inside node$BAD's namespace, OMPI_COMM_WORLD_RANK=$BAD).
rank_pid() {
  local pid
  for pid in $(ip netns pids "$BAD_NS" 2>/dev/null); do
    [ "/proc/$pid/exe" -ef "$exe" ] || continue
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$BAD" && { echo "$pid"; return 0; }
  done
  return 1
}
# ranks_left NAME: how many collbench processes of cell NAME (its --json path last on their command
# line) are alive in the fake nodes, a stopped one not counted.
ranks_left() {
  local ns pid n=0 args
  for ns in $(seq 0 $((NODES - 1))); do
    for pid in $(ip netns pids "${NODE_NS[$ns]}" 2>/dev/null); do
      if [ "$pid" = "$stopped" ] || ! [ "/proc/$pid/exe" -ef "$exe" ]; then continue; fi
      mapfile -d '' args <"/proc/$pid/cmdline" 2>/dev/null || continue
      [ "${args[-1]:-}" = "$work/$1.json" ] && n=$((n + 1))
    done
  done
  echo "$n"
}
veth_bytes() {
  echo $(($(cat "/sys/class/net/$BAD_VETH/statistics/rx_bytes") + $(cat "/sys/class/net/$BAD_VETH/statistics/tx_bytes")))
}

# fc_state: what a launch that never reached its fault can be waiting on: the links, the bridge's
# ports, and every process in the fake nodes with what it waits in.
fc_state() {
  local ns pid
  echo "links: $(ip -br link show master "$BRIDGE" 2>/dev/null | awk '{print $1, $2}' | tr '\n' ' ')"
  for ns in $(seq 0 $((NODES - 1))); do
    echo "${NODE_NS[$ns]}: $(ip -n "${NODE_NS[$ns]}" -br addr show 2>/dev/null | grep -v '^lo' | tr -s ' ' | tr '\n' ' ')"
    echo "  neigh: $(ip -n "${NODE_NS[$ns]}" neigh show 2>/dev/null | tr '\n' ';')"
    for pid in $(ip netns pids "${NODE_NS[$ns]}" 2>/dev/null); do
      echo "  $pid $(cat "/proc/$pid/wchan" 2>/dev/null) $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-100)"
    done
  done
}

# measuring CMD FAULT OUT: true once the output (and, for fabric, node2's traffic) shows that the
# point of the fault is reached. Keeps its state in $mark (fabric: the byte count at the header).
measuring() {
  local cmd=$1 fault=$2 out=$3 pattern
  case "$cmd/$fault" in
    run/*|preflight/kill|preflight/term) pattern='^ +[0-9]+ +[0-9]+ +float ' ;;
    hunt/*|preflight/link) pattern='^# round 0 \(pairs\)' ;;
    fabric/*|preflight/stop) pattern='^# Sizes ' ;;
  esac
  grep -Eq "$pattern" "$out" || return 1
  case "$cmd/$fault" in
    fabric/*|preflight/stop)
      [ -n "$mark" ] || { mark=$(veth_bytes); return 1; }
      [ $(($(veth_bytes) - mark)) -ge 262144 ] ;;
  esac
}

# check_results CMD JSON OUT: prints "OK|FAIL <what the file holds>": the file's validity and whether it
# holds every case and round the output showed finished.
check_results() {
  python3 - "$@" "$BIN" <<'PY'
import json, os, re, subprocess, sys
cmd, path, out_path, binary = sys.argv[1:5]
out = open(out_path, errors="replace").read().splitlines()

# What the output showed finished: cases (op, bytes, placement) of the sweep tables, pair rounds.
shown_cases, shown_rounds = set(), set()
phase, op = cmd, None
dtypes = {"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16"}
for line in out:
    m = re.match(r"# ---- phase \d+ of \d+: (\w+)", line)
    if m: phase = m.group(1); continue
    m = re.match(r"# Collective test: (\w+)", line)
    if m: op = m.group(1); continue
    m = re.match(r"# round (\d+) \(", line)
    if m and phase in ("hunt", "pairs"): shown_rounds.add(int(m.group(1))); continue
    f = line.split()
    if phase in ("run", "world") and len(f) >= 9 and f[0].isdigit() and f[1].isdigit() and f[2] in dtypes:
        for g in range((len(f) - 5) // 4):
            if f[5 + 4 * g] != "N/A": shown_cases.add((op, int(f[0]), ("out_of_place", "in_place")[g]))

def fail(msg):
    print("FAIL " + msg); sys.exit(0)

final, partial = path, path + ".partial"
docs, kind = [], None
if os.path.exists(final):
    try: docs = [json.load(open(final))]
    except Exception as e: fail("%s is not one JSON document: %s" % (final, e))
    kind = "json"
if os.path.exists(partial):
    lines = []
    for n, text in enumerate(open(partial, errors="replace").read().splitlines(), 1):
        if not text.strip(): continue
        try: lines.append(json.loads(text))
        except Exception as e: fail("%s line %d is not JSON: %s" % (partial, n, e))
    if not lines or "schema" not in lines[0]: fail("%s has no header line" % partial)
    if kind is None:
        docs, kind = lines, "partial"
        if cmd == "run":
            r = subprocess.run([binary, "analyze", partial], capture_output=True, text=True)
            if r.returncode not in (0, 3): fail("collbench analyze %s: exit %d: %s" % (partial, r.returncode, (r.stderr or r.stdout).strip()[-300:]))

# What the file holds.
cases, rounds, phases = set(), set(), []
def case_key(c): return (c.get("op"), c.get("bytes"), c.get("placement"))
def take(doc, ph):
    if not isinstance(doc, dict): return
    if ph in ("run", "world"):
        for c in doc.get("cases") or []: cases.add(case_key(c))
    if ph in ("hunt", "pairs"):
        for r in doc.get("rounds") or []: rounds.add(r.get("index"))
for d in docs:
    if cmd == "preflight":
        for p in (d.get("phases") or [d.get("phase")] if isinstance(d, dict) else []):
            if isinstance(p, dict) and p.get("name"):
                phases.append(p["name"]); take(p.get("document"), p["name"])
    elif kind == "json":
        take(d, cmd)
    else:
        if "case" in d: cases.add(case_key(d["case"]))
        if "round" in d: rounds.add(d["round"].get("index"))
if cmd == "fabric" and kind == "json":
    held = "%d pairs" % len(docs[0].get("pairs") or [])
else:
    held = "%d cases, %d rounds" % (len(cases), len(rounds)) if cmd == "preflight" else \
           ("%d cases" % len(cases) if cmd == "run" else "%d rounds" % len(rounds))
where = {"json": "FILE", "partial": "FILE.partial", None: "no file"}[kind]
shown = "%d cases, %d rounds shown" % (len(shown_cases), len(shown_rounds))
if kind is None:
    if shown_cases or shown_rounds: fail("no file (%s)" % shown)
    print("OK no file (nothing shown finished)"); sys.exit(0)
if not shown_cases <= cases or not shown_rounds <= rounds:
    lost = sorted(map(str, shown_cases - cases)) + ["round %s" % r for r in sorted(shown_rounds - rounds)]
    fail("%s: %s of %s; lost %s" % (where, held, shown, ", ".join(lost[:6]) + (" ..." if len(lost) > 6 else "")))
print("OK %s: %s%s" % (where, held, " (phases %s)" % ",".join(phases) if cmd == "preflight" else ""))
PY
}

declare -A MPID START INJECT OUT_AT ERR_AT LIMIT RC END GONE ROW NOT_SPAWNED
failed=0

# launch NAME CMD FAULT: starts the command of the cell on the cluster, in the background.
launch() {
  local name=$1 cmd=$2 fault=$3 args=() run=("$BIN")
  case $cmd in
    run)       args=(run --backend mpi -b 1K -e 4M -n 100 -w 2 --no-progress) ;;
    hunt)      args=(hunt --backend mpi --pattern pairwise -b 1M -n 400) ;;
    fabric)    args=(fabric --provider tcp --pattern pairwise -b 8 -e 1M -n 1000 -w 50) ;;
    preflight) args=(preflight --backend mpi --provider tcp --budget 30s -e 256K --no-progress) ;;
  esac
  args+=(--timeout "$T" --no-color --json "$work/$name.json")
  # shellcheck disable=SC2016
  [ "$fault" = never ] && run=(sh -c 'if [ "$(hostname)" = '"$BAD_HOST"' ]; then exec sleep 600; fi; exec "$0" "$@"' "$BIN")
  local mca=()
  [ "$fault" = term ] && mca=(--mca odls_base_sigkill_timeout 2)
  START[$name]=$(now)
  mpirun "${MPIRUN_ARGS[@]}" "${mca[@]}" -np "$NODES" --map-by node "${run[@]}" "${args[@]}" >"$work/$name.out" 2>"$work/$name.err" &
  MPID[$name]=$!
  OUT_AT[$name]=0 ERR_AT[$name]=0
  case $fault in
    never) LIMIT[$name]=$(( (T > 30 ? T : 30) + MARGIN )) ;;
    term) LIMIT[$name]=10 ;;
    *) LIMIT[$name]=$((T + MARGIN)) ;;
  esac
}

# inject NAME CMD FAULT: waits until the cell's command measures, then injects the fault. Fails
# (with the cell's row written) when the command ends or takes START_LIMIT seconds before that.
inject() {
  local name=$1 cmd=$2 fault=$3 out=$work/$1.out pid=${MPID[$1]} rc victim spawned="" waited
  mark=""
  NOT_SPAWNED[$name]=""
  while kill -0 "$pid" 2>/dev/null && ! measuring "$cmd" "$fault" "$out"; do
    waited=$(secs "${START[$name]}" "$(now)" | cut -d. -f1)
    [ "$waited" -lt "$START_LIMIT" ] || break
    if [ -z "$spawned" ]; then
      if [ "$(ranks_left "$name")" -gt 0 ]; then spawned=1
      elif [ "$waited" -ge "$SPAWN_LIMIT" ]; then NOT_SPAWNED[$name]=1; break; fi
    fi
    sleep 0.1
  done
  if ! kill -0 "$pid" 2>/dev/null || ! measuring "$cmd" "$fault" "$out"; then
    if kill -0 "$pid" 2>/dev/null; then rc="still running"; else wait "$pid"; rc="exit $?"; fi
    ROW[$name]="| $cmd | $fault | FAIL: not injected | - | - | - | - | - |"
    [ -z "${NOT_SPAWNED[$name]}" ] ||
      say "$name: Open MPI started no collbench process in $SPAWN_LIMIT s (a node's daemon did not call back?)"
    say "$name: FAIL: the command did not reach the point of the fault ($rc after $(secs "${START[$name]}" "$(now)") s); last lines:"
    tail -n 12 "$out" "$work/$name.err" | sed 's/^/    /'
    fc_state | sed 's/^/    /'
    failed=1
    return 1
  fi
  OUT_AT[$name]=$(stat -c %s "$out") ERR_AT[$name]=$(stat -c %s "$work/$name.err")
  case $fault in
    kill|stop)
      # Looked for again for up to 3 s: once, in a full CI run here, a fabric cell's rank 2
      # was not found on the first look, and the cell then ran on without its fault.
      victim=""
      for _ in $(seq 30); do victim=$(rank_pid) && break; victim=""; sleep 0.1; done
      [ -n "$victim" ] || say "$name: rank $BAD's pid not found in $BAD_NS"
      if [ -n "$victim" ]; then
        if [ "$fault" = kill ]; then kill -KILL "$victim"; else kill -STOP "$victim"; stopped=$victim; fi
      fi ;;
    link) ip link set "$BAD_VETH" down ;;
    term) kill -TERM "$pid" ;;
  esac
  INJECT[$name]=$(now)
  say "$name: $fault injected $(secs "${START[$name]}" "${INJECT[$name]}") s after the launch"
}

# wait_end NAME...: waits until each cell's command ended, or is past its limit plus 2 s (then it
# is ended here: RC "timeout"). Also notes when its last collbench process left (GONE): the
# launcher may take longer, or never notice.
wait_end() {
  local name busy=1 t pid
  while [ "$busy" = 1 ]; do
    busy=0
    for name in "$@"; do
      [ -z "${END[$name]:-}" ] || continue
      pid=${MPID[$name]} t=$(secs "${INJECT[$name]}" "$(now)")
      if ! kill -0 "$pid" 2>/dev/null; then
        END[$name]=$(now); wait "$pid"; RC[$name]=$?
      elif [ "${name##*-}" = link ] && [ -n "${GONE[$name]:-}" ] &&
           awk -v t="$t" -v g="${GONE[$name]}" 'BEGIN { exit !(t > g + 3) }'; then
        END[$name]=$(now) RC[$name]="mpirun hung"
      elif awk -v t="$t" -v l="${LIMIT[$name]}" 'BEGIN { exit !(t > l + 2) }'; then
        END[$name]=$(now) RC[$name]=timeout
      else
        busy=1
        [ -n "${GONE[$name]:-}" ] || [ "$(ranks_left "$name")" -ne 0 ] || GONE[$name]=$t
      fi
      [ -z "${END[$name]:-}" ] || [ -n "${GONE[$name]:-}" ] || GONE[$name]=$(secs "${INJECT[$name]}" "${END[$name]}")
    done
    [ "$busy" = 0 ] || sleep 0.2
  done
}

# judge NAME CMD FAULT: the cell's checks; writes its row.
judge() {
  local name=$1 cmd=$2 fault=$3 out=$work/$1.out err=$work/$1.err verdict=PASS why=() named=no kept took line w
  local rc=${RC[$name]} limit=${LIMIT[$name]} gone=${GONE[$name]}
  local hosts="($BAD_HOST|${BAD_ADDR//./\\.})"
  took=$(secs "${INJECT[$name]}" "${END[$name]}")
  # 1. It ended in time (link: collbench's processes did; mpirun is not collbench's).
  if [ "$fault" = link ]; then
    awk -v t="$gone" -v l="$limit" 'BEGIN { exit !(t > l) }' &&
      why+=("collbench's processes gone only $gone s after the fault (limit $limit s)")
  elif [ "$rc" = timeout ]; then why+=("still running $took s after the fault (limit $limit s): ended by the test")
  elif awk -v t="$took" -v l="$limit" 'BEGIN { exit !(t > l) }'; then why+=("ended $took s after the fault (limit $limit s)"); fi
  # 2. The faulty rank and its host are named, after the fault, by another process: the faulty
  # rank's own report ("rank 2 (host node2): ... did not finish", written once mpirun's SIGCONT
  # wakes it) does not count.
  line=$({ tail -c +$((OUT_AT[$name] + 1)) "$out"; tail -c +$((ERR_AT[$name] + 1)) "$err"; } |
         sed -E "s/(^|[^a-z])rank $BAD \\(host $hosts\\):/\\1(self):/g" |
         grep -E "\\brank $BAD\\b" | grep -E "\\b$hosts\\b" | head -n 1)
  if [ "$fault" = term ]; then
    named="n/a"
    grep -q "stopped by SIGTERM" "$err" || why+=("no process said \"stopped by SIGTERM\"")
    python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])).get("complete") is not False)' \
      "$work/$name.json" 2>/dev/null || why+=("FILE not written with \"complete\": false")
  elif [ -z "$line" ]; then why+=("rank $BAD and its host ($BAD_HOST or $BAD_ADDR) not named on one line by another process")
  elif [[ "$line" == *mpirun* ]]; then named="yes (mpirun)"
  else named="yes (collbench)"; fi
  # 3. The exit code: 1, or 3 with a verdict naming node2; a rank killed by a signal leaves the
  # status to mpirun: 128 + the signal (137).
  if [ "$fault" = kill ]; then
    [ "$rc" = 137 ] || why+=("exit $rc (expected mpirun's 137 for a rank killed by SIGKILL)")
  elif [ "$fault" = link ]; then :
  elif [ "$fault" = term ]; then [ "$rc" != 0 ] || why+=("exit 0 after SIGTERM")
  elif [ "$rc" != 1 ]; then
    if [ "$rc" = 3 ] && grep -Eq "^\\[FAIL\\] .*\\b$hosts\\b" "$out"; then :
    else why+=("exit $rc (expected 1, or 3 with a [FAIL] naming $BAD_HOST)"); fi
  fi
  # 4. The results so far.
  kept=$(check_results "$cmd" "$work/$name.json" "$out")
  [ "${kept%% *}" = OK ] || why+=("results: ${kept#* }")
  kept=${kept#* }

  [ ${#why[@]} -eq 0 ] || { verdict=FAIL; failed=1; }
  ROW[$name]="| $cmd | $fault | $verdict | $took | $gone | $rc | $named | $kept |"
  say "$name: $verdict: exit $rc, $took s after the fault (limit $limit s; collbench's processes gone after $gone s), culprit named: $named, results: $kept"
  if [ "$verdict" = FAIL ]; then
    for w in "${why[@]}"; do say "  - $w"; done
    say "  last lines of stdout and stderr:"
    tail -n 12 "$out" | sed 's/^/    /'
    tail -n 12 "$err" | sed 's/^/    /'
  fi
}

# wanted CMD FAULT: whether the cell is one of FAULTS_ONLY's words (shell patterns: "*/never").
wanted() {
  local word words
  [ -z "${FAULTS_ONLY:-}" ] && return 0
  read -ra words <<<"$FAULTS_ONLY"  # split, not expanded against the files here
  for word in "${words[@]}"; do
    # shellcheck disable=SC2053  # the word is a pattern
    [[ "$1/$2" == $word ]] && return 0
  done
  return 1
}

total_start=$SECONDS
# The faults while measuring, one cell at a time.
for cmd in run hunt fabric preflight; do
  for fault in kill link stop term; do
    wanted "$cmd" "$fault" || continue
    launch "$cmd-$fault" "$cmd" "$fault"
    if ! inject "$cmd-$fault" "$cmd" "$fault" &&
       { [ -n "${NOT_SPAWNED[$cmd-$fault]}" ] || grep -q 'stopped by SIG' "$work/$cmd-$fault.out" "$work/$cmd-$fault.err"; }; then
      # A stop signal before the fault is not this test's: something outside stopped the launch. A
      # launch that never started collbench is Open MPI's start (SPAWN_LIMIT above).
      say "$cmd-$fault: the launch did not get to collbench, or was stopped from outside before the fault: once more"
      cell_cleanup
      unset "ROW[$cmd-$fault]"
      failed=0
      for name in "${!ROW[@]}"; do [[ "${ROW[$name]}" != *"| FAIL"* ]] || failed=1; done
      launch "$cmd-$fault" "$cmd" "$fault"
      inject "$cmd-$fault" "$cmd" "$fault"
    fi
    if [ -n "${INJECT[$cmd-$fault]:-}" ]; then
      wait_end "$cmd-$fault"
      cell_cleanup
      judge "$cmd-$fault" "$cmd" "$fault"
    fi
    cell_cleanup
  done
done
# The processes that never start: every command at once (each waits out the same join timeout).
never=()
for cmd in run hunt fabric preflight; do
  wanted "$cmd" never || continue
  launch "$cmd-never" "$cmd" never
  never+=("$cmd-never")
done
# Their clock starts when every process that does start is there (each one's join timeout runs from
# its own start).
waiting=("${never[@]}")
while [ ${#waiting[@]} -gt 0 ]; do
  left=()
  for name in "${waiting[@]}"; do
    if [ "$(ranks_left "$name")" -ge $((NODES - 1)) ] || ! kill -0 "${MPID[$name]}" 2>/dev/null ||
       [ "$(secs "${START[$name]}" "$(now)" | cut -d. -f1)" -ge "$START_LIMIT" ]; then
      INJECT[$name]=$(now)
      say "$name: the $((NODES - 1)) collbench processes started $(secs "${START[$name]}" "${INJECT[$name]}") s after the launch"
    else left+=("$name"); fi
  done
  waiting=("${left[@]}")
  [ ${#waiting[@]} -eq 0 ] || sleep 0.1
done
if [ ${#never[@]} -gt 0 ]; then
  wait_end "${never[@]}"
  cell_cleanup
  for name in "${never[@]}"; do judge "$name" "${name%-never}" never; done
fi

echo
echo "| command | fault | outcome | seconds | ranks gone (s) | exit | culprit named | results kept |"
echo "|---|---|---|---|---|---|---|---|"
for cmd in run hunt fabric preflight; do
  for fault in kill link stop term never; do
    [ -z "${ROW[$cmd-$fault]:-}" ] || echo "${ROW[$cmd-$fault]}"
  done
done
echo
say "seconds: from the fault to the end (never: from the start of the processes that started), limit $((T + MARGIN)) s (never: $(( (T > 30 ? T : 30) + MARGIN )) s); ranks gone: when the last collbench process had left; --timeout $T; whole test $((SECONDS - total_start)) s"
if [ "$failed" -ne 0 ]; then say "FAIL: some cells failed"; exit 1; fi
say "PASS: every cell"
