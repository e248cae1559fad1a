#!/usr/bin/env bash
# The Debian package in a clean Debian 12 root: `apt-get install --no-install-recommends ./collbench_*.deb`
# in a fresh `debootstrap --variant=minbase bookworm` root proves the declared Depends are enough; then
# the installed collbench runs there (--version, a 2-rank `mpirun ... collbench run --backend mpi`) and
# must find its installed thresholds and known issues with no options (the source tree is not in the root).
# Root only; exit 77 (skipped, with the reason) when not root, or debootstrap or the mirror is missing,
# unless COLLBENCH_CLEAN_ROOT_REQUIRED=1 (.ci/run), where each of those fails instead.
#   COLLBENCH_DEB             the package to test (default: scripts/package.sh builds one)
#   COLLBENCH_DEB_MIRROR      the Debian mirror (default: the first bookworm one in /etc/apt/sources.list{,.d})
#   COLLBENCH_ROOT_CACHE      where the pristine root and the downloaded packages are kept between runs
#                             (default /var/cache/collbench/clean-root); a rerun unpacks the root (seconds)
# Usage: tests/install/deb_clean_root.sh
set -euo pipefail
self=$(realpath "$0")
[ -z "${COLLBENCH_DEB:-}" ] || COLLBENCH_DEB=$(realpath -m "$COLLBENCH_DEB")
cd "$(dirname "$self")/../.."
started=$SECONDS
say() { echo "deb_clean_root: $*"; }
skip() {
  if [ "${COLLBENCH_CLEAN_ROOT_REQUIRED:-0}" = 1 ]; then
    say "FAIL: $* (COLLBENCH_CLEAN_ROOT_REQUIRED=1: not skipped)"
    exit 1
  fi
  say "SKIP: $*"
  exit 77
}
fail() {
  say "FAIL: $*"
  exit 1
}

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, mounts); running as uid $(id -u)"
command -v debootstrap >/dev/null || skip "debootstrap is not installed (apt-get install debootstrap)"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"

# Every mount below is made in a private mount namespace: none reaches the host, and all go when the
# test ends, however it ends. The trap unmounts them in order too, before the root is deleted.
if [ "${COLLBENCH_CLEAN_ROOT_INNER:-}" != 1 ]; then
  unshare --mount --propagation private true 2>/dev/null || skip "cannot make a mount namespace (unshare --mount)"
  exec unshare --mount --propagation private -- env COLLBENCH_CLEAN_ROOT_INNER=1 COLLBENCH_DEB="${COLLBENCH_DEB:-}" \
    bash "$self" "$@"
fi

# The mirror: the first one the host's apt uses for bookworm itself (not -security or -updates).
mirror_from_sources() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++;
                       if ($(i + 1) == "bookworm") { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822: stanzas apart by blank lines; one with Types: deb and the suite bookworm.
    awk 'BEGIN { RS = ""; FS = "\n" }
         { uri = ""; deb = 0; suite = 0
           for (i = 1; i <= NF; i++) {
             if ($i ~ /^Types:/ && $i ~ /[ \t]deb([ \t]|$)/) deb = 1
             if ($i ~ /^URIs:/) { split($i, w, /[ \t]+/); uri = w[2] }
             if ($i ~ /^Suites:/ && $i ~ /[ \t]bookworm([ \t]|$)/) suite = 1
           }
           if (deb && suite && uri != "") { print uri; exit } }' "$f"
  done
}
mirror="${COLLBENCH_DEB_MIRROR:-$(mirror_from_sources | head -n 1)}"
mirror="${mirror:-http://deb.debian.org/debian}"
host_port=$(sed -E 's#^[a-z]+://([^/:]+)(:([0-9]+))?.*#\1 \3#' <<<"$mirror")
read -r mirror_host mirror_port <<<"$host_port"
[ -n "$mirror_port" ] || case "$mirror" in https:*) mirror_port=443 ;; *) mirror_port=80 ;; esac
timeout 10 bash -c "exec 3<>/dev/tcp/$mirror_host/$mirror_port" 2>/dev/null ||
  skip "the Debian mirror $mirror cannot be reached ($mirror_host:$mirror_port)"
say "mirror $mirror"

# The package.
deb="${COLLBENCH_DEB:-}"
if [ -z "$deb" ]; then
  say "building the package (scripts/package.sh; COLLBENCH_DEB=FILE takes a built one)"
  deb=$(scripts/package.sh | tail -n 1)
fi
[ -f "$deb" ] || fail "no package at '$deb'"
deb=$(realpath "$deb")
say "package $deb"

