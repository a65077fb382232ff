#!/usr/bin/env bash
# Session 24 (2 GPUs): 4096^2 (issue 13's case, the resident kernel's 5.14 on four GPUs) against the
# cycle with fuse 8 now that the fused 2D march takes fast steps: one rank at the four-GPU block
# (2048^2) and two GPUs at 4096^2. Usage: scripts/call_s24e.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s24e
. scripts/device_run.sh
bundle_on_exit
export ITERS=4800
t "4096^2 blocks"
for np in 1 "$NGPU"; do
    size=2048x2048; [ "$np" != 1 ] && size=4096x4096
    for cfg in "32 8 cycle ipc-put" "16 8 cycle ipc-put" "48 8 cycle ipc-put" "48 3 cycle ipc-put" "16 8 fused ipc" "8 1 persistent ipc" "32 8 persistent ipc"; do
        set -- $cfg
        run1 "$np" $size $1 $2 $3 $4
    done
done | tee "$OUT/x4096.txt"
t done
