#!/usr/bin/env bash
# Session 34, call 6, one H200 (nvidia-h200). Why star13 is slow at small 3D grids (128^3: 48% of
# copy graph-replayed, jacobi7 91%): the tile and kernel knobs, no build change, graph-replayed rows
# at 128^3 and 256x128x128, 3 rounds. HALOX_TILE=BY2,CHUNK2,BY3,CHUNK3[,PIPE[,ROWS3]].
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s34f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
E="end:halox:-:--graph nopair:halox:HALOX_SWEEP_PAIR=0:--graph by4:halox:HALOX_TILE=4,8,4,8:--graph"
E="$E by2:halox:HALOX_TILE=4,8,2,8:--graph pipe2:halox:HALOX_TILE=4,8,8,8,2:--graph pipe1by4:halox:HALOX_TILE=4,8,4,8,1:--graph"
E="$E rows2:halox:HALOX_TILE=4,8,4,8,0,2:--graph c16:halox:HALOX_TILE=4,8,8,16:--graph"
t roof128
roof_args "$E" "--size2d 256 --size3d 128 --small 0 --no-fused --repeat 7" 3 roof128
t roof256x128
roof_args "$E" "--size2d 256 --size3d 256x128x128 --small 0 --no-fused --repeat 7" 3 roof256x128
t done
