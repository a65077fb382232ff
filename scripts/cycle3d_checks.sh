#!/usr/bin/env bash
# Where a 3D sweep's time goes on one GPU (issues 9 and 13: 3D 256³ and 512³ in total on 4 GPUs):
# the fused pass alone (`halox roofline` at a rank's block) beside the whole cycle at the same
# block (one rank, periodic: the exchange is the rank's messages to itself) with its phases
# (no graph, so every phase is timed), the cycle with graphs, and the persistent schedule.
# Stages: roof, phases, graph, persistent. SIZES: the blocks (default: 256x128x128 and 512x256x256,
# a rank's block of 256³ and 512³ on 4 GPUs, which halox splits 1 x 2 x 2).
# Usage: STAGES="roof phases" SIZES="256x256x64" scripts/cycle3d_checks.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=cycle3d
. scripts/device_run.sh
bundle_on_exit
want() { [ -z "${STAGES:-}" ] || [[ " $STAGES " == *" $1 "* ]]; }
SIZES=${SIZES:-256x128x128 512x256x256}
# nx ny nz depth transport pack message unpack inner outer compute us_per_sweep graph fuse schedule kernel
cols() { cut -d, -f2,3,4,11,16,20,23,26,29,32,35,48,51,55,64,68; }
R="--backend cuda --iters 400 --repeat 5 --pattern direct --format csv --quiet"
if want roof; then
    for size in $SIZES; do
        t "fused passes alone at $size (roofline, medians of 7)"
        timeout 120 "$H" roofline --backend cuda --small 0 --size2d 1024 --size3d "$size" >"$OUT/roof_$size.txt" 2>&1
        grep -Ei "copy|jacobi7|star13" "$OUT/roof_$size.txt" | head -14
    done
fi
if want phases; then
    for size in $SIZES; do
        t "cycle phases at $size, one rank (ms per phase summed over the run; no graph, overlap off): nx,ny,nz,depth,transport,pack,message,unpack,inner,outer,compute,us,graph,fuse,schedule,kernel"
        timeout 200 "$H" run $R --size "$size" --depth 4 --fuse 1,4 --transport ipc-put,nccl --overlap=off 2>&1 | cols | tee -a "$OUT/phases.csv"
    done
fi
if want graph; then
    for size in $SIZES; do
        t "cycle with graphs at $size: overlap off/on, fuse 1/2/4"
        timeout 200 "$H" run $R --size "$size" --depth 4 --fuse 1,2,4 --transport ipc-put --graph --overlap=off,on 2>&1 | cols | grep -v '^nx' |
            tee -a "$OUT/graph.csv"
    done
fi
if want persistent; then
    for size in $SIZES; do
        t "persistent at $size: depth 2, 4"
        timeout 200 "$H" run $R --size "$size" --depth 2,4 --transport ipc --schedule persistent 2>&1 | cols | grep -v '^nx' |
            tee -a "$OUT/persistent.csv"
    done
fi
t done
