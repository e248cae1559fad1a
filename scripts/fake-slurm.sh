#!/usr/bin/env bash
# fake-slurm.sh — a real Slurm (Debian's slurm-wlm 22.05) on the fake cluster of fake-cluster.sh,
# so sbatch files (e.g. the one `collbench launch slurm` writes) can be tested without a cluster.
#
# What `up N` starts, all as root, all configured from files in the state dir only:
#   - the fake cluster: scripts/fake-cluster.sh up N (namespaces cb-node<I>, 198.18.0.(10+I));
#   - munged with a key and a socket of its own (never the machine's /etc/munge or /run/munge);
#   - slurmctld in the root namespace, in a UTS namespace of its own with hostname "ctl" (slurmctld
#     only starts on the host named by SlurmctldHost), listening on 198.18.0.1 for the nodes;
#   - one slurmd per node, inside the node's network namespace and a UTS namespace with hostname
#     node<I>, with its own spool dir, pid file and log (%n in slurm.conf).
# No accounting (no slurmdbd: sacct does not work; `scontrol show job` has ExitCode for MinJobAge
# seconds), no cgroups (proctrack/linuxproc, task/none). Non-default ports (16817/16818), so a
# real Slurm on this machine is not disturbed. Client commands need SLURM_CONF (see `env`).
#
# Usage (as root):
#   scripts/fake-slurm.sh up N        fake cluster of N nodes (1..64) + munge + slurmctld + N slurmd;
#                                     waits until sinfo shows all N nodes idle (cleans leftovers first)
#   scripts/fake-slurm.sh down        stop every daemon started here, fake-cluster down (idempotent)
#   scripts/fake-slurm.sh status      daemons, sinfo, squeue, where the logs are
#   scripts/fake-slurm.sh env         print `export SLURM_CONF=...` (eval it to use sinfo/sbatch/srun)
#   scripts/fake-slurm.sh logs [L]    last L (default 30) lines of every daemon's log
#
# Example:
#   scripts/fake-slurm.sh up 4 && eval "$(scripts/fake-slurm.sh env)"
#   sbatch --wait job.sbatch; echo "job exit $?"
#   scripts/fake-slurm.sh down
#
# Exit codes: 0 done; 1 failed (the reason, and for `up` the daemons' log tails, on stderr);
#   2 bad usage or not root; 77 a required package is missing (the reason is printed).
# Packages (Debian 12): apt-get install -y slurmctld slurmd slurm-client munge
#   (slurm-wlm is the metapackage of the three; slurm-wlm-basic-plugins comes with them), plus
#   iproute2 and util-linux for fake-cluster.sh.
# Environment: FS_STATE_DIR (default /run/collbench-fake-slurm: slurm.conf, munge key and socket,
#   spool dirs, pid files, logs in FS_STATE_DIR/log), FS_UP_TIMEOUT (seconds `up` waits for the
#   nodes to be idle, default 60), FS_PROLOG (an executable file: slurm.conf's Prolog, with
#   PrologFlags=Alloc, so each node runs it when a job is allocated there), FC_STATE_DIR (passed on
#   to fake-cluster.sh).
#
# Findings with Debian 12's packages (slurm-wlm 22.05.8, Open MPI 4.1.4, PMIx 4.2.2), 4 nodes:
#   - `srun --mpi=list` offers pmix (plugin pmix_v4, in slurm-wlm-basic-plugins), and in an sbatch
#     allocation `srun --mpi=pmix collbench run --backend mpi ...` runs one rank per fake node with
#     no Open MPI variables at all: Debian's Open MPI uses the same external PMIx and talks to
#     slurmstepd's PMIx server. It needs TmpFS per node (below): with the default /tmp every
#     node's slurmstepd makes the same /tmp/spmix_appdir_<uid>_<job>.<step> and all but one fail.
#   - `mpirun` inside the allocation works too: Open MPI's Slurm launcher starts one orted per node
#     with srun and the ranks land on node0..node(N-1). As root it needs OMPI_ALLOW_RUN_AS_ROOT=1
#     and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (mpirun refuses root, exit 1, without them). Restricting
#     the interfaces (OMPI_MCA_btl_tcp_if_include / oob_tcp_if_include = 198.18.0.0/24) works but is
#     not needed here: a node's namespace has only lo and eth0, and Open MPI skips lo by itself.
#   - srun --cpu-bind=... prints "cluster configuration lacks support for cpu binding" (task/none);
#     harmless. Finished jobs: `sbatch --wait` returns the job's exit code (collbench's 2 -> 2), and
#     `scontrol show job ID` shows ExitCode=2:0 for MinJobAge seconds.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
FC="$HERE/fake-cluster.sh"
STATE_DIR="${FS_STATE_DIR:-/run/collbench-fake-slurm}"
UP_TIMEOUT="${FS_UP_TIMEOUT:-60}"
CONF="$STATE_DIR/slurm.conf"
LOG_DIR="$STATE_DIR/log"
MUNGE_SOCKET="$STATE_DIR/munge/munge.socket"
NET=198.18.0          # must match fake-cluster.sh's lane 0, the only one Slurm runs on
export FC_LANE=0
GATEWAY="$NET.1"
FIRST_HOST=10
CTLD_PORT=16817
SLURMD_PORT=16818
PACKAGES="slurmctld slurmd slurm-client munge"

