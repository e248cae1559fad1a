#!/usr/bin/env bash
# collbench fabric next to libfabric's own fi_pingpong (Debian: libfabric-bin), same provider, same
# sizes, same interface (loopback), measured in the same run, size by size, one after the other.
# Prints, per size, fi_pingpong's usec/xfer and MB/sec and collbench's one-way latency (mean and
# median of half the round trip) and bandwidth, with the ratios collbench / fi_pingpong:
#   latency ratio   collbench mean one-way us / fi_pingpong usec/xfer (both: total time / transfers)
#   pp bw ratio     collbench ping-pong bandwidth (bytes / mean one-way us) / fi_pingpong MB/sec
#   stream ratio    collbench streaming a->b bandwidth (window of --window) / fi_pingpong MB/sec
# Target: latency ratio <= 1.10, bandwidth ratios >= 0.90. The numbers are printed whether or not
# they meet it; the exit code is 0 when the comparison ran, 1 when a tool failed.
# Env: COLLBENCH (default build/collbench), PROVIDER (tcp), IFACE (lo), LAT_SIZES ("8 64 1024"),
#      BW_SIZES ("65536 1048576"), ITERS (2000), BW_ITERS (200), WINDOW (16), PORT (47700 + $$ % 200).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BIN=${COLLBENCH:-build/collbench}
PROVIDER=${PROVIDER:-tcp}
IFACE=${IFACE:-lo}
LAT_SIZES=${LAT_SIZES:-"8 64 1024"}
BW_SIZES=${BW_SIZES:-"65536 1048576"}
ITERS=${ITERS:-2000}
BW_ITERS=${BW_ITERS:-200}
WINDOW=${WINDOW:-16}
PORT=${PORT:-$((47700 + $$ % 200))}
# shellcheck disable=SC1091
source scripts/mpi_env.sh
command -v fi_pingpong >/dev/null || { echo "fi-pingpong-compare: fi_pingpong not found (apt-get install libfabric-bin)"; exit 1; }
[ -x "$BIN" ] || { echo "fi-pingpong-compare: collbench binary '$BIN' not found (set COLLBENCH)"; exit 1; }
command -v python3 >/dev/null || { echo "fi-pingpong-compare: python3 is needed to read the JSON"; exit 1; }
export FI_TCP_IFACE=$IFACE FI_SOCKETS_IFACE=$IFACE
tmp=$(mktemp -d /tmp/cb-fipp.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# fi_pingpong SIZE ITERS -> "usec_per_xfer MB_per_sec" (its last result line)
fipp() {
  local size=$1 iters=$2 port=$((PORT + RANDOM % 100)) line
  fi_pingpong -p "$PROVIDER" -e rdm -m tagged -I "$iters" -S "$size" -B "$port" >"$tmp/server" 2>&1 &
  local server=$!
  sleep 0.3
  line=$(timeout 120 fi_pingpong -p "$PROVIDER" -e rdm -m tagged -I "$iters" -S "$size" -P "$port" 127.0.0.1 2>&1 | tail -1)
  wait "$server" 2>/dev/null
  awk '{ print $7, $6 }' <<<"$line"
}

# collbench SIZE ITERS LATMAX BWMIN -> its JSON in $tmp/cb.json
cbrun() {
  timeout 300 mpirun -np 2 "$BIN" fabric --provider "$PROVIDER" -b "$1" -e "$1" -n "$2" -w 10 --bw-iters "$5" \
    --bw-warmup 2 --window "$WINDOW" --latency-max "$3" --bandwidth-min "$4" -o "$tmp/cb.json" --no-color >"$tmp/cb.txt" 2>&1
}

field() {  # python expression over the document d
  python3 -c "import json,sys; d=json.load(open('$tmp/cb.json')); l=d['pairs'][0]['lanes'][0]; print($1)"
}

printf '# provider %s on %s; collbench %s; %s\n' "$PROVIDER" "$IFACE" "$("$BIN" --version | awk '{print $2}')" \
  "$(fi_info --version 2>/dev/null | head -1)"
printf '%-9s %12s %12s %12s %12s %9s %12s %12s %9s %12s %9s\n' size fipp_us cb_mean_us cb_med_us lat_ratio "" \
  fipp_MBps cb_pp_MBps pp_ratio cb_strm_MBps strm_ratio
status=0
for size in $LAT_SIZES $BW_SIZES; do
  bw=0
  for s in $BW_SIZES; do [ "$s" = "$size" ] && bw=1; done
  iters=$ITERS; [ "$bw" = 1 ] && iters=$BW_ITERS
  read -r fi_us fi_mbps < <(fipp "$size" "$iters")
  if [ -z "${fi_us:-}" ]; then echo "fi-pingpong-compare: fi_pingpong failed at $size bytes:"; cat "$tmp/server"; status=1; continue; fi
  if [ "$bw" = 1 ]; then cbrun "$size" "$iters" "$size" "$size" "$BW_ITERS"; else cbrun "$size" "$iters" "$size" $((size * 2)) 1; fi
  if [ $? -ne 0 ] && [ ! -s "$tmp/cb.json" ]; then echo "fi-pingpong-compare: collbench failed at $size bytes:"; cat "$tmp/cb.txt"; status=1; continue; fi
  cb_mean=$(field "l['latency'][0]['mean_us']")
  cb_med=$(field "l['latency'][0]['median_us']")
  cb_pp=$(awk -v b="$size" -v us="$cb_mean" 'BEGIN { printf "%.2f", b / us }')
  lat_ratio=$(awk -v a="$cb_mean" -v b="$fi_us" 'BEGIN { printf "%.3f", a / b }')
  pp_ratio=$(awk -v a="$cb_pp" -v b="$fi_mbps" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
  strm="-"; strm_ratio="-"
  if [ "$bw" = 1 ]; then
    strm=$(field "round(l['bandwidth'][0]['a_to_b_gbs'] * 1000, 2)")
    strm_ratio=$(awk -v a="$strm" -v b="$fi_mbps" 'BEGIN { printf "%.3f", a / b }')
  fi
  printf '%-9s %12s %12.2f %12.2f %12s %9s %12s %12s %9s %12s %9s\n' "$size" "$fi_us" "$cb_mean" "$cb_med" "$lat_ratio" "" \
    "$fi_mbps" "$cb_pp" "$pp_ratio" "$strm" "$strm_ratio"
done
echo "# lat_ratio: collbench mean one-way latency / fi_pingpong usec/xfer (target <= 1.10)"
echo "# pp_ratio: collbench ping-pong bandwidth / fi_pingpong MB/sec; strm_ratio: collbench streaming / fi_pingpong (target >= 0.90)"
exit $status
