# Sourced by the fake-cluster tests after they define say(): exits 77 (skip, with the reason) when
# this is not root or network namespaces cannot be made, 1 when the collbench binary is missing.
# Sets FC and BIN.
FC=scripts/fake-cluster.sh
BIN=${COLLBENCH:-build/collbench}
[ "$(id -u)" -eq 0 ] || { say "SKIP: needs root (network namespaces, tc); running as uid $(id -u)"; exit 77; }
fc_probe=cbtest-probe-$$
ip netns add "$fc_probe" 2>/dev/null || { say "SKIP: cannot create a network namespace"; exit 77; }
ip netns del "$fc_probe"
[ -x "$BIN" ] || { say "FAIL: collbench binary '$BIN' not found (scripts/setup.sh, or set COLLBENCH)"; exit 1; }
