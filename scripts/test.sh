#!/usr/bin/env bash
# Fresh Debian machine: installs the dependencies, builds, and runs every test (unit tests and the
# end-to-end tests under mpirun). GPU-only tests skip with their reason when no GPU is visible.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/mpi_env.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --timeout 600 -j "$(nproc)"
