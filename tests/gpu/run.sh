#!/usr/bin/env bash
# GPU checks for a machine with NVIDIA GPUs: build (or reuse a prebuilt build-gpu/), run the GPU
# test binaries and one nccl sweep on every visible GPU, and leave the outputs in OUTDIR.
#
#   tests/gpu/run.sh OUTDIR
#
# Environment:
#   NCCL_LIB_DIR   directory of libnccl.so*, prepended to LD_LIBRARY_PATH (and given to CMake).
#                  Unset and no system libnccl: the nvidia-nccl-cu13 Python wheel's lib/ is used.
#   PREBUILT=1     skip configure and build when build-gpu/collbench already exists.
#   CMAKE_CUDA_ARCHITECTURES  passed to CMake when set (e.g. 90 for H100/H200 only: faster build).
#   STEP_TIMEOUT   seconds each test or run step may take (default 300; exit code 124 when hit).
# Exits non-zero when any step failed; each step's exit code is printed.
set -uo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
out=$1
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.." || exit 2  # repository root
build="build-gpu"

# --- NCCL library location -------------------------------------------------------------------
nccl_dir=${NCCL_LIB_DIR:-}
if [[ -z $nccl_dir ]] && ! ls /usr/local/cuda/lib64/libnccl.so* >/dev/null 2>&1 &&
   ! ldconfig -p 2>/dev/null | grep -q 'libnccl\.so'; then
  wheel=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)
  [[ -n $wheel && -d $wheel/lib ]] && nccl_dir=$wheel/lib
fi
cmake_nccl=()
if [[ -n $nccl_dir ]]; then
  export LD_LIBRARY_PATH=$nccl_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  lib=$(ls "$nccl_dir"/libnccl.so "$nccl_dir"/libnccl.so.2 2>/dev/null | head -n 1)
  [[ -n $lib ]] && cmake_nccl+=("-DNCCL_LIBRARY=$lib")
  [[ -f $nccl_dir/../include/nccl.h ]] && cmake_nccl+=("-DNCCL_INCLUDE_DIR=$(cd "$nccl_dir/../include" && pwd)")
  echo "NCCL library directory: $nccl_dir"
fi
# Open MPI refuses root unless told; the tests use an MPI singleton (no mpirun).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# --- steps --------------------------------------------------------------------------------------
failed=0
summary=()
step_timeout=${STEP_TIMEOUT:-300}
# step NAME COMMAND...: runs it, prints the command and its exit code.
step() {
  local name=$1
  shift
  echo "+ [$name] $*"
  "$@"
  local rc=$?
  echo "  [$name] exit code $rc"
  summary+=("$name: $rc")
  ((rc == 0)) || failed=1
  return $rc
}
# to_file FILE COMMAND...: stdout and stderr into FILE.
to_file() {
  local file=$1
  shift
  timeout -k 10 "$step_timeout" "$@" >"$file" 2>&1
}
# to_files FILE COMMAND...: stdout into FILE, stderr into FILE without .txt plus .err.
to_files() {
  local file=$1
  shift
  timeout -k 10 "$step_timeout" "$@" >"$file" 2>"${file%.txt}.err"
}

step gpus to_file "$out/gpus.txt" nvidia-smi -L
if [[ -n ${CUDA_VISIBLE_DEVICES:-} ]]; then
  ngpus=$(awk -F, '{print NF}' <<<"$CUDA_VISIBLE_DEVICES")
else
  ngpus=$(grep -c '^GPU ' "$out/gpus.txt" 2>/dev/null)
fi
[[ ${ngpus:-0} -ge 1 ]] || ngpus=1
echo "GPUs to use: $ngpus"

if [[ ${PREBUILT:-0} == 1 && -x $build/collbench ]]; then
  echo "PREBUILT=1: using $build/ as it is"
else
  archs=()
  [[ -n ${CMAKE_CUDA_ARCHITECTURES:-} ]] && archs+=("-DCMAKE_CUDA_ARCHITECTURES=$CMAKE_CUDA_ARCHITECTURES")
  step configure cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "${cmake_nccl[@]}" "${archs[@]}" &&
    step build make -C "$build" -j "$(nproc)"
fi

find_bin() { find "$build" -type f -name "$1" -perm -u+x 2>/dev/null | head -n 1; }
for t in gpu_kernel_tests gpu_nccl_tests; do
  bin=$(find_bin "$t")
  if [[ -z $bin ]]; then
    echo "+ [$t] not built (no NCCL found at configure time?)"
    summary+=("$t: not built")
    failed=1
    continue
  fi
  step "$t" to_file "$out/$t.txt" "$bin" "--gtest_output=json:$out/$t.json"
done

if [[ -x $build/collbench ]]; then
  step run_nccl to_files "$out/run_nccl.txt" "$build/collbench" run --backend nccl -g "$ngpus" -b 8 -e 256M -f 2 \
    --json "$out/run_nccl.json"
  # --scope node splits the communicators with ncclCommSplit (one group per node).
  step run_nccl_scope_node to_files "$out/run_nccl_scope_node.txt" "$build/collbench" run --backend nccl \
    -g "$ngpus" --scope node --ops all_reduce,all_to_all -b 1M -e 64M -f 4 --json "$out/run_nccl_scope_node.json"
else
  summary+=("run_nccl: collbench not built")
  failed=1
fi

find "$out" -maxdepth 1 -name '*.err' -empty -delete
echo "--- summary (outputs in $out)"
printf '  %s\n' "${summary[@]}"
exit $failed
