#!/usr/bin/env bash
# Session 26, call 5 (4 GPUs): ipc-put's flagged words by whole phase (the new build) beside `base`
# (flagged words message by message, HEAD's rule), alternated rounds, over the cycle cases of the
# 4-GPU targets; one multigrid job each; the GPU tests of ipc-put and mg at 4 ranks.
# Usage: scripts/call_s26e.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s26e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t side by side
for round in 1 2; do
    for v in halox halox-base; do
        RUN_EXTRA="--grid 1x2x2" BIN=$B/$v ITERS=384 run1 4 256x256x256 12 4 cycle ipc-put | sed "s/^/$v r$round /"
        BIN=$B/$v ITERS=240 run1 4 512x512x512 8 4 cycle ipc-put | sed "s/^/$v r$round /"
        BIN=$B/$v ITERS=1920 run1 4 16384x16384 32 8 cycle ipc-put | sed "s/^/$v r$round /"
        BIN=$B/$v ITERS=1920 run1 4 8192x8192 32 8 cycle ipc-put | sed "s/^/$v r$round /"
        BIN=$B/$v ITERS=1920 run1 4 4096x4096 32 8 cycle ipc-put | sed "s/^/$v r$round /"
        BIN=$B/$v ITERS=1920 run1 4 1024x1024 16 8 cycle ipc-put | sed "s/^/$v r$round /"
    done
done | tee "$OUT/side.txt"
t mg
for v in halox halox-base; do H=$B/$v mg_run $v 4 -- --transport ipc-put; done | tee "$OUT/mg.txt"
t gpu tests
gpu_tests 300 gpu_ipc-put_np4 gpu_mg_np4
t done