say() { echo "fake-slurm: $*"; }
die() { echo "fake-slurm: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

require_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "fake-slurm: must run as root (network namespaces, daemons as root); try: sudo $0 $*" >&2
    exit 2
  fi
}

require_packages() {
  local missing=() c
  for c in slurmctld slurmd sinfo sbatch srun scontrol munged munge unmunge ip unshare nsenter setsid; do
    command -v "$c" >/dev/null 2>&1 || missing+=("$c")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "fake-slurm: SKIP: not installed: ${missing[*]}; needs: apt-get install -y $PACKAGES iproute2 util-linux" >&2
    exit 77
  fi
}

# --- processes ----------------------------------------------------------------------------------
# Every daemon runs in the foreground (-D/-F) of a shell that writes its own pid ($$) to
# $STATE_DIR/pids/NAME and then exec's it (nsenter, unshare and exec keep the pid), so the pid is
# the daemon's from the first moment, whatever the daemon does with its own pid files.
start_daemon() {  # NAME WRAPPER... -- SHELL-COMMAND (WRAPPER: e.g. nsenter --net=... unshare --uts)
  local name=$1; shift
  local wrap=()
  while [ "$1" != "--" ]; do wrap+=("$1"); shift; done
  shift
  # setsid: own session, so a caller's Ctrl-C or timeout(1) (which signals its process group)
  # does not take the daemons with it; down ends them by pid.
  # shellcheck disable=SC2016  # $$ and $1 are the inner shell's
  setsid "${wrap[@]}" sh -c 'echo $$ >"$0"; eval "$1"' "$STATE_DIR/pids/$name" "$1" \
    </dev/null >>"$LOG_DIR/$name.out" 2>&1 &
}

# pid of daemon NAME if it is alive and still the program we started (comm matches), else empty.
live_pid() {  # NAME PROGRAM
  local f="$STATE_DIR/pids/$1" pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f" 2>/dev/null || true)
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  [ "$(cat "/proc/$pid/comm" 2>/dev/null || true)" = "$2" ] && echo "$pid"
  return 0
}

