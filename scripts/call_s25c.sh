#!/usr/bin/env bash
# Session 25, call 3 (2 GPUs): the plain 3D march with the last column's leftover vectors laid over
# rows (sweep3d_place) beside the build before it (halox-base), scripts/tile_builds.sh at the
# default sizes and the blocks of multi-GPU ranks; then gpu_np1, gpu_np2, gpu_sanitizer, gpu_mg_np2.
# Usage: scripts/call_s25c.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s25c
. scripts/device_run.sh
bundle_on_exit
ENTRIES="base:halox-base:- tail:halox:-" SIZES="512 256x256x512 512x512x256 256 128" ROUNDS=${ROUNDS:-3} \
OUT=$OUT/tile bash scripts/tile_builds.sh "$B" > "$OUT/tile.txt" 2>&1; tail -22 "$OUT/tile.txt"
for t in gpu_np1 gpu_np2 gpu_sanitizer gpu_mg_np2; do
    t "$t"
    gpu_tests 150 "$t"
done
t done
