#!/usr/bin/env bash
# ncclAlltoAll (NCCL 2.28) must be a weak reference in the binary, so it still loads an older
# libnccl.so.2 and falls back to grouped send/recv there.  Usage: check_weak_alltoall.sh BINARY NCCL_H
set -euo pipefail
bin=$1 header=$2
code=$(sed -n 's/^#define NCCL_VERSION_CODE \([0-9]*\).*/\1/p' "$header")
line=$(nm -D "$bin" | grep ' ncclAlltoAll$' || true)
echo "NCCL_VERSION_CODE of $header: ${code:-unknown}; nm -D: ${line:-no ncclAlltoAll}"
if [[ ${code:-0} -ge 22800 && -z $line ]]; then echo "FAIL: built against NCCL >= 2.28 but ncclAlltoAll is not referenced"; exit 1; fi
if [[ -n $line && $line != *" w ncclAlltoAll" ]]; then echo "FAIL: ncclAlltoAll is a strong reference: $line"; exit 1; fi
echo "ok"
