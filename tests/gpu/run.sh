#!/usr/bin/env bash
# GPU checks on a machine with an NVIDIA GPU: the GPU test binaries, the fill/verify kernels'
# bandwidth, compute-sanitizer memcheck and racecheck on the kernel tests, collbench next to
# nccl-tests' all_reduce_perf, an nccl sweep of every op and datatype, a split (--scope node), and
# the failure paths (watchdog on a hang, a failed backend set-up). OUTDIR ends with two files:
# summary.json and outputs.tar.gz (every step's output). One GPU is driven (-g 1).
#
#   tests/gpu/run.sh OUTDIR
#
# The lent H200 machine (CUDA 13, NCCL only in the nvidia-nccl-cu13 wheel, no Open MPI, no
# network): run tests/gpu/bundle.sh here first (the carried bundle must stay under 64 MiB; its size
# is printed), then make ONE call there, timeout_s 300, with
#   carry:   ["build-gpu/runtime"]
#   command: bash tests/gpu/run.sh "$OUT"
# The steps stop by TOTAL_BUDGET (240 s), so summary.json is written before that call's limit.
#
# nccl-tests: its public source (git clone https://github.com/NVIDIA/nccl-tests, outside this
# repository, never committed) in NCCL_TESTS_SRC or build-gpu/runtime/nccl-tests/ is built there
# for sm_90 (all_reduce_perf only, MPI=0) against the same libnccl, with that machine's nvcc and
# the wheel's nccl.h; without a source or nvcc the step fails and says which is missing.
#
# Which binaries:
#   build-gpu/runtime/ (tests/gpu/bundle.sh): the bundled binaries with the bundle's libraries.
#     When this machine's glibc is older than runtime/requirements.txt asks, that is said as an
#     error and they are started through the bundle's own glibc loader instead (RUNTIME_GLIBC=
#     system|bundled forces one).
#   else PREBUILT=1 and build-gpu/collbench: that build with this machine's libraries.
#   else configure and build build-gpu/ here: needs Open MPI (and nvcc, NCCL headers).
#
# Environment:
#   NCCL_LIB_DIR   folder of libnccl.so.2; default: the nvidia-nccl-cu13 (or -cu12) wheel's
#                  lib/ (nvidia/nccl/lib or nvidia/cu13/lib), else the system's.
#   TOTAL_BUDGET   seconds for all steps (default 240); STEP_TIMEOUT caps each step (default 120).
#   NCCL_TESTS_SRC nccl-tests' source folder (default build-gpu/runtime/nccl-tests).
#   CMAKE_CUDA_ARCHITECTURES  passed to CMake when building here (e.g. 90 for H100/H200 only).
#
# Exit code: 0 when every step passed, 1 when one failed, 2 when nothing could run.
# Checked on a CPU-only machine only (dry runs: every GPU step fails fast, summary.json is
# written). Unchecked until a GPU machine runs it: the wheel's layout and NCCL version (the
# binaries are built against NCCL 2.28.9; ncclAlltoAll is a weak import, used when the loaded NCCL has
# it: the nccl_library step names any other function the wheel lacks), the bundled glibc loader with a real driver's libcuda, and the
# steps' durations (sized to stay well under TOTAL_BUDGET on an H200, not measured).
set -uo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
out=$1
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.." || exit 2  # repository root
repo=$(pwd)
build="build-gpu"
rt="$repo/$build/runtime"
start_s=$SECONDS
total_budget=${TOTAL_BUDGET:-240}
step_cap=${STEP_TIMEOUT:-120}
host=$(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)

