#!/usr/bin/env bash
# fake-cluster.sh — N fake "nodes" on one machine, for multi-node tests of collbench without a cluster.
#
# Each node is a network namespace with its own address, a veth pair into a bridge in the root
# namespace, and its own hostname (a UTS namespace made by the launch agent), so Open MPI and
# gethostname() see N different hosts. Open MPI launches its daemons into the namespaces through
# an rsh agent script (used instead of ssh). Any node, or only the traffic between two nodes, can
# be rate limited with tc. Needs root. Addresses are in 198.18.0.0/15 only (RFC 2544's range for
# network benchmarking); no traffic leaves this machine.
#
# Usage (as root):
#   scripts/fake-cluster.sh up N [--prefix NAME]   N nodes (1..200); cleans leftovers first
#   scripts/fake-cluster.sh down                   remove everything (idempotent, safe to repeat)
#   scripts/fake-cluster.sh shape node I RATE      tbf on node I: its egress and its ingress
#   scripts/fake-cluster.sh shape link I J RATE    htb + u32 filters: only traffic between I and J,
#                                                  in both directions (each node's egress to the other)
#   scripts/fake-cluster.sh shape loopback I RATE  tbf on node I's lo: its ranks' traffic to each
#                                                  other over TCP (a slow node-local check)
#   scripts/fake-cluster.sh unshape                remove all shaping
#   scripts/fake-cluster.sh hostfile PATH SLOTS    write an Open MPI hostfile (node addresses,
#                                                  slots=SLOTS); mpirun-args then names this file
#   scripts/fake-cluster.sh mpirun-args            print the mpirun options for the fake cluster
#   scripts/fake-cluster.sh status                 nodes, addresses, links, qdiscs
#
#   Nodes are numbered 0..N-1: node I is namespace <prefix>-node<I>, hostname node<I>, address
#   198.18.0.(10+I)/24; the root namespace has 198.18.0.1 on bridge <prefix>br0 (default prefix
#   "cb": bridge cbbr0, host-side veths cbh<I>, node-side veth eth0 inside each namespace).
#   RATE is tc syntax: 200mbit, 1gbit, 500kbit, 10mbps ... A latency fault is a very low rate
#   (netem is not available on these kernels): serialization delay dominates.
#
# Example:
#   scripts/fake-cluster.sh up 4
#   scripts/fake-cluster.sh shape node 2 200mbit
#   mpirun $(scripts/fake-cluster.sh mpirun-args) -np 8 --map-by node \
#       build/collbench run --backend mpi --ops all_reduce -b 1M -e 16M --no-progress
#   scripts/fake-cluster.sh down
#
# mpirun-args prints (one line, no quoting needed):
#   --mca plm_rsh_agent <state>/agent --mca plm_rsh_no_tree_spawn 1 --hostfile <hostfile>
#   --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include 198.18.0.0/24 --mca oob_tcp_if_include 198.18.0.0/24
#   [--allow-run-as-root] --oversubscribe --mca mpi_yield_when_idle 1 [-x LD_PRELOAD=<state>/yield_sleep.so]
# (the ranks' sched_yield as a 50 us sleep, scripts/lib/yield_sleep.c: FC_YIELD_SLEEP=0 leaves it out)
# The agent gets "<host> <command...>" from Open MPI, finds the host's namespace, and runs the
# command (joined by spaces and interpreted by sh, as ssh's remote shell would) as
#   ip netns exec <ns> unshare --uts sh -c 'hostname node<I>; eval "<command>"'
#
#   scripts/fake-cluster.sh name ns|veth|addr I   node I's namespace, host-side veth or address
#   scripts/fake-cluster.sh name bridge            the bridge
#
# Up to four clusters can be up at once, one per lane (FC_LANE=0, the default, to 3): lane L has its
# own state folder, addresses 198.18.L.0/24 and default prefix ("cb", lane L "cbL"), so tests run side
# by side. Everything above is lane 0's; `name` prints what a lane's test must use.
#
# Environment: FC_LANE (0 to 3), FC_STATE_DIR (default /run/collbench-fake-cluster, lane L
# /run/collbench-fake-cluster-L), FC_TBF_BURST (tbf burst, bytes; default max(rate x 5 ms, 16 KiB)).
set -euo pipefail

