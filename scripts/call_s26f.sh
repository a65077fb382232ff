#!/usr/bin/env bash
# Session 26, call 6 (4 GPUs): margin for 3D 256^3 (10.98 us a sweep in call 5): put-get tuning builds
# batch8 (-DHX_BATCH=8 in ipc_put.cu) and sdirect (-DHX_IK_SELF_DIRECT=1) beside the default, and the
# default at depth 16 and on grid 1x1x4; alternated rounds. Usage: scripts/call_s26f.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s26f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
for round in 1 2; do
    for v in halox halox-batch8 halox-sdirect; do
        RUN_EXTRA="--grid 1x2x2" BIN=$B/$v ITERS=384 run1 4 256x256x256 12 4 cycle ipc-put | sed "s/^/$v r$round /"
    done
    RUN_EXTRA="--grid 1x2x2" ITERS=384 run1 4 256x256x256 16 4 cycle ipc-put | sed "s/^/halox r$round /"
    RUN_EXTRA="--grid 1x1x4" ITERS=384 run1 4 256x256x256 12 4 cycle ipc-put | sed "s/^/halox 1x1x4 r$round /"
done | tee "$OUT/side.txt"
t done