stop_daemons() {  # PROGRAM NAME...: TERM to all at once, KILL what is left after 5 s
  local prog=$1 name pid pids=() left
  shift
  for name in "$@"; do
    pid=$(live_pid "$name" "$prog")
    [ -n "$pid" ] && pids+=("$pid")
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 1 50); do
    left=()
    for pid in "${pids[@]}"; do [ -d "/proc/$pid" ] && left+=("$pid"); done
    [ ${#left[@]} -eq 0 ] && return 0
    sleep 0.1
  done
  say "$prog (pid ${left[*]}) did not stop on TERM in 5 s; KILL"
  kill -KILL "${left[@]}" 2>/dev/null || true
}

# --- config -------------------------------------------------------------------------------------
write_conf() {  # N
  local n=$1 cpus i
  cpus=$(nproc)   # every fake node is this whole machine: slurmd drains a node configured bigger
  cat >"$CONF" <<EOF
# Written by scripts/fake-slurm.sh for the fake cluster ($n nodes). Self-contained: every path is
# under $STATE_DIR.
ClusterName=cbfake
SlurmctldHost=ctl($GATEWAY)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$STATE_DIR/spool/ctld
SlurmdSpoolDir=$STATE_DIR/spool/%n
SlurmctldPidFile=$STATE_DIR/run/slurmctld.pid
SlurmdPidFile=$STATE_DIR/run/slurmd-%n.pid
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd-%n.log
PlugStackConfig=$STATE_DIR/plugstack.conf
# All nodes share one filesystem: srun --mpi=pmix's per-step directories (under TmpFS) must differ.
TmpFS=$STATE_DIR/tmp/%n
# No cgroups here: track processes by parent pid, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SwitchType=switch/none
MpiDefault=none
# No accounting.
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# A node that restarts comes back by itself; finished jobs stay visible to scontrol for 5 minutes.
ReturnToService=2
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
KillWait=5
MailProg=/bin/true
EOF
  if [ -n "${FS_PROLOG:-}" ]; then
    # Alloc: at the allocation, before the batch script. Without it the Prolog runs inside the first
    # step's launch, and one longer than MessageTimeout (10 s) fails that step.
    printf 'Prolog=%s\nPrologFlags=Alloc\n' "$FS_PROLOG" >>"$CONF"
  fi
  for ((i = 0; i < n; i++)); do
    echo "NodeName=node$i NodeAddr=$NET.$((FIRST_HOST + i)) CPUs=$cpus State=UNKNOWN" >>"$CONF"
  done
  echo "PartitionName=fake Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$CONF"
  : >"$STATE_DIR/plugstack.conf"   # not /etc/slurm/plugstack.conf
}

# --- commands -----------------------------------------------------------------------------------
cmd_logs() {
  local lines=${1:-30} f
  [ -d "$LOG_DIR" ] || { say "no logs ($LOG_DIR does not exist)"; return 0; }
  for f in "$LOG_DIR"/*; do
    [ -s "$f" ] || continue
    # NAME.out is the daemon's stdout/stderr: mostly a copy of NAME.log when that has lines.
    case "$f" in *.out) [ -s "${f%.out}.log" ] && continue ;; esac
    echo "----- $f (last $lines lines) -----"
    tail -n "$lines" "$f"
  done
}

cmd_down() {
  local f names=() pid
  if [ -d "$STATE_DIR/pids" ]; then
    for f in "$STATE_DIR"/pids/slurmd-*; do [ -e "$f" ] && names+=("$(basename "$f")"); done
    # slurmd first (so none re-registers), then slurmctld, then munged which both need.
    [ ${#names[@]} -eq 0 ] || stop_daemons slurmd "${names[@]}"
    stop_daemons slurmctld slurmctld
    stop_daemons munged munged
  fi
  # Job steps (slurmstepd, ranks) live in the node namespaces: fake-cluster down ends them.
  "$FC" down >/dev/null
  # Anything still running with our config (e.g. a daemon whose pid file was lost) is reported,
  # not killed: only pids we recorded are ours for sure.
  for pid in $(pgrep -f -- "$STATE_DIR/" 2>/dev/null || true); do
    [ "$pid" = "$$" ] || say "warning: still running with $STATE_DIR in its command line: pid $pid ($(cat "/proc/$pid/comm" 2>/dev/null))"
  done
  rm -rf "$STATE_DIR"
  say "down"
}

wait_idle() {  # N
  local n=$1 deadline=$((SECONDS + UP_TIMEOUT)) idle=0 states="" i
  while [ "$SECONDS" -lt "$deadline" ]; do
    states=$(timeout 10 sinfo -h -N -o '%N %t' 2>&1 || true)
    idle=$(echo "$states" | awk '$2 == "idle"' | sort -u | wc -l)
    [ "$idle" -eq "$n" ] && return 0
    # A daemon that died will not come back: fail now rather than at the deadline.
    [ -n "$(live_pid slurmctld slurmctld)" ] || { echo "fake-slurm: slurmctld exited" >&2; return 1; }
    for ((i = 0; i < n; i++)); do
      [ -n "$(live_pid "slurmd-node$i" slurmd)" ] || { echo "fake-slurm: slurmd of node$i exited" >&2; return 1; }
    done
    sleep 0.5
  done
  echo "fake-slurm: after ${UP_TIMEOUT}s only $idle of $n nodes are idle; sinfo says:" >&2
  awk '{ print "  " $0 }' <<<"$states" >&2
  return 1
}

up_failed() {
  echo "fake-slurm: up failed: $*" >&2
  cmd_logs 25 >&2
  echo "fake-slurm: logs in $LOG_DIR; daemons left running for inspection: run $0 down" >&2
  exit 1
}

cmd_up() {
  local n=${1:-} i t0=$SECONDS
  if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$n" -gt 64 ]; then
    echo "fake-slurm: up: N must be 1..64, got '$n'" >&2; exit 2
  fi
  # Leftovers of an earlier up (and the fake cluster) go first.
  cmd_down >/dev/null
  "$FC" up "$n" >/dev/null || die "fake-cluster up $n failed"

  mkdir -p "$STATE_DIR" "$LOG_DIR" "$STATE_DIR/pids" "$STATE_DIR/run" "$STATE_DIR/spool/ctld" "$STATE_DIR/munge"
  chmod 755 "$STATE_DIR"
  for ((i = 0; i < n; i++)); do mkdir -p "$STATE_DIR/spool/node$i" "$STATE_DIR/tmp/node$i"; done
  write_conf "$n"
  export SLURM_CONF="$CONF"

  # munge: our own key (1 KiB of random bytes, as mungekey makes), socket, pid and seed file.
  dd if=/dev/urandom of="$STATE_DIR/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$STATE_DIR/munge/munge.key"
  start_daemon munged -- "exec munged -F --force --socket=$MUNGE_SOCKET \
    --key-file=$STATE_DIR/munge/munge.key --pid-file=$STATE_DIR/munge/munged.pid \
    --seed-file=$STATE_DIR/munge/munged.seed --log-file=$LOG_DIR/munged.log"
  for _ in $(seq 1 50); do
    munge -n -S "$MUNGE_SOCKET" 2>/dev/null | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1 && break
    sleep 0.1
  done
  munge -n -S "$MUNGE_SOCKET" 2>/dev/null | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1 ||
    up_failed "munged does not answer on $MUNGE_SOCKET"

  # slurmctld: -i ignores state files' errors (there are none: StateSaveLocation is new).
  start_daemon slurmctld unshare --uts -- "hostname ctl && exec slurmctld -D -i -f $CONF"
  for ((i = 0; i < n; i++)); do
    # nsenter, not `ip netns exec`: that one mounts a fresh /sys, without /sys/fs/cgroup, and
    # slurmd 22.05 loads its cgroup plugin (and fails without it) even with cgroup-free plugins.
    start_daemon "slurmd-node$i" nsenter --net="/run/netns/cb-node$i" unshare --uts -- \
      "hostname node$i && exec slurmd -D -f $CONF -N node$i"
  done
  wait_idle "$n" || up_failed "not all $n nodes became idle"
  say "up: $n nodes idle in $((SECONDS - t0)) s; partition 'fake' (default), $(nproc) CPUs per node"
  say "use it: export SLURM_CONF=$CONF   (or: eval \"\$($0 env)\")"
  say "logs: $LOG_DIR (slurmctld.log, slurmd-node<I>.log, munged.log, *.out)"
}

cmd_status() {
  if [ ! -f "$CONF" ]; then say "down"; return 0; fi
  local f name prog pid
  "$FC" status || true
  for f in "$STATE_DIR"/pids/*; do
    [ -e "$f" ] || continue
    name=$(basename "$f"); prog=${name%%-node*}
    pid=$(live_pid "$name" "$prog")
    if [ -n "$pid" ]; then printf '%-14s running, pid %s\n' "$name" "$pid"; else printf '%-14s NOT RUNNING\n' "$name"; fi
  done
  export SLURM_CONF="$CONF"
  timeout 10 sinfo -N -l || true
  timeout 10 squeue || true
  say "SLURM_CONF=$CONF; logs in $LOG_DIR"
}

main() {
  local cmd=${1:-}
  [ -n "$cmd" ] || usage
  shift
  case "$cmd" in
    -h|--help|help) usage ;;
    env) echo "export SLURM_CONF=$CONF"; return 0 ;;
  esac
  require_root "$cmd" "$@"
  case "$cmd" in
    up) require_packages; cmd_up "$@" ;;
    down) cmd_down ;;
    status) cmd_status ;;
    logs) cmd_logs "$@" ;;
    *) echo "fake-slurm: unknown command '$cmd'" >&2; usage ;;
  esac
}

main "$@"