# --- summary -------------------------------------------------------------------------------------
names=() rcs=() secs=() passes=() notes=()
facts=()  # "key<TAB>value" lines for summary.json
failed=0
json_str() {
  local s
  s=$(printf '%s' "$1" | tr -d '\000-\010\013-\037' | tr '\t\n' '  ')
  s=${s//\\/\\\\}
  printf '"%s"' "${s//\"/\\\"}"
}
write_summary() {
  local i sep="" f
  {
    printf '{\n  "host": %s,\n' "$(json_str "$host")"
    for f in "${facts[@]}"; do printf '  %s: %s,\n' "$(json_str "${f%%$'\t'*}")" "$(json_str "${f#*$'\t'}")"; done
    printf '  "seconds": %d,\n  "passed": %s,\n  "steps": [' "$((SECONDS - start_s))" \
      "$([[ $failed == 0 ]] && echo true || echo false)"
    for i in "${!names[@]}"; do
      printf '%s\n    {"name": %s, "exit_code": %s, "seconds": %s, "pass": %s, "note": %s}' "$sep" \
        "$(json_str "${names[i]}")" "${rcs[i]}" "${secs[i]}" "${passes[i]}" "$(json_str "${notes[i]}")"
      sep=,
    done
    printf '\n  ]\n}\n'
  } >"$out/summary.json.tmp" && mv "$out/summary.json.tmp" "$out/summary.json"
}
fact() { facts+=("$1"$'\t'"$2"); echo "$1: $2"; }
# record NAME RC SECONDS PASS(0|1) NOTE
record() {
  names+=("$1") rcs+=("${2:-null}") secs+=("${3:-0}") notes+=("$5")
  if [[ $4 == 1 ]]; then passes+=(true); else passes+=(false); failed=1; fi
  printf '  [%s] exit code %s, %ss: %s%s\n' "$1" "${2:-none}" "${3:-0}" "$([[ $4 == 1 ]] && echo PASS || echo FAIL)" \
    "${5:+ ($5)}"
  write_summary
}

# --- steps ---------------------------------------------------------------------------------------
# run_step NAME LIMIT COMMAND...: COMMAND's stdout and stderr into OUTDIR/NAME.txt, under a timeout
# of LIMIT seconds or what is left of TOTAL_BUDGET; sets rc and took. rc 124/137: timed out.
rc=0 took=0
run_step() {
  local name=$1 limit=$2
  shift 2
  local left=$((total_budget - (SECONDS - start_s) - 5))
  ((limit > step_cap)) && limit=$step_cap
  ((limit > left)) && limit=$left
  if ((limit < 5)); then
    rc="" took=0
    echo "+ [$name] skipped: TOTAL_BUDGET ${total_budget}s spent"
    return 1
  fi
  echo "+ [$name] (limit ${limit}s) $*"
  # timeout runs programs only: a function of this script runs in a bash that has it exported.
  declare -F "$1" >/dev/null && set -- bash -c '"$@"' "$1" "$@"
  local t0=$SECONDS
  timeout -k 5 "$limit" "$@" >"$out/$name.txt" 2>&1
  rc=$?
  took=$((SECONDS - t0))
  ((rc == 124 || rc == 137)) && echo "  [$name] timed out after ${limit}s"
  return 0
}
# step NAME LIMIT COMMAND...: run_step, passing on exit code 0.
step() {
  local name=$1
  if run_step "$@"; then
    record "$name" "$rc" "$took" "$((rc == 0))" ""
  else
    record "$name" "" 0 0 "not run: out of time"
  fi
}
tail_of() { tail -n "${2:-15}" "$out/$1.txt" 2>/dev/null | sed 's/^/    | /'; }

# --- the binaries and their libraries ------------------------------------------------------------
# NCCL: the wheel's lib/ (nvidia/nccl/lib; later cu13 wheels use nvidia/cu13/lib), found by Python.
find_nccl_dir() {
  local py d
  for py in python3 python; do
    command -v "$py" >/dev/null || continue
    d=$(timeout 30 "$py" - 2>/dev/null <<'PY' | head -n 1
import glob, os, site, sys
roots = []
for name in ("nvidia.nccl", "nvidia.cu13", "nvidia.cu12", "nvidia"):
    try:
        roots += list(getattr(__import__(name, fromlist=["_"]), "__path__", []))
    except Exception:
        pass
try:
    roots += site.getsitepackages() + [site.getusersitepackages()]
except Exception:
    pass
roots += [p for p in sys.path if p]
for root in roots:
    for pattern in ("lib/libnccl.so.2", "nvidia/nccl/lib/libnccl.so.2", "nvidia/cu1*/lib/libnccl.so.2",
                    "nccl/lib/libnccl.so.2", "cu1*/lib/libnccl.so.2"):
        for f in sorted(glob.glob(os.path.join(root, pattern))):
            print(os.path.dirname(os.path.abspath(f)))
PY
)
    [[ -n $d ]] && { echo "$d"; return; }
  done
  d=$(timeout 30 find / -xdev \( -path /proc -o -path /sys -o -path /dev \) -prune -o \
    -name libnccl.so.2 -path '*nvidia*' -print 2>/dev/null | head -n 1)
  [[ -n $d ]] && { dirname "$d"; return; }
  d=$(ldconfig -p 2>/dev/null | awk '$1 == "libnccl.so.2" {print $NF; exit}')
  [[ -n $d ]] && dirname "$d"
}
nccl_dir=${NCCL_LIB_DIR:-$(find_nccl_dir)}
fact nccl_lib_dir "${nccl_dir:-not found}"
[[ -n $nccl_dir ]] || echo "ERROR: no libnccl.so.2 (nvidia-nccl-cu13 wheel not found; set NCCL_LIB_DIR): the GPU steps will fail"

exe=()  # what starts a bundled or built binary: its library path, or the bundled loader
if [[ -f $rt/bin/collbench ]]; then
  chmod u+x "$rt"/bin/* "$rt"/glibc/ld-linux-x86-64.so.2 2>/dev/null  # in case the copy lost the bits
  bindir=$rt/bin testdir=$rt/bin
  # shellcheck source=/dev/null
  . "$rt/env.sh"
  need=$(awk '$1 == "GLIBC" {print $2}' "$rt/requirements.txt")
  have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  [[ -n $have ]] || have=$(ldd --version 2>/dev/null | head -n 1 | awk '{print $NF}')
  fact glibc "this machine ${have:-unknown}, the bundle needs ${need}"
  mode=${RUNTIME_GLIBC:-}
  if [[ -z $mode ]]; then
    if [[ -n $have && $(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n 1) == "$need" ]]; then
      mode=system
    else
      echo "ERROR: this machine's glibc (${have:-unknown}) is older than the GLIBC_$need that build-gpu/runtime" \
        "needs (it was built on $(sed -n 's/^# built [^ ]* on //p' "$rt/manifest.txt")); its binaries cannot" \
        "start with this machine's loader. Starting them through the bundled glibc ($rt/glibc) instead."
      mode=bundled
    fi
  fi
  if [[ $mode == bundled ]]; then
    [[ -x $rt/glibc/ld-linux-x86-64.so.2 ]] || { echo "ERROR: $rt/glibc has no loader"; exit 2; }
    # The driver's libraries (libcuda.so.1) are where this machine's loader finds them; the
    # bundled loader is told explicitly (its default folders are Debian's).
    sys_dirs=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 |libnvidia-ml\.so\.1 / {print $NF}' | xargs -r -n1 dirname | sort -u | tr '\n' ':')
    for d in /usr/local/nvidia/lib64 /usr/lib64 /usr/lib/x86_64-linux-gnu /lib64 /usr/lib/wsl/lib; do
      [[ -d $d ]] && sys_dirs+=$d:
    done
    exe=("$rt/glibc/ld-linux-x86-64.so.2" --library-path "$rt/glibc:$rt/lib:$nccl_dir:${sys_dirs%:}")
  else
    exe=(env "LD_LIBRARY_PATH=$rt/lib${nccl_dir:+:$nccl_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  fi
  fact runtime "build-gpu/runtime, glibc: $mode"
  bundle_bytes=$(du -sb "$rt" 2>/dev/null | cut -f1)
  fact bundle_size "${bundle_bytes:-unknown} bytes ($((${bundle_bytes:-0} / 1048576)) MiB; the carry limit is 64 MiB)"
else
  bindir=$build testdir=$build/tests/gpu
  export OMPI_MCA_ess_singleton_isolated=1  # MPI_Init without mpirun: no orted
  [[ $(id -u) -eq 0 ]] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  exe=(env "LD_LIBRARY_PATH=${nccl_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  if [[ ${PREBUILT:-0} == 1 && -x $build/collbench ]]; then
    fact runtime "$build/ as it is (PREBUILT=1), this machine's libraries"
  elif ! command -v mpicxx >/dev/null && ! command -v ompi_info >/dev/null; then
    echo "ERROR: no build-gpu/runtime/ and no Open MPI here: collbench cannot be built (CMake's" \
      "find_package(MPI) needs it). On a machine with Open MPI, nvcc and NCCL run tests/gpu/bundle.sh" \
      "and carry build-gpu/runtime to this one."
    record prepare "" 0 0 "no build-gpu/runtime and no Open MPI to build with"
    exit 2
  else
    fact runtime "built here into $build/"
    cmake_args=(-DCMAKE_BUILD_TYPE=Release)
    [[ -n ${CMAKE_CUDA_ARCHITECTURES:-} ]] && cmake_args+=("-DCMAKE_CUDA_ARCHITECTURES=$CMAKE_CUDA_ARCHITECTURES")
    if [[ -n $nccl_dir ]]; then
      for f in "$nccl_dir"/libnccl.so "$nccl_dir"/libnccl.so.2; do [[ -e $f ]] && nccl_lib=$f; done
      [[ -n ${nccl_lib:-} ]] && cmake_args+=("-DNCCL_LIBRARY=$nccl_lib")
      [[ -f $nccl_dir/../include/nccl.h ]] && cmake_args+=("-DNCCL_INCLUDE_DIR=$(cd "$nccl_dir/../include" && pwd)")
    fi
    step configure 300 cmake -S . -B "$build" "${cmake_args[@]}"
    [[ $rc == 0 ]] && step build 1800 cmake --build "$build" -j "$(nproc)" --target collbench gpu_kernel_tests \
      gpu_nccl_tests fill_bandwidth
  fi
fi
collbench=$bindir/collbench
run_args=(--backend nccl -g 1 --thresholds none --no-progress)

# --- the machine ---------------------------------------------------------------------------------
# shellcheck disable=SC2317  # run through run_step's bash -c
nvidia_info() { nvidia-smi -L && nvidia-smi; }
export -f nvidia_info
step nvidia_smi 30 nvidia_info
head -n 24 "$out/nvidia_smi.txt" 2>/dev/null | sed 's/^/    | /'
gpus=$(grep -c '^GPU ' "$out/nvidia_smi.txt" 2>/dev/null)
fact gpus "${gpus:-0}"

# Where each library of collbench comes from (libmpi from the bundle, libnccl from the wheel).
list=(ldd "$collbench")
[[ ${exe[0]} == env ]] && list=("${exe[@]}" ldd "$collbench")
[[ ${exe[0]} == */ld-linux-x86-64.so.2 ]] && list=("${exe[0]}" --list "${exe[@]:1}" "$collbench")
if run_step libraries 20 "${list[@]}"; then
  grep -E 'libmpi\.|libnccl|libcudart|libstdc|libc\.so|not found' "$out/libraries.txt" | sed 's/^/    | /'
  missing=$(grep -c 'not found' "$out/libraries.txt")
  record libraries "$rc" "$took" "$((rc == 0 && missing == 0))" "${missing} not found"
