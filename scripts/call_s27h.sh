#!/usr/bin/env bash
# Session 27, call 8 (issue 9): plain 3D tile shapes at a 4-GPU rank's blocks with partial tiles
# (session 26's lead: 256x140x140 at 56% of copy against 73% at 256x128x128), HALOX_TILE
# BY3 x CHUNK3 [x ROWS3] with the default build, alternated 3 rounds (scripts/tile_builds.sh).
set -u
cd "$(dirname "$0")/.."
ROUNDS=3 SIZES="256x128x128 256x140x140 280x152x152 128x140x140" ENTRIES="def:halox:- c8:halox:4,8,8,8 c32:halox:4,8,8,32 \
y4c8:halox:4,8,4,8 y4c16:halox:4,8,4,16 y4c32:halox:4,8,4,32 y2c16:halox:4,8,2,16 r2:halox:4,8,8,16,0,2 y4r2:halox:4,8,4,16,0,2" \
    DEVICE_NAME=s27h bash scripts/tile_builds.sh "${1:-build-dev}"
