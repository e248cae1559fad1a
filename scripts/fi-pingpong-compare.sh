#!/usr/bin/env bash
# collbench fabric next to libfabric's own fi_pingpong (Debian: libfabric-bin), same provider, same
# sizes, same interface (loopback), same iteration counts, same CPU placement, measured in the same
# run, size by size, the two tools alternating REPS times.
#
# What makes a fair comparison (measured on a 2-core VM, libfabric 1.17, tcp;ofi_rxm on lo):
#  - fi_pingpong has no warm-up: its timed window starts before the first message, and on an RDM
#    endpoint the first message also sets up the connection (ofi_rxm connects on first send). That
#    costs a fixed ~20 ms (8 B) to ~70 ms (64 KiB and up), spread over the 2 x -I transfers it
#    divides by: +5 us per transfer at 8 B and -I 2000, +170 us at 64 KiB and -I 200. collbench
#    times only after its warm-up. So per size we run fi_pingpong twice: -I 1 (the connection set-up
#    and one round trip) and -I N, and take its steady-state usec/xfer as
#    (elapsed(N) - elapsed(1)) / (2 (N - 1)). Both the raw and the steady-state figure are printed;
#    the ratios use the steady state.
#  - placement: mpirun binds the two ranks to cores 0 and 1 (Open MPI's default for 2 ranks); the
#    fi_pingpong server and client are pinned the same way with taskset (PIN=0: neither is pinned).
#  - one run of either tool on a shared VM can land 1.5-2x off (whole runs are fast or slow: fi_pingpong
#    alone at 1 MiB measured 282-671 us/xfer over 8 runs), so each tool runs REPS times, alternating.
#    Each collbench run is divided by the fi_pingpong run just before it (the two share the
#    machine's state of the moment) and the median of these paired ratios is the figure judged;
#    the ratio of the two medians and the best-of-REPS ratio are printed too.
#  - fi_pingpong waits for each send's completion (sizes from the provider's inject_size; below it,
#    fi_inject); collbench does not, and the round trip needs no more: measured, waiting for it
#    changed collbench's latency by under the run-to-run noise. Not corrected for.
#
# Printed per size (medians over REPS):
#   fipp_raw_us   fi_pingpong's own usec/xfer (includes the connection set-up)
#   setup_ms      fi_pingpong's elapsed time at -I 1 (connection set-up + one round trip)
#   fipp_us       fi_pingpong steady-state usec/xfer (see above); fipp_MBps = size / fipp_us
#   cb_mean_us    collbench mean one-way latency (half the round trip, after -w warm-up); cb_med_us
#   lat_ratio     median over reps of (collbench mean / the fi_pingpong run before it): the figure judged
#   of_medians    cb_mean_us / fipp_us (the two medians); best: min over reps / min over reps
#   pp_ratio      collbench ping-pong bandwidth / fi_pingpong's: 1 / lat_ratio
#   strm_ratio    median over reps of (collbench streaming a->b, window of --window, / the fi_pingpong
#                 ping-pong bandwidth before it). Not like for like: fi_pingpong only measures
#                 ping-pong, so streaming is expected to be higher.
# Target: lat_ratio <= 1.10, strm_ratio >= 1. The numbers are printed whether or not they meet it;
# the exit code is 0 when the comparison ran, 1 when a tool failed.
# Env: COLLBENCH (default build/collbench), PROVIDER (tcp), IFACE (lo), LAT_SIZES ("8 64 1024"),
#      BW_SIZES ("65536 1048576"), ITERS (2000: ping-pong iterations at LAT_SIZES), PP_BW_ITERS
#      (1000: ping-pong iterations at BW_SIZES), BW_ITERS (200: stream iterations), WINDOW (16),
#      WARMUP (10: collbench ping-pong warm-up), REPS (9), PIN (1), PORT (47700 + $$ % 200).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BIN=${COLLBENCH:-build/collbench}
PROVIDER=${PROVIDER:-tcp}
IFACE=${IFACE:-lo}
LAT_SIZES=${LAT_SIZES:-"8 64 1024"}
BW_SIZES=${BW_SIZES:-"65536 1048576"}
ITERS=${ITERS:-2000}
PP_BW_ITERS=${PP_BW_ITERS:-1000}
BW_ITERS=${BW_ITERS:-200}
WINDOW=${WINDOW:-16}
WARMUP=${WARMUP:-10}
REPS=${REPS:-9}
PIN=${PIN:-1}
PORT=${PORT:-$((47700 + $$ % 200))}
# shellcheck disable=SC1091
source scripts/mpi_env.sh
command -v fi_pingpong >/dev/null || { echo "fi-pingpong-compare: fi_pingpong not found (apt-get install libfabric-bin)"; exit 1; }
[ -x "$BIN" ] || { echo "fi-pingpong-compare: collbench binary '$BIN' not found (set COLLBENCH)"; exit 1; }
command -v python3 >/dev/null || { echo "fi-pingpong-compare: python3 is needed to read the JSON"; exit 1; }
if [ "$ITERS" -lt 2 ] || [ "$PP_BW_ITERS" -lt 2 ] || [ "$REPS" -lt 1 ]; then
  echo "fi-pingpong-compare: ITERS and PP_BW_ITERS must be >= 2, REPS >= 1"; exit 1