cache="${COLLBENCH_ROOT_CACHE:-/var/cache/collbench/clean-root}"
mkdir -p "$cache/apt-archives/partial"
pristine="$cache/bookworm-minbase-$(sha256sum <<<"$mirror" | cut -c1-12).tar"
work=$(mktemp -d /var/tmp/collbench-clean-root.XXXXXX)
root="$work/root"
mounted=()
cleanup() {
  local rc=$? i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -l "${mounted[$i]}" 2>/dev/null || say "could not unmount ${mounted[$i]}"
  done
  # Never delete through a mount that is still there (the host's /dev is bound in the root).
  if findmnt -rn -o TARGET | grep -q "^$work/"; then
    say "mounts are left under $work: not deleted"
  else
    rm -rf --one-file-system "$work"
  fi
  say "wall time $((SECONDS - started)) s (exit $rc)"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A clean root: made once by debootstrap and kept as a tarball, unpacked fresh on every run.
mkdir -p "$root"
(
  flock 9
  if [ ! -s "$pristine" ]; then
    say "debootstrap --variant=minbase bookworm (once; kept in $pristine)"
    fresh="$work/fresh"
    step=$SECONDS
    debootstrap --variant=minbase --cache-dir="$cache/apt-archives" bookworm "$fresh" "$mirror" \
      >"$work/debootstrap.log" 2>&1 || { tail -n 20 "$work/debootstrap.log"; fail "debootstrap failed"; }
    rm -rf "$fresh/var/cache/apt/archives/"*.deb "$fresh/var/lib/apt/lists/"*_* 2>/dev/null || true
    tar -C "$fresh" -cf "$pristine.partial" . && mv "$pristine.partial" "$pristine"
    rm -rf --one-file-system "$fresh"
    say "debootstrap took $((SECONDS - step)) s"
  fi
) 9>"$cache/lock"
tar -C "$root" -xf "$pristine"

mnt() { # mnt TARGET MOUNT-ARGUMENTS...: mounts, and remembers it for the trap
  local target="$1"
  shift
  mkdir -p "$target"
  mount "$@" "$target" || fail "mount $* $target failed"
  mounted+=("$target")
}
mnt "$root/proc" -t proc proc
mnt "$root/sys" -t sysfs -o ro sysfs
mnt "$root/dev" --bind /dev
mnt "$root/dev/pts" --bind /dev/pts
mnt "$root/dev/shm" -t tmpfs -o mode=1777 tmpfs
mnt "$root/var/cache/apt/archives" --bind "$cache/apt-archives"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
cp "$deb" "$root/tmp/"
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

step=$SECONDS
say "apt-get install --no-install-recommends ./$(basename "$deb") in the clean root"
in_root apt-get update -qq >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get update in the root failed"; }
# The downloaded packages are shared with other runs of this test: one apt-get install at a time.
exec 8>"$cache/apt-archives.lock"
flock -w 900 8 || fail "another run held $cache/apt-archives.lock for 15 minutes"
in_root apt-get install -y -q --no-install-recommends "/tmp/$(basename "$deb")" >"$work/apt.log" 2>&1 ||
  { tail -n 30 "$work/apt.log"; fail "apt-get install of the package failed (a Depends that bookworm lacks, or a broken package)"; }
flock -u 8
set_up=$(sed -n 's/^Setting up \([^: ]*\).*/\1/p' "$work/apt.log")
say "installed in $((SECONDS - step)) s: collbench and $(($(wc -l <<<"$set_up") - 1)) packages it pulled in ($(grep -xE \
  'libopenmpi3|openmpi-bin|libfabric1|libfmt9|libpmix2' <<<"$set_up" | sort | tr '\n' ' ')...)"
in_root dpkg -s collbench | grep -E '^(Version|Depends):' | sed 's/^/  /'

[ ! -e "$root$(realpath thresholds)" ] || fail "the source thresholds are inside the root: the test proves nothing"
for f in /usr/bin/collbench /usr/share/collbench/thresholds/known-issues.json \
  /usr/share/collbench/thresholds/p5.48xlarge.json /usr/share/doc/collbench/collbench-help.txt; do
  [ -f "$root$f" ] || fail "the package did not install $f"
done
version=$(in_root collbench --version) || fail "collbench --version failed in the root"
say "installed: $version"
in_root ldd /usr/bin/collbench | grep -E 'not found|cuda|nccl' && fail "the installed collbench lacks a library or links CUDA"

# A 2-rank sweep from the installed paths. Open MPI in a root with no other process manager: the
# isolated launcher (no ssh), shared memory between the two local ranks, as root.
step=$SECONDS
out="$work/run.txt"
rc=0
in_root env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated \
  OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1 \
  mpirun --allow-run-as-root --oversubscribe -np 2 collbench run --backend mpi -b 8 -e 64K -f 4 -n 5 --no-progress \
  --instance-type p5.48xlarge >"$out" 2>&1 || rc=$?
say "mpirun -np 2 collbench run --backend mpi -b 8 -e 64K ...: exit $rc in $((SECONDS - step)) s"
grep -E '^# +size|^ +32768 |^# Avg bus bandwidth' "$out" | sed 's/^/  /'
# 0: no [FAIL]; 3: a [FAIL], expected here: a p5.48xlarge has EFA devices and a high memlock limit.
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "collbench run exited $rc"
grep -q '^# Avg bus bandwidth' "$out" || fail "the run printed no result table"
grep -q '\[PASS\] RESULTS_EXACT' "$out" || fail "the results were not all exact"
# The installed thresholds: p5.48xlarge's profile judged the sweep (not "no thresholds for ... in DIR").
grep 'no thresholds for' "$out" && fail "the installed thresholds were not found"
grep -qE '\] (BUSBW_OK|BUSBW_LOW|BUSBW_BELOW_THRESHOLD|THRESHOLD_SIZE_NOT_REACHED)' "$out" ||
  fail "no finding of p5.48xlarge's thresholds: the installed profile was not read"
# The installed known issues: read from /usr/share/collbench/thresholds (not "no FILE (give one ...)").
grep 'known-bad version combinations not checked: no ' "$out" && fail "the installed known-issues.json was not found"
grep -qE '\] (NO_)?KNOWN_BAD_VERSIONS|/usr/share/collbench/thresholds/known-issues.json' "$out" ||
  fail "no sign that /usr/share/collbench/thresholds/known-issues.json was read"
grep -E '\] (BUSBW_|THRESHOLD_SIZE|KNOWN_)' "$out" | head -n 4 | cut -c1-160 | sed 's/^/  /'
say "PASS: the package installs in a clean bookworm root with its Depends alone, and runs from there"
