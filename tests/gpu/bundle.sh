#!/usr/bin/env bash
# Builds build-gpu/ for one H200 (sm_90 only) and gathers build-gpu/runtime/: the four binaries
# tests/gpu/run.sh needs and every shared library they load that a machine with only a CUDA 13
# driver and toolkit and the nvidia-nccl-cu13 Python wheel lacks. Carry build-gpu/runtime alone.
#
#   bin/      collbench, gpu_kernel_tests, gpu_nccl_tests, fill_bandwidth (stripped copies)
#   lib/      Open MPI 4.1 (libmpi, open-pal, open-rte, mpi_cxx, mca_common_*), hwloc, libevent,
#             libfabric and the verbs/psm libraries it is linked with, fmt, libstdc++, libgcc_s,
#             libcudart: first on the library path of those binaries only, never of system tools
#   glibc/    this machine's glibc and its loader, used only where the target's glibc is older than
#             requirements.txt says: run.sh then starts the binaries through glibc/ld-linux
#   openmpi/  MCA components (lib/), help files (share/), a parameter file (etc/); env.sh points
#             Open MPI there with OPAL_PKGLIBDIR, OPAL_PKGDATADIR and OPAL_SYSCONFDIR
#   env.sh    those variables plus ess_singleton_isolated: MPI_Init without mpirun then starts no
#             orted (Open MPI 4 forks one for a singleton by default; the bundle has none)
#   requirements.txt  highest GLIBC_/GLIBCXX_/CXXABI_ versions the bundle needs
#   nccl-symbols.txt  the NCCL functions the binaries need (strong imports; run.sh checks the wheel has them)
#   manifest.txt      each bundled file, where it came from, its package and size
# Not bundled: libcuda and the other driver libraries, and libnccl (the wheel's on the target).
# Open MPI components that need UCX, verbs, PSM, libfabric, PMIx or OpenSHMEM are left out: a
# singleton uses none of them (self btl, isolated pmix).
#
#   tests/gpu/bundle.sh        configure, build (JOBS=2 jobs), bundle, then prove it works with
#                              the system's Open MPI hidden (root only: unshare -m; else skipped)
#   NO_BUILD=1                 bundle what build-gpu/ holds;  NO_PROOF=1: skip the proof;
#   KEEP_PROOF=1               keep the proof's outputs and LD_DEBUG logs
#   NCCL_TESTS_SRC=DIR         copy nccl-tests' source (a clone outside this repository) into runtime/nccl-tests
set -euo pipefail

cd "$(dirname "$0")/../.."  # repository root
build="build-gpu"
rt="$build/runtime"
die() { echo "bundle.sh: $*" >&2; exit 1; }

# --- build ---------------------------------------------------------------------------------------
if [[ ${NO_BUILD:-0} != 1 ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCOLLBENCH_MICRO=OFF
  cmake --build "$build" -j "${JOBS:-2}" --target collbench gpu_kernel_tests gpu_nccl_tests fill_bandwidth
fi
bins=("$build/collbench" "$build/tests/gpu/gpu_kernel_tests" "$build/tests/gpu/gpu_nccl_tests"
      "$build/tests/gpu/fill_bandwidth")
for b in "${bins[@]}"; do [[ -x $b ]] || die "$b not built (was NCCL found at configure time?)"; done

# --- gather --------------------------------------------------------------------------------------
ompi_path() { ompi_info --parsable --path "$1" | awk -F: -v k="$1" '$2 == k { print $3; exit }'; }
pkglib=$(ompi_path pkglibdir)
pkgdata=$(ompi_path pkgdatadir)
sysconf=$(ompi_path sysconfdir)
[[ -d $pkglib && -d $pkgdata ]] || die "Open MPI's component or data folder not found (ompi_info --path all)"

rm -rf "$rt"
mkdir -p "$rt"/{bin,lib,glibc,hwloc,openmpi/lib,openmpi/share,openmpi/etc}
# nccl-tests' public source (a clone made outside this repository, never committed), for run.sh to
# build all_reduce_perf on the GPU machine against the same libnccl: NCCL_TESTS_SRC=/path/to/nccl-tests.
if [[ -n ${NCCL_TESTS_SRC:-} ]]; then
  [[ -f $NCCL_TESTS_SRC/src/Makefile ]] || die "NCCL_TESTS_SRC=$NCCL_TESTS_SRC has no src/Makefile"
  tar -C "$NCCL_TESTS_SRC" --exclude=.git --exclude=build -cf - . | (mkdir -p "$rt/nccl-tests" && tar -C "$rt/nccl-tests" -xf -)
fi
for b in "${bins[@]}"; do strip -o "$rt/bin/${b##*/}" "$b"; done
# Each binary must carry an sm_90 cubin (not only PTX, which the driver would JIT at start-up).
# No cuobjdump here: the .nv_fatbin entries are read directly (header: kind 2 = ELF, arch at +28).
python3 - "$rt"/bin/* <<'PY' || die "a binary has no sm_90 cubin"
import struct, subprocess, sys
bad = False
for f in sys.argv[1:]:
    data = open(f, "rb").read()
    found = []
    for line in subprocess.run(["readelf", "-SW", f], capture_output=True, text=True).stdout.splitlines():
        if " .nv_fatbin " in line:
            fields = line.split("]", 1)[1].split()
            off, size = int(fields[3], 16), int(fields[4], 16)
            sec, pos = data[off:off + size], 0
            while pos + 16 <= len(sec):
                magic, _, hsize, fsize = struct.unpack_from("<IHHQ", sec, pos)
                if magic != 0xBA55ED50:
                    pos += 8
                    continue
                p, end = pos + hsize, pos + hsize + fsize
                while p < end:
                    kind, _, ehsize, esize = struct.unpack_from("<HHIQ", sec, p)
                    found.append(("elf" if kind == 2 else "ptx") + "_sm%d" % struct.unpack_from("<I", sec, p + 28)[0])
                    p += ehsize + esize
                pos = end
    print("  %s: %s" % (f.rsplit("/", 1)[-1], " ".join(sorted(set(found))) or "no device code"))
    bad |= "elf_sm90" not in found
sys.exit(1 if bad else 0)
PY

for c in "$pkglib"/mca_*.so; do
  case ${c##*/} in
    *ucx* | *openib* | *psm* | *ofi* | mca_pmix_ext* | mca_pmix_flux* | \
      mca_atomic_* | mca_memheap_* | mca_scoll_* | mca_spml_* | mca_sshmem_*) continue ;;
  esac
  cp "$c" "$rt/openmpi/lib/"
