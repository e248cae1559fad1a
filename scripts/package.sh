#!/usr/bin/env bash
# The Debian package: configures a release build for packaging in ${PKG_BUILD_DIR:-build-package} (no
# tests, no micro benchmarks, and no CUDA: the mpi backend, which runs anywhere, unless PACKAGE_CUDA=ON),
# builds collbench only, checks the package's declared Depends against the libraries the binary links
# (readelf's NEEDED, found by ldd, owned by dpkg -S), runs `cpack -G DEB` and prints the .deb's path as its last line. What it holds and
# why: cmake/packaging.cmake and docs/install.md. Installs help2man (scripts/packages/package.txt) for the
# man page when it is missing; building collbench needs scripts/setup.sh's packages already.
#   PKG_BUILD_DIR   the build folder (default build-package)
#   BUILD_TYPE      default Release
#   PACKAGE_CUDA    ON: the nccl backend too when CUDA and NCCL are found (their libraries are then not
#                   declared: NVIDIA's installers provide them, as in the Dockerfile's base image)
#   PACKAGE_DEPENDS the package's Depends, for a distribution other than Debian 12 (default: the list in
#                   cmake/packaging.cmake); checked against ldd as the default is
#   CMAKE_ARGS      more configure arguments, split at spaces (e.g. -DNCCL_HOME=/opt/nccl/build)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 0 ] || { echo "package.sh: no arguments (see the comment at its top)" >&2; exit 2; }

scripts/lib/install-packages.sh scripts/packages/package.txt >&2
build="${PKG_BUILD_DIR:-build-package}"
# PACKAGE_DEPENDS, or back to cmake/packaging.cmake's default (a cached value from an earlier run goes).
depends_arg=(-UCOLLBENCH_DEB_DEPENDS)
[ -z "${PACKAGE_DEPENDS:-}" ] || depends_arg=("-DCOLLBENCH_DEB_DEPENDS=$PACKAGE_DEPENDS")
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" -DCOLLBENCH_TESTS=OFF -DCOLLBENCH_MICRO=OFF \
  -DCOLLBENCH_CUDA="${PACKAGE_CUDA:-OFF}" -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON \
  "${depends_arg[@]}" ${CMAKE_ARGS:-} >&2
cmake --build "$build" -j "$(nproc)" --target collbench >&2

# Every library collbench links that a Debian package provides must be in Depends (CUDA's and NCCL's
# excepted, see above); a library no package owns (an installer's, under /opt) is named and left out.
depends=$(sed -n 's/^set(CPACK_DEBIAN_PACKAGE_DEPENDS "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
declared=$(tr ',|' '\n\n' <<<"$depends" | sed 's/(.*//; s/[[:space:]]//g' | grep -v '^$' | sort -u)
missing=()
while read -r lib; do
  [ -n "$lib" ] || continue
  owner=""
  for path in "$lib" "$(realpath "$lib")" "${lib#/usr}" "/usr$lib"; do
    owner=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1) && [ -n "$owner" ] && break
  done
  if [ -z "$owner" ]; then
    echo "package.sh: $lib belongs to no Debian package: not declared" >&2
  elif grep -qxF "$owner" <<<"$declared"; then
    :
  elif [[ "$owner" =~ ^(cuda-|libcuda|libcudart|libnccl|nvidia-) ]]; then
    echo "package.sh: $lib ($owner) is CUDA's or NCCL's: not declared" >&2
  else
    missing+=("$owner ($lib)")
  fi
done < <(
  # The libraries collbench itself names (NEEDED; theirs are their packages' Depends), where ldd finds them.
  readelf -d "$build/collbench" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' |
    while read -r needed; do
      ldd "$build/collbench" | awk -v n="$needed" '$1 == n && $2 == "=>" { print $3 }'
    done
)
if [ ${#missing[@]} -gt 0 ]; then
  echo "package.sh: collbench links libraries whose packages are not in Depends ($depends): ${missing[*]}" >&2
  echo "package.sh: add them to COLLBENCH_DEB_DEPENDS (cmake/packaging.cmake), or set PACKAGE_DEPENDS" >&2
  exit 1
fi

(cd "$build" && cpack -G DEB -B "$PWD/package" >&2)
deb=$(ls -t "$build"/package/collbench_*.deb | head -n 1)
echo "package.sh: Depends: $depends" >&2
realpath "$deb"
