#!/usr/bin/env bash
# The Debian package: the mpi-only collbench (the mpi backend, which runs anywhere) with the thresholds,
# docs and --help, by `cpack -G DEB`; prints the .deb's path as its last line. Either from a build folder
# already built (PKG_FROM_BUILD: a CUDA build's mpi-only twin is linked from its objects, nothing is
# compiled again) or from its own release build in PKG_BUILD_DIR (no tests, no micro benchmarks, no
# CUDA). Checks the package's declared Depends against the libraries the binary links (readelf's
# NEEDED, found by ldd, owned by dpkg -S). What it holds and why: cmake/packaging.cmake and
# docs/install.md. Installs help2man (scripts/packages/package.txt) for the man page when it is
# missing; building collbench needs scripts/setup.sh's packages already.
#   PKG_FROM_BUILD  a configured build folder to package from (scripts/test.sh passes its own)
#   PKG_BUILD_DIR   otherwise, the build folder (default build-package)
#   BUILD_TYPE      its build type (default Release)
#   PACKAGE_CUDA    ON: the nccl backend too when CUDA and NCCL are found (their libraries are then not
#                   declared: NVIDIA's installers provide them, as in the Dockerfile's base image)
#   PACKAGE_DEPENDS the package's Depends, for a distribution other than Debian 12 (default: the list in
#                   cmake/packaging.cmake); checked against ldd as the default is
#   CMAKE_ARGS      more configure arguments, split at spaces (e.g. -DNCCL_HOME=/opt/nccl/build)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 0 ] || { echo "package.sh: no arguments (see the comment at its top)" >&2; exit 2; }

scripts/lib/install-packages.sh scripts/packages/package.txt >&2
# What to package, and Depends: PACKAGE_DEPENDS or back to cmake/packaging.cmake's default (a cached value
# from an earlier run goes). Neither changes a compile flag, so an existing build compiles nothing again.
mpi_only=ON
[ "${PACKAGE_CUDA:-OFF}" != ON ] || mpi_only=OFF
package_args=(-UCOLLBENCH_DEB_DEPENDS "-DCOLLBENCH_INSTALL_MPI_ONLY=$mpi_only" -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON)
[ -z "${PACKAGE_DEPENDS:-}" ] || package_args[0]="-DCOLLBENCH_DEB_DEPENDS=$PACKAGE_DEPENDS"
if [ -n "${PKG_FROM_BUILD:-}" ]; then
  build="$PKG_FROM_BUILD"
  [ -f "$build/CMakeCache.txt" ] ||
    { echo "package.sh: PKG_FROM_BUILD=$build is not a configured build folder; configure it or unset PKG_FROM_BUILD" >&2; exit 2; }
  cmake "$build" "${package_args[@]}" >&2
else
  build="${PKG_BUILD_DIR:-build-package}"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" -DCOLLBENCH_TESTS=OFF -DCOLLBENCH_MICRO=OFF \
    -DCOLLBENCH_CUDA="${PACKAGE_CUDA:-OFF}" "${package_args[@]}" ${CMAKE_ARGS:-} >&2
fi
cmake --build "$build" -j "$(nproc)" --target packaged_binary >&2
binary=$(cat "$build/packaged-binary.txt")

if [ "$mpi_only" = ON ] && readelf -d "$binary" | grep -Eq 'NEEDED.*\[lib(cuda|cudart|nccl)\.'; then
  echo "package.sh: $binary is to be the mpi-only collbench but links CUDA or NCCL:" \
    "$(readelf -d "$binary" | grep -Eo 'lib(cuda|cudart|nccl)\.[^]]*' | tr '\n' ' ')" >&2
  exit 1
fi
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
  readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' |
    while read -r needed; do
      ldd "$binary" | awk -v n="$needed" '$1 == n && $2 == "=>" { print $3 }'
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
