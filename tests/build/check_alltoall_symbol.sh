#!/usr/bin/env bash
# all_to_all goes through grouped ncclSend/ncclRecv in both placements (as nccl-tests' alltoall.cu),
# so the binary must not reference ncclAlltoAll (NCCL 2.28+): it loads any libnccl.so.2 and its two
# columns come from one primitive.  Usage: check_alltoall_symbol.sh BINARY
set -euo pipefail
bin=$1
symbols=$(nm -D "$bin")  # read once: grep -q on a pipe would end nm early (SIGPIPE, under pipefail)
line=$(grep ' ncclAlltoAll$' <<<"$symbols" || true)
echo "nm -D $bin: ${line:-no ncclAlltoAll}"
if [[ -n $line ]]; then echo "FAIL: the binary references ncclAlltoAll: $line"; exit 1; fi
grep -q ' ncclSend$' <<<"$symbols" || { echo "FAIL: no ncclSend reference: is this the nccl build?"; exit 1; }
echo "ok"
