#!/usr/bin/env bash
# The Inspector reader end to end at scale: for each N, writes a simulated job of HOSTS x GPUS ranks
# with N collectives per communicator (tests/inspector/simulated_job.h), runs the real
# `collbench analyze DIR` on it under /usr/bin/time -v, prints one row (records, GB on disk, seconds
# to write them, wall and CPU seconds (of which system), records/s over CPU and over wall time, peak
# RSS, GB read from disk rather than the page cache, the verdict's exit code, the progress lines it
# wrote), and deletes the logs before the next N. Memory should stay flat as N grows.
#
# Usage: tests/perf/inspector_scale.sh [--hosts H] [--gpus G] [--max-gb GB] [--keep-going] N...
#   e.g. nice -n 0 tests/perf/inspector_scale.sh 100 1000 10000        (1,024 ranks: ~1.36 GB per 1,000)
# Environment: BUILD (build), COLLBENCH and INSPECTOR_GEN (the binaries), SCALE_ROOT (the logs go in
# SCALE_ROOT/scale-tmp-<pid>, removed at the end; default /work, or the build directory without one),
# COLLBENCH_BASELINE (another collbench to read each job too, on a row "N(base)", for a before/after).
# A job that would not fit under --max-gb (default 25) or in the free space is skipped, and said so.
# The logs are read right after they are written, so most of a job that fits in RAM comes from the
# page cache: records/s over CPU time is the reader's, over wall time also the disk's.
set -euo pipefail

hosts=128 gpus=8 max_gb=25 keep_going=0
sizes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) hosts="$2"; shift 2 ;;
    --gpus) gpus="$2"; shift 2 ;;
    --max-gb) max_gb="$2"; shift 2 ;;
    --keep-going) keep_going=1; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[ ${#sizes[@]} -gt 0 ] || { echo "usage: $0 [--hosts H] [--gpus G] [--max-gb GB] N..." >&2; exit 2; }

root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
collbench="${COLLBENCH:-$build/collbench}"
gen="${INSPECTOR_GEN:-$build/tests/inspector_gen}"
timev=/usr/bin/time
for b in "$collbench" "$gen" "$timev"; do
  [ -x "$b" ] || { echo "$0: $b is missing (build collbench and inspector_gen; apt-get install time)" >&2; exit 2; }
done
if [ -n "${SCALE_ROOT:-}" ]; then work="$SCALE_ROOT/scale-tmp-$$"
elif [ -d /work ] && [ -w /work ]; then work="/work/scale-tmp-$$"
else work="$build/scale-tmp-$$"; fi
mkdir "$work"
trap 'rm -rf "$work"' EXIT
# Far more files than the default limit of 1,024 once hosts x gpus is 1,024 (analyze raises its own).
ulimit -n 4096 2>/dev/null || true

# Seconds from /usr/bin/time's "h:mm:ss" or "m:ss.ss".
secs() { awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }' <<<"$1"; }
field() { sed -n "s/^[[:space:]]*$1: //p" "$2" | head -n 1; }

# Bytes per collective step, from a two-collective probe of the same shape.
"$gen" "$work/probe" --hosts "$hosts" --gpus "$gpus" --collectives 2 >/dev/null
probe_bytes=$(du -sb "$work/probe" | cut -f1)
rm -rf "$work/probe"

echo "# $(date -u '+%F %T UTC'), $(nproc) cores, load: $(uptime | sed 's/.*load average: //')"
echo "# $((hosts * gpus)) ranks ($hosts hosts x $gpus GPUs), logs in $work"
printf '%-9s %12s %8s %8s %8s %8s %7s %12s %12s %9s %8s %3s %8s\n' N records GB gen_s wall_s cpu_s sys_s \
  'rec/s(cpu)' 'rec/s(wall)' 'RSS_MiB' disk_GB rc progress
status=0
# Runs BIN analyze on $job under time -v and prints its row labelled LABEL; sets records.
measure() {
  local bin="$1" label="$2" rc=0
  "$timev" -v "$bin" analyze "$job" >"$work/out" 2>"$work/err" || rc=$?
  records=$(sed -n 's/.*: \([0-9]*\) records from .*/\1/p' "$work/out" | head -n 1)
  local wall user sys rss_kb progress inputs
  wall=$(secs "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$work/err")")
  user=$(field 'User time (seconds)' "$work/err")
  sys=$(field 'System time (seconds)' "$work/err")
  rss_kb=$(field 'Maximum resident set size (kbytes)' "$work/err")
  progress=$(grep -c '^reading Inspector logs: ' "$work/err" || true)
  inputs=$(field 'File system inputs' "$work/err")  # 512-byte blocks read from disk, not the page cache
  if [ -z "$records" ]; then
    echo "$label: analyze printed no record count (exit $rc):" >&2
    grep -v '^[[:space:]]' "$work/err" | tail -n 5 >&2
    status=1
    return 1
  fi
  awk -v n="$label" -v r="$records" -v b="$bytes" -v g="$gen_s" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss_kb" \
    -v rc="$rc" -v p="$progress" -v i="${inputs:-0}" 'BEGIN {
      c = u + s; if (c <= 0) c = 0.01; if (w <= 0) w = 0.01
      printf "%-9s %12d %8.2f %8.1f %8.2f %8.2f %7.2f %11.2fM %11.2fM %9.1f %8.2f %3d %8d\n",
        n, r, b / 1e9, g, w, c, s, r / c / 1e6, r / w / 1e6, m / 1024, i * 512 / 1e9, rc, p }'
  [ "$rc" = 0 ] || status=1
}
for n in "${sizes[@]}"; do
  est=$((probe_bytes / 2 * n))
  free=$(($(df -B1 --output=avail "$work" | tail -n 1) - (2 << 30)))
  if [ "$est" -gt $((max_gb * 1000000000)) ] || [ "$est" -gt "$free" ]; then
    printf '%-9s skipped: about %.1f GB of logs, over --max-gb %s or the %.1f GB free\n' "$n" \
      "$(awk -v b="$est" 'BEGIN { print b / 1e9 }')" "$max_gb" "$(awk -v b="$free" 'BEGIN { print b / 1e9 }')"
    status=1
    continue
  fi
  job="$work/job-$n"
  t0=$(date +%s.%N)
  "$gen" "$job" --hosts "$hosts" --gpus "$gpus" --collectives "$n" >"$work/gen.out"
  gen_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  bytes=$(du -sb "$job" | cut -f1)
  measure "$collbench" "$n" || { rm -rf "$job"; [ "$keep_going" = 1 ] && continue || break; }
  [ "$records" = "$(sed -n 's/^\([0-9]*\) records.*/\1/p' "$work/gen.out")" ] ||
    { echo "$n: analyze read $records records, the generator wrote $(cat "$work/gen.out")" >&2; status=1; }
  [ -z "${COLLBENCH_BASELINE:-}" ] || measure "$COLLBENCH_BASELINE" "$n(base)" || true
  rm -rf "$job"
done
exit $status
