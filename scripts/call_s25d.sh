#!/usr/bin/env bash
# Session 25, call 4 (one GPU): plain 3D sweeps with L2 prefetches 2 planes ahead (HX_SWEEP3D_PF=2,
# which jacobi7 fp32 alone lacks by default) at 4 and 5 blocks a multiprocessor (HX_SWEEP3D_CAP)
# and uncapped, beside the default build (scripts/tile_builds.sh). Usage: scripts/call_s25d.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s25d
. scripts/device_run.sh
bundle_on_exit
ENTRIES="base:halox:- c4pf2:halox-c4pf2:- c5pf2:halox-c5pf2:- pf2:halox-pf2:-" SIZES="512 256x256x512 512x512x256 256" \
ROUNDS=${ROUNDS:-3} OUT=$OUT/tile bash scripts/tile_builds.sh "$B" > "$OUT/tile.txt" 2>&1; tail -18 "$OUT/tile.txt"
t done