else
  record libraries "" 0 0 "not run: out of time"
fi

# The NCCL it loads: its version, and whether it has every function the binaries import.
# shellcheck disable=SC2317  # run through run_step's bash -c
nccl_check() {  # nccl_check NCCL_DIR SYMBOL_LIST
  local py
  py=$(command -v python3 || command -v python) || { echo "no python: NCCL version not read"; return 1; }
  "$py" - "$1/libnccl.so.2" "$2" <<'PY'
import ctypes, os, sys
lib = ctypes.CDLL(sys.argv[1])
v = ctypes.c_int(0)
lib.ncclGetVersion(ctypes.byref(v))
code = v.value
print("NCCL version %d.%d.%d (code %d) from %s" % (code // 10000, code % 10000 // 100, code % 100, code,
                                                   os.path.realpath(sys.argv[1])))
if os.path.exists(sys.argv[2]):
    names = open(sys.argv[2]).read().split()
    missing = [n for n in names if not hasattr(lib, n)]
    print("imported NCCL functions: %d, missing from this libnccl: %s" % (len(names), " ".join(missing) or "none"))
    sys.exit(1 if missing else 0)
PY
}
export -f nccl_check
step nccl_library 30 nccl_check "$nccl_dir" "$rt/nccl-symbols.txt"
sed 's/^/    | /' "$out/nccl_library.txt" 2>/dev/null
fact nccl_version "$(sed -n 's/^NCCL version \([^ ]*\).*/\1/p' "$out/nccl_library.txt" 2>/dev/null)"

