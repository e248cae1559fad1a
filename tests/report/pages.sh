#!/usr/bin/env bash
# collbench report pages in a real headless Chromium (tests/report/check_page.py):
#   1. a fresh run (2 ranks, mpi backend): its curves and per-rank bars;
#   2. two fresh runs: the comparison's overlaid curves too;
#   3. a preflight on 4 fake nodes (tests/fixtures/collbench/): run curves, the hunt's heatmap and
#      the fabric's two, with node2 marked;
#   4. the checker itself on a page with a script, a console error and nothing drawn: it must fail;
#   5. with INSPECTOR_GEN, a simulated job's NCCL Inspector logs (rank 5 late) through analyze --json:
#      the rank x time maps with rank 5 on node-002 marked, and busbw over time per communicator.
# Screenshots are kept in OUT (default build/report-pages) for a look.
# Usage: pages.sh COLLBENCH MPIEXEC [OUT [INSPECTOR_GEN]]. Exit: 0 pass, 1 fail, 77 skip (no chromium).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cb=${1:?usage: pages.sh COLLBENCH MPIEXEC [OUT]}
mpiexec=${2:?usage: pages.sh COLLBENCH MPIEXEC [OUT]}
out=${3:-$(pwd)/report-pages}
gen=${4:-}
fixture="$here/../fixtures/collbench/preflight_4-fake-nodes_node2-100mbit.json"
command -v chromium >/dev/null || { echo "pages: SKIP: no chromium (apt-get install chromium)"; exit 77; }
rm -rf "$out" && mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_pml=ob1
fail=0
check() {  # PAGE CHECK-ARGS...
  python3 "$here/check_page.py" "$@" || { echo "pages: FAIL: $1"; fail=1; }
}
for i in 1 2; do
  "$mpiexec" -np 2 "$cb" run --backend mpi -b 1K -e 256K -n 5 --no-progress --json "$out/run$i.json" >"$out/run$i.out" 2>&1
  rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 3 ] || { cat "$out/run$i.out"; echo "pages: FAIL: run $i exit $rc"; exit 1; }
done
"$cb" report "$out/run1.json" -o "$out/run.html" || exit 1
check "$out/run.html" "$out" --charts 4   # all_reduce and all_to_all curves, their per-rank bars
"$cb" report "$out/run1.json" "$out/run2.json" -o "$out/compare.html" || exit 1
check "$out/compare.html" "$out" --charts 10
grep -q '<h2>Comparison</h2>' "$out/compare.html" || { echo "pages: FAIL: no comparison section"; fail=1; }
"$cb" report "$fixture" -o "$out/preflight.html" || exit 1
check "$out/preflight.html" "$out" --charts 8 --heatmaps 3
grep -q 'class="tick marked"[^>]*>▲ node2<' "$out/preflight.html" || { echo "pages: FAIL: node2 is not marked"; fail=1; }
if [ -n "$gen" ]; then
  "$gen" "$out/inspector-logs" --hosts 4 --gpus 2 --fault late --fault-rank 5 >/dev/null || exit 1
  "$cb" analyze "$out/inspector-logs" --json "$out/inspector.json" >"$out/inspector.out" 2>&1  # a WARN: exit 0
  "$cb" report "$out/inspector.json" -o "$out/inspector.html" || exit 1
  check "$out/inspector.html" "$out" --charts 9 --heatmaps 2   # 2 maps, 7 busbw series
  grep -q 'class="tick marked"[^>]*>▲ rank 5 · node-002<' "$out/inspector.html" ||
    { echo "pages: FAIL: rank 5 is not marked on the Inspector page"; fail=1; }
fi
printf '<!DOCTYPE html><html><body><p>x</p><script>console.error("boom")</script></body></html>\n' >"$out/bad.html"
if python3 "$here/check_page.py" "$out/bad.html" "$out" --charts 1 >"$out/bad.out" 2>&1; then
  cat "$out/bad.out"; echo "pages: FAIL: the checker passed a page with a script, an error and no chart"; fail=1
fi
grep -q 'CONSOLE' "$out/bad.out" || { cat "$out/bad.out"; echo "pages: FAIL: the checker missed the console error"; fail=1; }
[ "$fail" = 0 ] && echo "pages: PASS (screenshots in $out)"
exit "$fail"