fi
# The same interface for both (without it, both take the first one, eth0 here).
export FI_TCP_IFACE=$IFACE FI_SOCKETS_IFACE=$IFACE
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
  pin_server="taskset -c 0" pin_client="taskset -c 1" bind=(--bind-to core) placement="cores 0 and 1 (taskset / mpirun --bind-to core)"
else
  pin_server="" pin_client="" bind=(--bind-to none) placement="unpinned (taskset / mpirun --bind-to none)"
fi
tmp=$(mktemp -d /tmp/cb-fipp.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# fipp SIZE ITERS -> "usec_per_xfer MB_per_sec" (its last result line)
fipp() {
  local size=$1 iters=$2 port=$((PORT + RANDOM % 100)) line
  # shellcheck disable=SC2086
  $pin_server fi_pingpong -p "$PROVIDER" -e rdm -m tagged -I "$iters" -S "$size" -B "$port" >"$tmp/server" 2>&1 &
  local server=$!
  sleep 0.3
  # shellcheck disable=SC2086
  line=$(timeout 120 $pin_client fi_pingpong -p "$PROVIDER" -e rdm -m tagged -I "$iters" -S "$size" -P "$port" 127.0.0.1 2>&1 | tail -1)
  wait "$server" 2>/dev/null
  awk '{ print $7, $6 }' <<<"$line"
}

# cbrun SIZE ITERS LATMAX BWMIN BWITERS -> its JSON in $tmp/cb.json
cbrun() {
  rm -f "$tmp/cb.json"
  timeout 300 mpirun -np 2 "${bind[@]}" "$BIN" fabric --provider "$PROVIDER" -b "$1" -e "$1" -n "$2" -w "$WARMUP" \
    --bw-iters "$5" --bw-warmup 2 --window "$WINDOW" --latency-max "$3" --bandwidth-min "$4" -o "$tmp/cb.json" \
    --no-color >"$tmp/cb.txt" 2>&1
}

field() {  # python expression over the document d
  python3 -c "import json,sys; d=json.load(open('$tmp/cb.json')); l=d['pairs'][0]['lanes'][0]; print($1)"
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minimum() { tr ' ' '\n' | grep -v '^$' | sort -g | head -1; }
# ratios "A1 A2 ..." "B1 B2 ...": A1/B1 A2/B2 ... (paired, in order)
ratios() { paste <(tr ' ' '\n' <<<"$1" | grep -v '^$') <(tr ' ' '\n' <<<"$2" | grep -v '^$') | awk '{ printf "%.4f ", $1 / $2 }'; }

printf '# provider %s on %s; collbench %s; %s; %s; %s reps, alternating, medians\n' "$PROVIDER" "$IFACE" \
  "$("$BIN" --version | awk '{print $2}')" "$(fi_info --version 2>/dev/null | head -1)" "$placement" "$REPS"
printf '%-8s %11s %9s %9s %10s %9s %9s %10s %6s %10s %10s %8s %12s %10s\n' size fipp_raw_us setup_ms fipp_us cb_mean_us \
  cb_med_us lat_ratio of_medians best fipp_MBps cb_pp_MBps pp_ratio cb_strm_MBps strm_ratio
status=0
reps_lines=""
for size in $LAT_SIZES $BW_SIZES; do
  bw=0
  for s in $BW_SIZES; do [ "$s" = "$size" ] && bw=1; done
  iters=$ITERS; [ "$bw" = 1 ] && iters=$PP_BW_ITERS
  raws="" setups="" warms="" means="" meds="" strms="" failed=0
  for ((rep = 1; rep <= REPS; rep++)); do
    read -r one_us _ < <(fipp "$size" 1)
    read -r fi_us _ < <(fipp "$size" "$iters")
    if [ -z "${one_us:-}" ] || [ -z "${fi_us:-}" ]; then
      echo "fi-pingpong-compare: fi_pingpong failed at $size bytes:"; cat "$tmp/server"; failed=1; break
    fi
    # elapsed = usec/xfer * 2 * iterations; the -I 1 run is the set-up plus one round trip.
    raws+=" $fi_us"
    setups+=" $(awk -v a="$one_us" 'BEGIN { printf "%.3f", a * 2 / 1000 }')"
    warms+=" $(awk -v a="$one_us" -v b="$fi_us" -v n="$iters" 'BEGIN { printf "%.3f", (b * 2 * n - a * 2) / (2 * (n - 1)) }')"
    if [ "$bw" = 1 ]; then cbrun "$size" "$iters" "$size" "$size" "$BW_ITERS"; else cbrun "$size" "$iters" "$size" $((size * 2)) 1; fi
    if [ ! -s "$tmp/cb.json" ]; then echo "fi-pingpong-compare: collbench failed at $size bytes:"; cat "$tmp/cb.txt"; failed=1; break; fi
    means+=" $(field "l['latency'][0]['mean_us']")"
    meds+=" $(field "l['latency'][0]['median_us']")"
    [ "$bw" = 1 ] && strms+=" $(field "round(l['bandwidth'][0]['a_to_b_gbs'] * 1000, 2)")"
  done
  if [ "$failed" = 1 ]; then status=1; continue; fi
  fi_raw=$(median <<<"$raws") setup=$(median <<<"$setups") fi_warm=$(median <<<"$warms")
  cb_mean=$(median <<<"$means") cb_med=$(median <<<"$meds")
  lat_ratio=$(median <<<"$(ratios "$means" "$warms")")
  lat_ratio=$(awk -v r="$lat_ratio" 'BEGIN { printf "%.3f", r }')
  of_medians=$(awk -v a="$cb_mean" -v b="$fi_warm" 'BEGIN { printf "%.3f", a / b }')
  best=$(awk -v a="$(minimum <<<"$means")" -v b="$(minimum <<<"$warms")" 'BEGIN { printf "%.2f", a / b }')
  fi_mbps=$(awk -v b="$size" -v us="$fi_warm" 'BEGIN { printf "%.2f", b / us }')
  cb_pp=$(awk -v b="$size" -v us="$cb_mean" 'BEGIN { printf "%.2f", b / us }')
  pp_ratio=$(awk -v r="$lat_ratio" 'BEGIN { printf "%.3f", (r > 0 ? 1 / r : 0) }')
  strm="-"; strm_ratio="-"
  if [ "$bw" = 1 ]; then
    strm=$(median <<<"$strms")
    # fi_pingpong MB/s per rep: size / its steady-state us
    fi_rates=$(for u in $warms; do awk -v b="$size" -v us="$u" 'BEGIN { printf "%.4f ", b / us }'; done)
    strm_ratio=$(awk -v r="$(median <<<"$(ratios "$strms" "$fi_rates")")" 'BEGIN { printf "%.3f", r }')
  fi
  reps_lines+="# reps at $size B, in order: fipp_us$warms | cb_mean_us$means${strms:+ | cb_strm_MBps$strms}"$'\n'
  printf '%-8s %11.2f %9.1f %9.2f %10.2f %9.2f %9s %10s %6s %10s %10s %8s %12s %10s\n' "$size" "$fi_raw" "$setup" "$fi_warm" \
    "$cb_mean" "$cb_med" "$lat_ratio" "$of_medians" "$best" "$fi_mbps" "$cb_pp" "$pp_ratio" "$strm" "$strm_ratio"
done
printf '%s' "${reps_lines:-}"
echo "# fipp_raw_us: fi_pingpong's own usec/xfer, connection set-up included (setup_ms: its elapsed time at -I 1);"
echo "#   fipp_us: its steady state, (elapsed(-I N) - elapsed(-I 1)) / (2 (N - 1)); N = $ITERS (ping-pong at BW sizes: $PP_BW_ITERS)"
echo "# lat_ratio: median over reps of collbench mean one-way latency / the fi_pingpong run before it (target <= 1.10);"
echo "#   of_medians: the two tools' medians divided; best: the same over each tool's fastest rep"
echo "# pp_ratio: 1 / lat_ratio; strm_ratio: median over reps of collbench streaming / fi_pingpong ping-pong bandwidth"
echo "#   (target >= 1; fi_pingpong has no streaming test: a floor, not like for like)"
exit $status