# --- device kernels ------------------------------------------------------------------------------
# Fill/verify GB/s per datatype on 1 GiB buffers next to the HBM peak and a D2D copy.
step fill_bandwidth 60 "${exe[@]}" "$testdir/fill_bandwidth" --bytes 1G --iters 10 --json "$out/fill_bandwidth.json"
tail_of fill_bandwidth 16

# A skipped test is a failure where nvidia-smi shows a GPU.
gtest_step() {
  local name=$1 limit=$2 skipped
  run_step "$name" "$limit" "${exe[@]}" "$testdir/$name" "--gtest_output=json:$out/$name.json" || {
    record "$name" "" 0 0 "not run: out of time"
    return
  }
  skipped=$(grep -c '"result": "SKIPPED"' "$out/$name.json" 2>/dev/null)
  if ((rc == 0 && ${skipped:-0} > 0 && ${gpus:-0} > 0)); then
    record "$name" "$rc" "$took" 0 "$skipped skipped although nvidia-smi lists a GPU"
  else
    record "$name" "$rc" "$took" "$((rc == 0 && ${gpus:-0} > 0))" "${skipped:-0} skipped"
  fi
  ((rc == 0)) || tail_of "$name"
}
gtest_step gpu_kernel_tests 60
gtest_step gpu_nccl_tests 90

