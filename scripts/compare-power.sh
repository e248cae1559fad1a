#!/usr/bin/env bash
# compare's power and false alarms in one table. False alarms: PAIRS pairs of identical back-to-back
# 2-rank mpi-backend runs (scripts/rerun-noise.sh). Detections: copies made slower at known sizes
# (scripts/slow-copy.py) of a published 2x p5.48xlarge nccl-tests table (5% tolerance) and of the
# first rerun (the mpi backend's 25%), each compared with its original; a REGRESSION outside the
# slowed sizes counts as a false alarm in its row.
# Usage: scripts/compare-power.sh [PAIRS] [-- RUN ARGS...]   (default 10 pairs of
#        `mpirun -np 2 collbench run --backend mpi`)
# Env: COLLBENCH (default build/collbench), DIR (keeps the runs and copies; default a new /tmp folder).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
pairs=${1:-10}
bin=${COLLBENCH:-build/collbench}
dir=${DIR:-$(mktemp -d /tmp/cb-compare-power.XXXXXX)}
mkdir -p "$dir"
fixture=tests/fixtures/nccl-tests/all_reduce_2x_p5.48xlarge.txt
MiB=$((1 << 20))

# The run arguments go to rerun-noise.sh as given, which reads them and supplies their default.
noise=$(DIR="$dir/reruns" COLLBENCH="$bin" scripts/rerun-noise.sh "$@")
echo "$noise"
false_alarms=$(sed -n 's/^rerun-noise: [0-9]* pairs: \([0-9]*\) REGRESSION.*/\1/p' <<<"$noise")
run="$dir/reruns/1a.json"
[ -s "$run" ] || { echo "compare-power: no rerun to slow down in $dir/reruns"; exit 1; }

# row NAME BASE SLOWED_SIZES... : compare BASE with $dir/NAME.copy, count REGRESSIONs in and out.
rows=()
row() {
  local name=$1 base=$2 copy=$3 want=$4 label=$5 out found extra
  out=$("$bin" compare --no-color "$base" "$copy" 2>&1)
  found=$(grep -cE "^\[FAIL\] REGRESSION .* at ($want):" <<<"$out")
  extra=$(($(grep -c '^\[FAIL\] REGRESSION ' <<<"$out") - found))
  rows+=("| $label | $(grep -cE "^  \S+ +\S+ +\S+ +($want) " <<<"$out") | $found | $extra |")
}
py() { python3 scripts/slow-copy.py "$@" || exit 1; }

py "$fixture" "$dir/blip.txt" "$(python3 -c 'print(1/0.86)')" $((1024 * MiB)) $((1024 * MiB)) --placement in_place
py "$dir/blip.txt" "$dir/band.txt" "$(python3 -c 'print(1/0.88)')" $((512 * MiB)) $((2048 * MiB))
row band "$dir/blip.txt" "$dir/band.txt" "512 MiB|1 GiB|2 GiB" \
  "p5 table: 512 MiB-2 GiB 12% slower, baseline in-place 1 GiB 14% low"
py "$fixture" "$dir/single.txt" 2 $((256 * MiB))
row single "$fixture" "$dir/single.txt" "256 MiB" "p5 table: 256 MiB 2x slower"
py "$fixture" "$dir/broad.txt" "$(python3 -c 'print(1/0.9)')" $((64 * MiB)) inf
row broad "$fixture" "$dir/broad.txt" "64 MiB|128 MiB|256 MiB|512 MiB|1 GiB|2 GiB|4 GiB|8 GiB|16 GiB" \
  "p5 table: 10% slower at 64 MiB and up"
py "$run" "$dir/run-band.json" "$(python3 -c 'print(1/0.65)')" $((1 * MiB)) $((4 * MiB))
row run-band "$run" "$dir/run-band.json" "1 MiB|2 MiB|4 MiB" "2-rank mpi run: 1-4 MiB 35% slower"
py "$run" "$dir/run-single.json" 2 $((4 * MiB))
row run-single "$run" "$dir/run-single.json" "4 MiB" "2-rank mpi run: 4 MiB 2x slower"
py "$run" "$dir/run-broad.json" "$(python3 -c 'print(1/0.7)')" $((1 * MiB)) inf
row run-broad "$run" "$dir/run-broad.json" "1 MiB|2 MiB|4 MiB|8 MiB|16 MiB|32 MiB|64 MiB|128 MiB|256 MiB" \
  "2-rank mpi run: 30% slower at 1 MiB and up"

echo
echo "| slowed copy compared with its original | cases slowed | found (REGRESSION) | REGRESSION elsewhere |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo "| $pairs identical pairs of 2-rank runs ($(sed -n 's/^rerun-noise: runs: //p' <<<"$noise")) | 0 | - | $false_alarms |"
echo "compare-power: $(nproc) cores, $(uname -m); runs and copies in $dir"
