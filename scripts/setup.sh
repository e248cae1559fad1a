#!/usr/bin/env bash
# Installs what collbench needs to build and test on Debian (as root, or with sudo), then
# configures and builds it into ${BUILD_DIR:-build}. CUDA parts are built when nvcc is found
# (/usr/local/cuda or PATH); everything else comes from Debian packages.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config libopenmpi-dev openmpi-bin libpmix-dev nlohmann-json3-dev libcli11-dev libfmt-dev
          libgtest-dev libgmock-dev libbenchmark-dev libfabric-dev libfabric-bin iproute2 python3
          python3-yaml python3-jsonschema slurmctld slurmd slurm-client munge util-linux prometheus chromium
          clang-16 libclang-rt-16-dev llvm-16)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build_dir="${BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
echo "setup: built $build_dir/collbench"
