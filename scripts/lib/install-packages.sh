#!/usr/bin/env bash
# Installs the Debian packages named in the list files given (scripts/packages/*.txt) that are not
# installed yet, as root or with sudo. --list prints the names instead.
set -euo pipefail

list=0
[ "${1:-}" = --list ] && { list=1; shift; }
packages=()
for file in "$@"; do
  # One package a line; '#' starts a comment.
  while read -r name; do
    [ -n "$name" ] && packages+=("$name")
  done < <(sed 's/#.*//; s/[[:space:]]//g' "$file")
done
if [ "$list" = 1 ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
echo "install-packages: installing ${missing[*]}"
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