# compute-sanitizer on the kernel tests, filtered to the small buffers (the 4 GiB grid-stride
# test would take minutes under it).
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer \
  /usr/local/cuda*/compute-sanitizer/compute-sanitizer "$rt"/sanitizer/compute-sanitizer 2>/dev/null | head -n 1)
fact compute_sanitizer "${sanitizer:-not found}"
sanitizer_filter=${SANITIZER_FILTER:-'DeviceKernels.*:-DeviceKernels.LargeBufferGridStride'}
for tool in memcheck racecheck; do
  if [[ -z $sanitizer ]]; then
    record "sanitizer_$tool" "" 0 0 "compute-sanitizer not found (PATH, /usr/local/cuda*/bin, build-gpu/runtime/sanitizer)"
  elif run_step "sanitizer_$tool" 60 "$sanitizer" --tool "$tool" --error-exitcode 3 --target-processes all \
    "${exe[@]}" "$testdir/gpu_kernel_tests" "--gtest_filter=$sanitizer_filter"; then
    errors=$(grep -m 1 -oE 'ERROR SUMMARY: [0-9]+ error' "$out/sanitizer_$tool.txt")
    record "sanitizer_$tool" "$rc" "$took" "$((rc == 0))" "${errors:-no ERROR SUMMARY line}"
    ((rc == 0)) || tail_of "sanitizer_$tool" 20
  else
    record "sanitizer_$tool" "" 0 0 "not run: out of time"
  fi
done

# --- failure paths -------------------------------------------------------------------------------
# The watchdog: a case that never starts must end the run with exit 1 and a COLLECTIVE_HANG naming
# that case after --timeout 20 s (plus start-up), not hang until the step's limit.
if run_step hang 60 "${exe[@]}" "$collbench" run "${run_args[@]}" --ops all_reduce -b 8 -e 64 -f 8 -n 2 \
  --timeout 20 --inject hang:0:1; then
  seen=$(grep -c COLLECTIVE_HANG "$out/hang.txt")
  named=$(grep COLLECTIVE_HANG "$out/hang.txt" | grep -cE 'all_reduce [a-z0-9]+ (in-place|out-of-place) [0-9]+ B')
  record hang "$rc" "$took" "$((rc == 1 && seen > 0 && named > 0 && took <= 45))" \
    "COLLECTIVE_HANG lines: $seen, naming the case: $named; want exit 1 within 45 s"
  grep -m 2 COLLECTIVE_HANG "$out/hang.txt" | sed 's/^/    | /'
else
  record hang "" 0 0 "not run: out of time"
fi