LANE=${FC_LANE:-0}
[[ "$LANE" =~ ^[0-3]$ ]] || { echo "fake-cluster: FC_LANE must be 0, 1, 2 or 3, not '$LANE'" >&2; exit 2; }
if [ "$LANE" = 0 ]; then
  STATE_DIR="${FC_STATE_DIR:-/run/collbench-fake-cluster}"
  DEFAULT_PREFIX=cb
else
  STATE_DIR="${FC_STATE_DIR:-/run/collbench-fake-cluster-$LANE}"
  DEFAULT_PREFIX=cb$LANE
fi
NET=198.18.$LANE        # /24 inside 198.18.0.0/15; never anything else
SUBNET="$NET.0/24"
GATEWAY="$NET.1"
FIRST_HOST=10
DEFAULT_SLOTS=2

die() { echo "fake-cluster: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

require_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "fake-cluster: must run as root (creates network namespaces, veths, a bridge and tc qdiscs); try: sudo $0 $*" >&2
    exit 2
  fi
  command -v ip >/dev/null || die "'ip' (iproute2) not found"
}

valid_prefix() { [[ "$1" =~ ^[a-z][a-z0-9]{0,7}$ ]] || die "--prefix must be 1-8 characters [a-z0-9], starting with a letter: '$1'"; }

load_state() {
  [ -f "$STATE_DIR/state" ] || die "no fake cluster is up (no $STATE_DIR/state); run: $0 up N"
  # shellcheck disable=SC1091
  . "$STATE_DIR/state"
  : "${NODES:?}" "${PREFIX:?}"
}

ns_of()   { echo "$PREFIX-node$1"; }
hveth()   { echo "${PREFIX}h$1"; }
addr_of() { echo "$NET.$((FIRST_HOST + $1))"; }
bridge()  { echo "${PREFIX}br0"; }

check_node() {
  if ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -ge "$NODES" ]; then die "node index '$1' out of range 0..$((NODES - 1))"; fi
}

# --- teardown -----------------------------------------------------------------------------------
# Removes only what carries our prefix: namespaces <prefix>-node*, links <prefix>h*, bridge <prefix>br0.
teardown_prefix() {
  local p=$1 ns pid link
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$p-node[0-9]+$" || true); do
    # Stray daemons/ranks still inside (e.g. an interrupted mpirun): end them by pid.
    for pid in $(ip netns pids "$ns" 2>/dev/null || true); do kill -TERM "$pid" 2>/dev/null || true; done
    for _ in 1 2 3 4 5 6 7 8 9 10; do [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break; sleep 0.2; done
    for pid in $(ip netns pids "$ns" 2>/dev/null || true); do kill -KILL "$pid" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
  done
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "^${p}h[0-9]+$" || true); do
    ip link del "$link" 2>/dev/null || true
  done
  if ip link show "${p}br0" >/dev/null 2>&1; then ip link del "${p}br0" 2>/dev/null || true; fi
}

