#!/usr/bin/env bash
# Run-to-run noise against the regression rule: PAIRS pairs of identical back-to-back runs, each
# pair compared with `collbench compare`. Prints, per pair, the REGRESSION (FAIL) and
# REGRESSION_INCONCLUSIVE (WARN) counts and the largest busbw drop with its case, then totals.
# Usage: scripts/rerun-noise.sh [PAIRS] [-- RUN ARGS...]   (default 10 pairs of
#        `mpirun -np 2 collbench run --backend mpi`)
# Env: COLLBENCH (default build/collbench), NP (ranks, default 2), DIR (keeps the runs; default a
#      new /tmp folder; a DIR that already holds 1a.json, 1b.json, ... is compared without rerunning).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
pairs=${1:-10}
shift $(( $# > 0 ? 1 : 0 ))
[ "${1:-}" = "--" ] && shift
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--backend mpi)
bin=${COLLBENCH:-build/collbench}
dir=${DIR:-$(mktemp -d /tmp/cb-rerun-noise.XXXXXX)}
mkdir -p "$dir"
echo "rerun-noise: runs: ${args[*]}"
# shellcheck source=scripts/mpi_env.sh
source scripts/mpi_env.sh
fails=0 warns=0 worst=0 worst_case=""
for i in $(seq 1 "$pairs"); do
  for s in a b; do
    [ -s "$dir/$i$s.json" ] && continue
    mpirun -np "${NP:-2}" "$bin" run "${args[@]}" --no-progress --json "$dir/$i$s.json" >"$dir/$i$s.txt" 2>&1 ||
      { echo "rerun-noise: run $i$s failed: $dir/$i$s.txt"; exit 1; }
  done
  "$bin" compare --no-color "$dir/${i}a.json" "$dir/${i}b.json" >"$dir/compare-$i.txt" 2>&1
  f=$(grep -c '^\[FAIL\] REGRESSION' "$dir/compare-$i.txt")
  w=$(grep -c '^\[WARN\] REGRESSION_INCONCLUSIVE' "$dir/compare-$i.txt")
  # The table's change column (8th field: the size takes two): the most negative one, with its case.
  read -r drop case <<<"$(awk '$1 !~ /^#/ && $8 ~ /%$/ { v = $8; sub(/%/, "", v); if (v + 0 < min) { min = v + 0; c = $1 " " $3 " " $4 " " $5 } }
                              BEGIN { min = 0 } END { printf "%.1f %s\n", min, c }' "$dir/compare-$i.txt")"
  echo "pair $i: $f REGRESSION, $w REGRESSION_INCONCLUSIVE, largest drop ${drop}% (${case:-none})"
  fails=$((fails + f)) warns=$((warns + w))
  if awk -v d="$drop" -v w="$worst" 'BEGIN { exit !(d < w) }'; then worst=$drop worst_case=$case; fi
done
echo "rerun-noise: $pairs pairs: $fails REGRESSION, $warns REGRESSION_INCONCLUSIVE; largest drop ${worst}% (${worst_case:-none}); runs in $dir"
[ "$fails" -eq 0 ]
