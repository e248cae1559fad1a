#!/usr/bin/env bash
# Fresh Debian machine: installs the dependencies, builds, and runs every test (unit tests and the
# end-to-end tests under mpirun), then the unit tests, the mpirun end-to-end tests and a short fuzz
# of every reader under ASan and UBSan (scripts/sanitize.sh, in build-san). GPU-only tests skip
# with their reason when no GPU is visible.
# The fake-cluster tests (about 18 minutes on 2 cores, most of it waiting on slowed links and
# timeouts; each is made to hold on a busy machine) run beside the sanitizer build and its tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/mpi_env.sh
build="${BUILD_DIR:-build}"
ctest --test-dir "$build" -E '^fake_cluster_' --output-on-failure --timeout 600 -j "$(nproc)"
scripts/perf-check.sh --build-dir "$build"
ctest --test-dir "$build" -R '^fake_cluster_' --output-on-failure --timeout 900 >"$build/fake-cluster-tests.log" 2>&1 &
fake=$!
sanitized=0
NICE=10 scripts/sanitize.sh --skip-verdict-e2e || sanitized=$?
fake_cluster=0
wait "$fake" || fake_cluster=$?
cat "$build/fake-cluster-tests.log"
echo "test.sh: fake-cluster tests exit $fake_cluster, sanitizer step exit $sanitized"
[ "$fake_cluster" = 0 ] && [ "$sanitized" = 0 ]
