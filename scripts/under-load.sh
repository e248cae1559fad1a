#!/usr/bin/env bash
# Runs a test script COUNT times while stress-ng keeps one core busy (a busy host, as real
# clusters are), and prints how many runs passed. Failing runs' output is kept.
# Usage: scripts/under-load.sh COUNT SCRIPT [ARGS...]     e.g. scripts/under-load.sh 20 tests/fakecluster/hunt.sh
# Env: LOAD_CPUS (stress-ng --cpu workers, default 1), LOG_DIR (default a new /tmp folder).
# Exit: 0 when every run passed (or was skipped), 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
count=${1:?usage: $0 COUNT SCRIPT [ARGS...]}
shift
[ $# -gt 0 ] || { echo "under-load: give the script to run" >&2; exit 2; }
command -v stress-ng >/dev/null || { echo "under-load: stress-ng not found (apt-get install stress-ng)" >&2; exit 2; }
logs=${LOG_DIR:-$(mktemp -d /tmp/cb-under-load.XXXXXX)}
mkdir -p "$logs"
stress-ng --cpu "${LOAD_CPUS:-1}" --timeout 0 --quiet &
load=$!
trap 'kill "$load" 2>/dev/null; wait "$load" 2>/dev/null' EXIT
pass=0 fail=0 skip=0
for i in $(seq 1 "$count"); do
  start=$SECONDS
  "$@" >"$logs/run-$i.log" 2>&1
  rc=$?
  case $rc in
    0) pass=$((pass + 1)) ;;
    77) skip=$((skip + 1)) ;;
    *) fail=$((fail + 1)); echo "under-load: run $i failed (exit $rc): $logs/run-$i.log" ;;
  esac
  echo "under-load: run $i: exit $rc in $((SECONDS - start)) s"
done
echo "under-load: $* under stress-ng --cpu ${LOAD_CPUS:-1}: $pass of $count passed, $fail failed, $skip skipped (logs: $logs)"
[ "$fail" -eq 0 ]