# A backend set-up failure on rank 0 must end the run with exit 1, naming the rank and the host.
# Without a GPU it fails earlier, for that reason: not a pass.
if run_step setup_failure 60 "${exe[@]}" "$collbench" run "${run_args[@]}" --inject setup:0 -b 8 -e 8; then
  named=$(grep -c 'rank 0' "$out/setup_failure.txt")
  record setup_failure "$rc" "$took" "$((rc == 1 && named > 0 && ${gpus:-0} > 0))" \
    "'rank 0' lines: $named; host $host named: $(grep -qF "$host" "$out/setup_failure.txt" && echo yes || echo no);\
 says injected: $(grep -q 'inject' "$out/setup_failure.txt" && echo yes || echo no)"
  tail_of setup_failure 4
else
  record setup_failure "" 0 0 "not run: out of time"
fi

# --- sweeps --------------------------------------------------------------------------------------
# check_wrong NAME JSON: every case checked and right; N/A (wrong null) only where NCCL cannot
# check (in-place all_to_all and sendrecv).
# shellcheck disable=SC2317  # run through run_step's bash -c
check_wrong() {
  local py
  py=$(command -v python3 || command -v python) || { echo "no python to read $2"; return 1; }
  "$py" - "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
cases = doc.get("cases", [])
right = na = 0
bad = []
for c in cases:
    w = c.get("wrong")
    where = "%s %s %s %s B" % (c.get("op"), c.get("dtype"), c.get("placement"), c.get("bytes"))
    if w == 0:
        right += 1
    elif w is None and c.get("placement") == "in_place" and c.get("op") in ("all_to_all", "sendrecv"):
        na += 1
    else:
        bad.append("%s: wrong=%s" % (where, w))
print("cases: %d, checked and right: %d, not checkable (N/A): %d, bad: %d, complete: %s"
      % (len(cases), right, na, len(bad), doc.get("complete")))
for b in bad[:20]:
    print("  " + b)
sys.exit(0 if cases and not bad and doc.get("complete") is True else 1)
PY
}
export -f check_wrong
sweep() {  # sweep NAME LIMIT ARGS...: the run (exit 0), then its JSON (every case right)
  local name=$1 limit=$2
  shift 2
  if run_step "$name" "$limit" "${exe[@]}" "$collbench" run "${run_args[@]}" "$@" --json "$out/$name.json"; then
    record "$name" "$rc" "$took" "$((rc == 0))" "$(grep -c '^\[FAIL\]' "$out/$name.txt") [FAIL] lines"
    ((rc == 0)) || { grep '^\[FAIL\]\|^\[WARN\]' "$out/$name.txt" | head -n 10 | sed 's/^/    | /'; tail_of "$name" 5; }
    step "${name}_wrong" 30 check_wrong "$name" "$out/$name.json"
    head -n 5 "$out/${name}_wrong.txt" | sed 's/^/    | /'
  else
    record "$name" "" 0 0 "not run: out of time"
  fi
}
# --- next to nccl-tests ---------------------------------------------------------------------------
# all_reduce_perf built here from nccl-tests' source against the same libnccl, then both at the
# same sizes, one GPU; the time ratio (collbench's mean over nccl-tests' out-of-place time) per size.
nt_src=${NCCL_TESTS_SRC:-$rt/nccl-tests}
nvcc_bin=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc 2>/dev/null | head -n 1)
nt_build=${TMPDIR:-/tmp}/collbench-nccl-tests
nccl_home=$(cd "${nccl_dir:-/nonexistent}/.." 2>/dev/null && pwd)
if [[ ! -f $nt_src/src/Makefile ]]; then
  record nccl_tests_build "" 0 0 "no nccl-tests source in $nt_src (clone github.com/NVIDIA/nccl-tests there, or set NCCL_TESTS_SRC)"
elif [[ -z $nvcc_bin ]]; then
  record nccl_tests_build "" 0 0 "no nvcc on this machine to build nccl-tests"
elif [[ ! -f $nccl_home/include/nccl.h ]]; then
  record nccl_tests_build "" 0 0 "no nccl.h next to $nccl_dir (NCCL_HOME for nccl-tests)"
else
  step nccl_tests_build 120 make -C "$nt_src/src" -j "$(nproc)" "$nt_build/all_reduce_perf" MPI=0 \
    BUILDDIR="$nt_build" CUDA_HOME="$(dirname "$(dirname "$nvcc_bin")")" NCCL_HOME="$nccl_home" \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90"
  ((rc == 0)) || tail_of nccl_tests_build 10