done
cp -r "$pkgdata"/. "$rt/openmpi/share/"
rm -f "$rt"/openmpi/share/*wrapper-data.txt  # compiler wrappers only
# Debian's own parameter file, minus what its components above cannot be (never mpirun here).
{
  echo "# From $sysconf/openmpi-mca-params.conf (tests/gpu/bundle.sh)"
  grep -v '^[[:space:]]*#' "$sysconf/openmpi-mca-params.conf" | grep -v '^[[:space:]]*$' || true
} >"$rt/openmpi/etc/openmpi-mca-params.conf"
echo "hwloc plugins: none bundled; HWLOC_PLUGINS_PATH points here so a target's own cannot load" \
  >"$rt/hwloc/README.txt"

# Every library ldd resolves for the binaries and the components, by soname.
glibc_names=(ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libmvec.so.1 libpthread.so.0 libdl.so.2 librt.so.1
             libresolv.so.2 libutil.so.1 libanl.so.1 libnss_files.so.2 libnss_dns.so.2)
is_glibc() { local n; for n in "${glibc_names[@]}"; do [[ $1 == "$n" ]] && return 0; done; return 1; }
declare -A src=()
missing=()
while read -r name arrow path _; do
  [[ $arrow == "=>" ]] || continue
  case $name in libcuda.so* | libnccl.so* | libnvidia-*) continue ;; esac
  if [[ $path == not ]]; then missing+=("$name"); continue; fi
  src[$name]=$path
done < <(env -u LD_LIBRARY_PATH ldd "$rt"/bin/* "$rt"/openmpi/lib/*.so 2>/dev/null)
((${#missing[@]} == 0)) || die "ldd found no ${missing[*]}"
manifest=()
for name in "${!src[@]}"; do
  is_glibc "$name" && continue
  cp -L "${src[$name]}" "$rt/lib/$name"
  manifest+=("lib/$name ${src[$name]}")
done
libdir=$(dirname "$(readlink -f "${src[libc.so.6]}")")
for name in "${glibc_names[@]}"; do
  f=$libdir/$name
  [[ $name == ld-linux-x86-64.so.2 ]] && f=/lib64/ld-linux-x86-64.so.2
  [[ -e $f ]] || continue
  cp -L "$f" "$rt/glibc/$name"
  manifest+=("glibc/$name $f")
done
for c in "$rt"/openmpi/lib/*.so; do manifest+=("openmpi/lib/${c##*/} $pkglib/${c##*/}"); done
chmod -R u+w "$rt"

# --- environment for the target ------------------------------------------------------------------
cat >"$rt/env.sh" <<'EOF'
# Sourced by tests/gpu/run.sh: Open MPI's components, help and parameter files from this bundle, and
# MPI_Init as an isolated singleton (no mpirun, no orted). Sets no library path: run.sh gives
# lib/ (and glibc/ where needed) to the bundled binaries only.
collbench_rt=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=$collbench_rt/openmpi
export OPAL_PKGLIBDIR=$collbench_rt/openmpi/lib
export OPAL_PKGDATADIR=$collbench_rt/openmpi/share
export OPAL_SYSCONFDIR=$collbench_rt/openmpi/etc
export OMPI_MCA_ess_singleton_isolated=1
export HWLOC_PLUGINS_PATH=$collbench_rt/hwloc
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
EOF

# --- what the target must offer ------------------------------------------------------------------
# Highest symbol version of each family needed by anything bundled except glibc itself.
needs=$(find "$rt/bin" "$rt/lib" "$rt/openmpi/lib" -type f -name '*' -exec readelf -V --wide {} + 2>/dev/null |
  grep 'Version:' | grep -o 'Name: [A-Z]*_[0-9.]*' | awk '{print $2}' | sort -u)
maxver() { grep "^$1_" <<<"$needs" | sed "s/^$1_//" | sort -V | tail -n 1; }
{
  echo "GLIBC $(maxver GLIBC)"
  echo "GLIBCXX $(maxver GLIBCXX)"
  echo "CXXABI $(maxver CXXABI)"
  echo "BUNDLED_GLIBC $(getconf GNU_LIBC_VERSION | awk '{print $2}')"
} >"$rt/requirements.txt"
# The bundled libstdc++ must itself define what the binaries need.
gxx=$(maxver GLIBCXX)
defined=$(readelf -V --wide "$rt/lib/libstdc++.so.6")
grep -q "Name: GLIBCXX_$gxx\$" <<<"$defined" || die "bundled libstdc++ lacks GLIBCXX_$gxx"
nm -D --undefined-only "$rt"/bin/* 2>/dev/null | awk '$1 == "U" && $2 ~ /^nccl/ {print $2}' | sort -u >"$rt/nccl-symbols.txt"

{
  echo "# built $(date -u +%FT%TZ) on $(sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"'), $(getconf GNU_LIBC_VERSION)"
  echo "# commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' + uncommitted changes')"
  echo "# nvcc $(/usr/local/cuda/bin/nvcc --version | grep -o 'release [0-9.]*'), CMAKE_CUDA_ARCHITECTURES=90"
  printf '%s\n' "${manifest[@]}" | sort | while read -r dst from; do
    pkg=$({ dpkg -S "$from" || dpkg -S "$(readlink -f "$from")" || dpkg -S "/usr$from" || dpkg -S "${from#/usr}"; } </dev/null 2>/dev/null | head -n 1 | cut -d: -f1) || true
    ver=-
    [[ -n $pkg ]] && ver=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null)
    printf '%-48s %-70s %s %s %s\n' "$dst" "$from" "${pkg:--}" "${ver:--}" "$(stat -c %s "$rt/$dst")"
  done
} >"$rt/manifest.txt"

echo "bundle: $rt ($(du -sh --apparent-size "$rt" | cut -f1), $(find "$rt" -type f | wc -l) files)"
du -sh --apparent-size "$rt"/* | sed 's/^/  /'
echo "needs: $(tr '\n' ' ' <"$rt/requirements.txt")"

# --- proof ---------------------------------------------------------------------------------------
# Runs collbench's mpi backend as a singleton from the bundle alone, twice:
#   system: this machine's glibc; the system's Open MPI folders, and the system copy of every
#           library the bundle holds, hidden (an empty file bound over each).
#   bundled-glibc: as run.sh does on an older target: started by glibc/ld-linux with all of
#           /usr/lib/x86_64-linux-gnu hidden; only NCCL's folder (the wheel's stand-in) stays.
# LD_DEBUG=libs names the file each library was loaded from; every one must be in the bundle
# (system glibc allowed in the first run; NCCL's folder in both).
[[ ${NO_PROOF:-0} == 1 ]] && exit 0
if [[ $(id -u) -ne 0 ]] || ! command -v unshare >/dev/null; then
  echo "proof skipped: needs root and unshare -m"
  exit 0
fi
abs_rt=$(cd "$rt" && pwd)
nccl_dir=$(dirname "$(readlink -f "$(env -u LD_LIBRARY_PATH ldd "$rt/bin/collbench" | awk '$1 == "libnccl.so.2" {print $3}')")")
proof=$(mktemp -d)
if [[ ${KEEP_PROOF:-0} == 1 ]]; then echo "proof outputs kept in $proof"; else trap 'rm -rf "$proof"' EXIT; fi
hide=("$pkglib" "$(dirname "$pkglib")" "$pkgdata" "$sysconf")
[[ -d /usr/lib/x86_64-linux-gnu/pmix2 ]] && hide+=(/usr/lib/x86_64-linux-gnu/pmix2)
hide_files=()
for name in "${!src[@]}"; do is_glibc "$name" || hide_files+=("$(readlink -f "${src[$name]}")"); done
args=(run --backend mpi -b 8 -e 1K -n 2 --no-progress --json "$proof/run.json")

check_maps() {  # check_maps MODE LOG-PREFIX: every library loaded from the bundle (or allowed)
  local mode=$1 bad
  local loaded
  loaded=$(cat "$2".* 2>/dev/null | sed -n 's/.*calling init: //p' | sort -u)
  [[ -n $loaded ]] || { echo "  $mode: no LD_DEBUG output"; return 1; }
  bad=$(grep -v "^$abs_rt/" <<<"$loaded" | grep -v "^$nccl_dir/" |
    { if [[ $mode == system ]]; then grep -Ev '/(ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1)$'; else cat; fi } || true)
  echo "  $mode: $(wc -l <<<"$loaded") libraries loaded; from the bundle: $(grep -c "^$abs_rt/" <<<"$loaded")"
  grep -E '/(libmpi\.so|libopen-pal|libopen-rte|libstdc\+\+|libc\.so|libcudart|libnccl|mca_ess_singleton|mca_btl_self|mca_pml_ob1)' <<<"$loaded" | sed 's/^/    /'
  if [[ -n $bad ]]; then
    echo "  $mode: FAILED: loaded from outside the bundle:"
    while IFS= read -r l; do echo "    $l"; done <<<"$bad"
    return 1
  fi
}

# shellcheck disable=SC2016  # expanded by the inner bash
HIDE="${hide[*]}" HIDE_FILES="${hide_files[*]}" RT="$abs_rt" PROOF="$proof" NCCL_DIR="$nccl_dir" \
  unshare -m bash -c '
  set -e
  mount --make-rprivate /
  empty_dir=$(mktemp -d); empty_file=$(mktemp)
  for d in $HIDE; do mount --bind "$empty_dir" "$d"; done
  for f in $HIDE_FILES; do mount --bind "$empty_file" "$f"; done
  . "$RT/env.sh"
  cd "$PROOF"
  set +e
  # shellcheck disable=SC2046
  env -i PATH=/usr/bin:/bin HOME="$PROOF" $(env | grep -E "^(OPAL_|OMPI_|HWLOC_)") \
    LD_LIBRARY_PATH="$RT/lib:$NCCL_DIR" LD_DEBUG=libs LD_DEBUG_OUTPUT="$PROOF/system" \
    "$RT/bin/collbench" "$@" >"$PROOF/system.out" 2>&1
  echo "system $?"
  # Nothing of /usr/lib/x86_64-linux-gnu from here on: only builtins, and exec of the bundled loader.
  mount --bind "$empty_dir" /usr/lib/x86_64-linux-gnu
  (
    export LD_DEBUG=libs LD_DEBUG_OUTPUT="$PROOF/bundled"
    exec "$RT/glibc/ld-linux-x86-64.so.2" --library-path "$RT/glibc:$RT/lib:$NCCL_DIR" "$RT/bin/collbench" "$@" \
      >"$PROOF/bundled.out" 2>&1
  )
  echo "bundled-glibc $?"
  # The other three load too (without a GPU they skip: exit 0, and 77 for fill_bandwidth).
  for b in gpu_kernel_tests gpu_nccl_tests fill_bandwidth; do
    ( exec "$RT/glibc/ld-linux-x86-64.so.2" --library-path "$RT/glibc:$RT/lib:$NCCL_DIR" "$RT/bin/$b" \
        >"$PROOF/$b.out" 2>&1 )
    echo "$b $?"
  done
' proof "${args[@]}" >"$proof/rc.txt" 2>&1 || true

echo "proof: collbench ${args[*]}, Open MPI's system folders and files hidden"
ok=1
for mode in system bundled-glibc; do
  log=${mode%-glibc}
  rc=$(awk -v m="$mode" '$1 == m {print $2}' "$proof/rc.txt")
  tables=$(grep -c '^# Out of bounds values : 0 OK' "$proof/$log.out")
  echo "  $mode: exit code ${rc:-none}; $(grep -m1 '^# World:' "$proof/$log.out"); tables checked clean: $tables"
  if [[ $rc != 0 || $tables == 0 ]]; then
    ok=0
    sed 's/^/    | /' "$proof/rc.txt" "$proof/$log.out" | tail -n 30
  fi
  check_maps "$mode" "$proof/$log" || ok=0
done
for b in gpu_kernel_tests gpu_nccl_tests fill_bandwidth; do
  rc=$(awk -v m="$b" '$1 == m {print $2}' "$proof/rc.txt")
  echo "  bundled-glibc: $b exit code ${rc:-none}: $(grep -m1 -E 'SKIPPED|PASSED|FAILED' "$proof/$b.out")"
  [[ $rc == 0 || ($b == fill_bandwidth && $rc == 77) ]] || { ok=0; tail -n 5 "$proof/$b.out"; }
done
((ok)) || die "proof FAILED"
echo "proof: passed"
