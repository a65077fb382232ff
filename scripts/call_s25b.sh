#!/usr/bin/env bash
# Session 25, call 2 (one GPU): plain 3D sweeps with wider blocks in x (HX_SWEEP3D_BX 64, 128: a block
# covers 1/2 or all of a 512-cell row) beside the default 32 x 8 (scripts/tile_builds.sh), then the
# GPU suite's fused and schedule tests at one rank on the fused 2D knobs' build.
# Usage: scripts/call_s25b.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s25b
. scripts/device_run.sh
bundle_on_exit
ENTRIES="base:halox:- b64y4:halox-bx64:4,8,4,16 b64y2:halox-bx64:4,8,2,16 b128y2:halox-bx128:4,8,2,16 \
b128y1:halox-bx128:4,8,1,16 b128y2c32:halox-bx128:4,8,2,32 b32y8c32:halox:4,8,8,32" \
OUT=$OUT/tile bash scripts/tile_builds.sh "$B" > "$OUT/tile.txt" 2>&1; cat "$OUT/tile.txt" | tail -20
for t in gpu_fuse_np1 gpu_schedule_np1; do
    t "$t"
    gpu_tests 150 "$t"
done
t done
