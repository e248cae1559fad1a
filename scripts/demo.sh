#!/usr/bin/env bash
# Fresh Debian machine: installs the dependencies, builds, and runs a 4-rank local sweep of
# all_reduce and all_to_all on the mpi backend, writing the results to out/demo.json.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/mpi_env.sh
mkdir -p out
mpirun -np 4 "${BUILD_DIR:-build}/collbench" run --backend mpi -b 8 -e 16M -f 4 --json out/demo.json "$@"
echo "demo: results in out/demo.json"