fi
compare_sizes=(-b 8 -e 64M -f 8 -w 5 -n 20)
if [[ -x $nt_build/all_reduce_perf ]]; then
  step nccl_tests_run 60 env "LD_LIBRARY_PATH=$nccl_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$nt_build/all_reduce_perf" "${compare_sizes[@]}" -g 1
  step collbench_run 60 "${exe[@]}" "$collbench" run "${run_args[@]}" --ops all_reduce --placement out \
    "${compare_sizes[@]}" --json "$out/collbench_run.json"
  # shellcheck disable=SC2317  # run through run_step's bash -c
  time_ratio() {  # time_ratio NCCL_TESTS_TEXT COLLBENCH_JSON
    python3 - "$1" "$2" <<'PY'
import json, sys
nt = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 6 and f[0].isdigit() and f[1].isdigit():
        nt[int(f[0])] = float(f[5])  # size, count, type, redop, root, out-of-place time (us)
cb = {c["bytes"]: c["time_us"]["mean"] for c in json.load(open(sys.argv[2]))["cases"]}
print("%12s %14s %14s %8s" % ("bytes", "nccl-tests us", "collbench us", "ratio"))
for size in sorted(set(nt) & set(cb)):
    print("%12d %14.2f %14.2f %8.2f" % (size, nt[size], cb[size], cb[size] / nt[size] if nt[size] else 0))
sys.exit(0 if set(nt) & set(cb) else 1)
PY
  }
  export -f time_ratio
  step time_ratio 20 time_ratio "$out/nccl_tests_run.txt" "$out/collbench_run.json"
  sed 's/^/    | /' "$out/time_ratio.txt" 2>/dev/null
  # The same with CUDA graphs: nccl-tests' -G 15 launches a graph of 20 calls 15 times, collbench's
  # -n 20 -G 15 launches graphs of 15 calls 20 times; both time 300 calls.
  step nccl_tests_graph_run 30 env "LD_LIBRARY_PATH=$nccl_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$nt_build/all_reduce_perf" "${compare_sizes[@]}" -g 1 -G 15
  step collbench_graph_run 30 "${exe[@]}" "$collbench" run "${run_args[@]}" --ops all_reduce --placement out \
    "${compare_sizes[@]}" -G 15 --json "$out/collbench_graph_run.json"
  step graph_time_ratio 20 time_ratio "$out/nccl_tests_graph_run.txt" "$out/collbench_graph_run.json"
  sed 's/^/    | /' "$out/graph_time_ratio.txt" 2>/dev/null
fi

# ncclCommSplit: one group per node (here one node of one GPU).
sweep split 45 --scope node --ops all_reduce,all_to_all -b 1M -e 64M -f 4
# Every op and datatype: 6 ops x 10 types x 7 sizes (8 B to 16 MiB) x 2 placements = 840 cases,
# few iterations: correctness across types, not bandwidth.
sweep sweep_all 90 --ops all -d all -b 8 -e 16M -f 8 -w 1 -n 3
# -G: every op captured in CUDA graphs of 10 calls; the check runs one call outside them.
sweep graph 45 --ops all -b 8 -e 16M -f 8 -w 2 -n 5 -G 10

# --- summary -------------------------------------------------------------------------------------
find "$out" -maxdepth 1 -name '*.txt' -empty -delete
write_summary
# Two files come back: summary.json and one tarball of everything else (at most 8 are wanted).
if (cd "$out" && find . -mindepth 1 -maxdepth 1 ! -name summary.json ! -name outputs.tar.gz -printf '%P\n' |
  tar -czf outputs.tar.gz -T - 2>/dev/null); then
  find "$out" -mindepth 1 -maxdepth 1 ! -name summary.json ! -name outputs.tar.gz -exec rm -rf {} +
fi
echo "--- summary ($((SECONDS - start_s)) s; summary.json and outputs.tar.gz in $out)"
for i in "${!names[@]}"; do
  printf '  %-18s %-5s exit %-4s %4ss  %s\n' "${names[i]}" "$([[ ${passes[i]} == true ]] && echo PASS || echo FAIL)" \
    "${rcs[i]}" "${secs[i]}" "${notes[i]}"
done
exit $failed