cmd_down() {
  local p=$DEFAULT_PREFIX
  if [ -f "$STATE_DIR/state" ]; then
    # shellcheck disable=SC1091
    p=$(. "$STATE_DIR/state"; echo "${PREFIX:-$DEFAULT_PREFIX}")
  fi
  [ $# -ge 2 ] && [ "$1" = "--prefix" ] && p=$2
  valid_prefix "$p"
  teardown_prefix "$p"
  rm -rf "$STATE_DIR"
  echo "fake-cluster: down (prefix $p)"
}

# --- bring-up -----------------------------------------------------------------------------------
write_agent() {
  cat >"$STATE_DIR/agent" <<EOF
#!/bin/sh
# rsh agent for Open MPI (--mca plm_rsh_agent): "<host> <command...>" -> run the command inside
# that fake node's network namespace, in a fresh UTS namespace with the node's hostname.
NODES_FILE="$STATE_DIR/nodes"
EOF
  cat >>"$STATE_DIR/agent" <<'EOF'
while [ $# -gt 0 ]; do case "$1" in -*) shift ;; *) break ;; esac; done   # ssh-style options, if any
[ $# -ge 1 ] || { echo "fake-cluster agent: usage: agent HOST COMMAND..." >&2; exit 255; }
host=$1; shift
line=$(awk -v h="$host" '$1 == h || $3 == h { print; exit }' "$NODES_FILE" 2>/dev/null)
[ -n "$line" ] || { echo "fake-cluster agent: unknown host '$host' (not in $NODES_FILE)" >&2; exit 255; }
set -- "$line" "$@"
ns=$(echo "$1" | awk '{print $2}'); name=$(echo "$1" | awk '{print $3}'); shift
# Like ssh: the arguments are joined by spaces and interpreted by a shell (Open MPI quotes the
# orted command line for that shell, e.g. the HNP URI "...;tcp://..." is in double quotes).
cmd="$*"
[ -n "$cmd" ] || cmd='exec sh'
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$1" || exit 255; eval "$2"' fake-node "$name" "$cmd"
EOF
  chmod 755 "$STATE_DIR/agent"
}

write_hostfile() {   # PATH SLOTS
  local path=$1 slots=$2 i
  [[ "$slots" =~ ^[1-9][0-9]*$ ]] || die "SLOTS must be a positive integer: '$slots'"
  {
    echo "# fake cluster ($NODES nodes, prefix $PREFIX) - written by fake-cluster.sh"
    for ((i = 0; i < NODES; i++)); do echo "$(addr_of "$i") slots=$slots"; done
  } >"$path"
}

cmd_up() {
  local n=${1:-} p=$DEFAULT_PREFIX i ns hv br
  shift || true
  while [ $# -gt 0 ]; do
    case "$1" in
      --prefix) p=${2:-}; shift 2 || die "--prefix needs a value" ;;
      *) die "up: unknown argument '$1'" ;;
    esac
  done
  if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$n" -gt 200 ]; then die "up: N must be 1..200, got '$n'"; fi
  valid_prefix "$p"
  ip netns list >/dev/null 2>&1 || die "'ip netns' is not usable here"

  # Leftovers: the previous cluster (whatever its prefix) and anything with this prefix.
  cmd_down >/dev/null 2>&1 || true
  teardown_prefix "$p"
  if ip -o addr show | grep -q " $GATEWAY/"; then
    die "$GATEWAY is already assigned to an interface not made by this script; refusing to continue"
  fi

  NODES=$n PREFIX=$p
  mkdir -p "$STATE_DIR"
  chmod 755 "$STATE_DIR"
  printf 'NODES=%s\nPREFIX=%s\nSUBNET=%s\nHOSTFILE=%s\n' "$NODES" "$PREFIX" "$SUBNET" "$STATE_DIR/hostfile" >"$STATE_DIR/state"
  : >"$STATE_DIR/nodes"
  : >"$STATE_DIR/shapes"

  br=$(bridge)
  ip link add "$br" type bridge
  ip addr add "$GATEWAY/24" dev "$br"
  ip link set "$br" up
  for ((i = 0; i < NODES; i++)); do
    ns=$(ns_of "$i"); hv=$(hveth "$i")
    ip netns add "$ns"
    ip link add "$hv" type veth peer name "${PREFIX}n$i"
    ip link set "${PREFIX}n$i" netns "$ns"
    ip -n "$ns" link set "${PREFIX}n$i" name eth0
    ip -n "$ns" addr add "$(addr_of "$i")/24" dev eth0
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
    ip link set "$hv" master "$br"
    ip link set "$hv" up
    echo "$(addr_of "$i") $ns node$i" >>"$STATE_DIR/nodes"
  done
  write_agent
  write_hostfile "$STATE_DIR/hostfile" "$DEFAULT_SLOTS"
  build_yield_sleep

  # Check that every node reaches the bridge address (STP is off, so ports forward at once).
  local ok
  if command -v ping >/dev/null; then
    for ((i = 0; i < NODES; i++)); do
      ok=0
      for _ in $(seq 1 30); do
        if ip netns exec "$(ns_of "$i")" ping -c1 -W1 -q "$GATEWAY" >/dev/null 2>&1; then ok=1; break; fi
        sleep 0.1
      done
      [ "$ok" = 1 ] || die "node$i cannot reach $GATEWAY"
    done
  fi
  echo "fake-cluster: up: $NODES nodes (prefix $PREFIX), bridge $br $GATEWAY/24, nodes $(addr_of 0)..$(addr_of $((NODES - 1)))"
  echo "fake-cluster: state in $STATE_DIR; hostfile $STATE_DIR/hostfile (slots=$DEFAULT_SLOTS)"
}

# --- shaping ------------------------------------------------------------------------------------
# Desired shaping lives in $STATE_DIR/shapes ("node I RATE" / "link I J RATE"); every change
# rebuilds the qdiscs of the affected nodes from it, so node and link limits combine:
#   node side (eth0 in the namespace, the node's egress): tbf when only the node is limited;
#     htb when links are, with classes 1:1 (node rate) > 1:2 (default) and 1:(100+peer) per link
#     (u32 match ip dst <peer>); without a node limit unclassified traffic is not shaped (default 0).
#   bridge side (<prefix>h<I>, the node's ingress): tbf with the node rate.
rate_bits() {  # tc rate -> bit/s (integer)
  awk -v r="$1" 'BEGIN {
    if (match(r, /^[0-9]+(\.[0-9]+)?/) == 0) exit 1
    v = substr(r, 1, RLENGTH); u = tolower(substr(r, RLENGTH + 1))
    m["bit"]=1; m["kbit"]=1e3; m["mbit"]=1e6; m["gbit"]=1e9; m["tbit"]=1e12
    m["bps"]=8; m["kbps"]=8e3; m["mbps"]=8e6; m["gbps"]=8e9; m["tbps"]=8e12
    m["kibit"]=1024; m["mibit"]=1048576; m["gibit"]=1073741824
    m["kibps"]=8192; m["mibps"]=8388608; m["gibps"]=8589934592
    if (u == "") u = "bit"
    if (!(u in m)) exit 1
    printf "%.0f\n", v * m[u] }'
}

tbf_args() {  # RATE [MIN_BURST] -> "rate R burst B latency L"
  local bits burst min=${2:-16384}
  bits=$(rate_bits "$1") || die "bad RATE '$1' (examples: 200mbit, 1gbit, 500kbit, 10mbps)"
  [ "$bits" -ge 8000 ] || die "RATE '$1' is below 8kbit"
  burst=${FC_TBF_BURST:-$(( bits / 8 / 200 ))}
  [ "$burst" -ge "$min" ] || burst=$min
  echo "rate $1 burst $burst latency 100ms"
}

apply_node() {  # I: rebuild both qdiscs of node I from the shapes file
  local i=$1 ns hv node_rate="" lo_rate="" links
  ns=$(ns_of "$i"); hv=$(hveth "$i")
  node_rate=$(awk -v i="$i" '$1 == "node" && $2 == i { r = $3 } END { print r }' "$STATE_DIR/shapes")
  # "peer rate" for every link shape that involves i (last one wins per peer)
  links=$(awk -v i="$i" '$1 == "link" && ($2 == i || $3 == i) { p = ($2 == i) ? $3 : $2; r[p] = $4 }
                         END { for (p in r) print p, r[p] }' "$STATE_DIR/shapes" | sort -n)

  ip -n "$ns" link set eth0 up  # (no-op; fails early if the namespace is gone)
  tc -n "$ns" qdisc del dev eth0 root 2>/dev/null || true
  tc -n "$ns" qdisc del dev lo root 2>/dev/null || true
  tc qdisc del dev "$hv" root 2>/dev/null || true
  lo_rate=$(awk -v i="$i" '$1 == "loopback" && $2 == i { r = $3 } END { print r }' "$STATE_DIR/shapes")
  if [ -n "$lo_rate" ]; then
    # shellcheck disable=SC2046
    # tbf drops a packet larger than its burst for good: lo's MTU is 64 KiB.
    tc -n "$ns" qdisc add dev lo root tbf $(tbf_args "$lo_rate" 131072)
  fi

  if [ -n "$node_rate" ]; then
    # shellcheck disable=SC2046
    tc qdisc add dev "$hv" root tbf $(tbf_args "$node_rate")
  fi
  if [ -z "$links" ]; then
    if [ -n "$node_rate" ]; then
      # shellcheck disable=SC2046
      tc -n "$ns" qdisc add dev eth0 root tbf $(tbf_args "$node_rate")
    fi
    return 0
  fi
  local parent=1: peer rate
  if [ -n "$node_rate" ]; then
    tc -n "$ns" qdisc add dev eth0 root handle 1: htb default 2
    tc -n "$ns" class add dev eth0 parent 1: classid 1:1 htb rate "$node_rate" ceil "$node_rate" quantum 60000
    tc -n "$ns" class add dev eth0 parent 1:1 classid 1:2 htb rate "$node_rate" ceil "$node_rate" quantum 60000
    parent=1:1
  else
    tc -n "$ns" qdisc add dev eth0 root handle 1: htb default 0
  fi
  while read -r peer rate; do
    [ -n "$peer" ] || continue
    rate_bits "$rate" >/dev/null || die "bad RATE '$rate'"
    tc -n "$ns" class add dev eth0 parent "$parent" classid "1:$((100 + peer))" htb rate "$rate" ceil "$rate" quantum 60000
    tc -n "$ns" filter add dev eth0 parent 1: protocol ip prio 1 u32 \
      match ip dst "$(addr_of "$peer")/32" flowid "1:$((100 + peer))"
  done <<<"$links"
}

cmd_shape() {
  load_state
  case "${1:-}" in
    node)
      [ $# -eq 3 ] || die "usage: shape node I RATE"
      check_node "$2"; rate_bits "$3" >/dev/null || die "bad RATE '$3' (examples: 200mbit, 1gbit, 500kbit)"
      echo "node $2 $3" >>"$STATE_DIR/shapes"
      apply_node "$2"
      echo "fake-cluster: node$2 ($(addr_of "$2")) limited to $3 in and out"
      ;;
    link)
      [ $# -eq 4 ] || die "usage: shape link I J RATE"
      check_node "$2"; check_node "$3"; [ "$2" != "$3" ] || die "shape link: I and J must differ"
      rate_bits "$4" >/dev/null || die "bad RATE '$4' (examples: 200mbit, 1gbit, 500kbit)"
      echo "link $2 $3 $4" >>"$STATE_DIR/shapes"
      apply_node "$2"; apply_node "$3"
      echo "fake-cluster: link node$2 <-> node$3 limited to $4 each way (htb + u32 dst filter)"
      ;;
    loopback)
      [ $# -eq 3 ] || die "usage: shape loopback I RATE"
      check_node "$2"; rate_bits "$3" >/dev/null || die "bad RATE '$3' (examples: 200mbit, 1gbit, 500kbit)"
      echo "loopback $2 $3" >>"$STATE_DIR/shapes"
      apply_node "$2"
      echo "fake-cluster: node$2's loopback limited to $3"
      ;;
    *) die "usage: shape node I RATE | shape link I J RATE | shape loopback I RATE" ;;
  esac
}

cmd_unshape() {
  load_state
  local i
  : >"$STATE_DIR/shapes"
  for ((i = 0; i < NODES; i++)); do
    tc -n "$(ns_of "$i")" qdisc del dev eth0 root 2>/dev/null || true
    tc -n "$(ns_of "$i")" qdisc del dev lo root 2>/dev/null || true
    tc qdisc del dev "$(hveth "$i")" root 2>/dev/null || true
  done
  echo "fake-cluster: all shaping removed"
}

# --- launcher -----------------------------------------------------------------------------------
cmd_hostfile() {
  load_state
  [ $# -eq 2 ] || die "usage: hostfile PATH SLOTS"
  write_hostfile "$1" "$2"
  local abs
  abs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  sed -i "s|^HOSTFILE=.*|HOSTFILE=$abs|" "$STATE_DIR/state"
  echo "fake-cluster: wrote $abs ($NODES nodes, slots=$2)" >&2
}

# The ranks' sched_yield as a short sleep (scripts/lib/yield_sleep.c), so that waiting ranks leave
# the shared cores to those with work: built into the state folder when a C compiler is here and
# FC_YIELD_SLEEP is not 0; mpirun-args preloads it where it was built.
build_yield_sleep() {
  [ "${FC_YIELD_SLEEP:-1}" != 0 ] && command -v cc >/dev/null || return 0
  local src
  src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/yield_sleep.c
  cc -O2 -shared -fPIC -o "$STATE_DIR/yield_sleep.so" "$src" ||
    die "cannot build $src (set FC_YIELD_SLEEP=0 to run without it)"
}

cmd_mpirun_args() {
  load_state
  local args=(--mca plm_rsh_agent "$STATE_DIR/agent" --mca plm_rsh_no_tree_spawn 1
              --hostfile "${HOSTFILE:-$STATE_DIR/hostfile}"
              --mca pml ob1 --mca btl "tcp,self" --mca btl_tcp_if_include "$SUBNET" --mca oob_tcp_if_include "$SUBNET")
  [ "$(id -u)" -eq 0 ] && args+=(--allow-run-as-root)
  args+=(--oversubscribe --mca mpi_yield_when_idle 1)
  [ ! -f "$STATE_DIR/yield_sleep.so" ] || args+=(-x "LD_PRELOAD=$STATE_DIR/yield_sleep.so")
  echo "${args[*]}"
}

cmd_name() {
  load_state
  case "${1:-}" in
    ns) [ $# -eq 2 ] && check_node "$2" && ns_of "$2" ;;
    veth) [ $# -eq 2 ] && check_node "$2" && hveth "$2" ;;
    addr) [ $# -eq 2 ] && check_node "$2" && addr_of "$2" ;;
    bridge) [ $# -eq 1 ] && bridge ;;
    *) die "usage: name ns|veth|addr I | name bridge" ;;
  esac || die "usage: name ns|veth|addr I | name bridge"
}

cmd_status() {
  if [ ! -f "$STATE_DIR/state" ]; then echo "fake-cluster: down"; return 0; fi
  load_state
  local i ns
  echo "fake-cluster: $NODES nodes, prefix $PREFIX, bridge $(bridge) $GATEWAY/24, state $STATE_DIR"
  echo "hostfile: ${HOSTFILE:-$STATE_DIR/hostfile}"
  for ((i = 0; i < NODES; i++)); do
    ns=$(ns_of "$i")
    if ip netns list | awk '{print $1}' | grep -qx "$ns"; then
      printf 'node%-3s %-15s ns %-12s veth %-8s egress: %s | ingress: %s\n' "$i" "$(addr_of "$i")" "$ns" "$(hveth "$i")" \
        "$(tc -n "$ns" qdisc show dev eth0 | grep -E 'tbf|htb' | head -1 | sed 's/^qdisc //' || true)" \
        "$(tc qdisc show dev "$(hveth "$i")" | grep -E 'tbf|htb' | head -1 | sed 's/^qdisc //' || true)"
    else
      echo "node$i MISSING namespace $ns"
    fi
  done
  if [ -s "$STATE_DIR/shapes" ]; then echo "shapes:"; sed 's/^/  /' "$STATE_DIR/shapes"; fi
}

main() {
  local cmd=${1:-}
  [ -n "$cmd" ] || usage
  shift
  case "$cmd" in
    -h|--help|help) usage ;;
  esac
  require_root "$cmd" "$@"
  case "$cmd" in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    shape) cmd_shape "$@" ;;
    unshape) cmd_unshape ;;
    hostfile) cmd_hostfile "$@" ;;
    mpirun-args) cmd_mpirun_args ;;
    status) cmd_status ;;
    name) cmd_name "$@" ;;
    *) echo "fake-cluster: unknown command '$cmd'" >&2; usage ;;
  esac
}

main "$@"
