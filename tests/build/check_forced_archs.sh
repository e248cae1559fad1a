#!/usr/bin/env bash
# CMAKE_ARGS still decide the GPU architectures: a configure given -DCMAKE_CUDA_ARCHITECTURES=90
# builds sm_90 only, whatever the CUDA version would pick.  Usage: check_forced_archs.sh SOURCE_DIR
set -uo pipefail
src=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$(cmake -S "$src" -B "$dir" -DCMAKE_CUDA_ARCHITECTURES=90 -DCOLLBENCH_TESTS=OFF -DCOLLBENCH_MICRO=OFF 2>&1)
echo "$out" | grep 'collbench:'
if ! echo "$out" | grep -q 'collbench: CUDA .*, architectures 90$'; then echo "FAIL: the forced list was not used"; exit 1; fi
echo "ok"
