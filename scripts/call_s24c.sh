#!/usr/bin/env bash
# Session 24 (2 GPUs): 2D settings after the fused march's fast steps. 8192^2 and 16384^2 over depth
# and fuse (cycle: ipc-put and nccl, graphs; persistent: ipc), and one rank at the 4-GPU ranks'
# blocks (4096^2 and 8192^2 a GPU), medians of 5 (run1 in device_run.sh).
# Usage: [BIN=binary] scripts/call_s24c.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s24c
. scripts/device_run.sh
bundle_on_exit
unpack_variants

t "2D grid"
for size in 8192x8192 16384x16384; do
    for d in 16 32 48; do
        for f in 4 6 8; do run1 "$NGPU" $size $d $f cycle ipc-put; done
    done
    run1 "$NGPU" $size 32 8 cycle nccl
    run1 "$NGPU" $size 16 8 persistent ipc
    run1 "$NGPU" $size 32 8 persistent ipc
done | tee "$OUT/grid2d.txt"
t "one rank at the 4-GPU blocks"
for size in 4096x4096 8192x8192; do
    for cfg in "32 8" "16 8" "32 4"; do set -- $cfg; run1 1 $size $1 $2 cycle ipc-put; done
done | tee "$OUT/one.txt"
t done
