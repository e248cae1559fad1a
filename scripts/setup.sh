#!/usr/bin/env bash
# Installs what building and running collbench need on Debian (scripts/packages/runtime.txt; as
# root, or with sudo), then configures and builds collbench only into ${BUILD_DIR:-build}. CUDA
# parts are built when nvcc is found (/usr/local/cuda or PATH). The test-only packages and the
# test programs are scripts/test.sh's.
#   scripts/setup.sh --list   prints the packages it installs, and does nothing else
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --list ]; then
  exec scripts/lib/install-packages.sh --list scripts/packages/runtime.txt
fi
[ $# -eq 0 ] || { echo "setup.sh: unknown argument '$1' (only --list)" >&2; exit 2; }
scripts/lib/install-packages.sh scripts/packages/runtime.txt

build_dir="${BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target collbench
echo "setup: built $build_dir/collbench"
