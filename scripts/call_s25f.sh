#!/usr/bin/env bash
# Session 25, call 6 (4 GPUs): 3D 256^3 jacobi7 (issue 13's 11 us target) over the process grid,
# deeper halos and overlap: cycle, ipc-put, fuse 4, graphs, medians of 5. Usage: scripts/call_s25f.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s25f
. scripts/device_run.sh
bundle_on_exit
cols() { cut -d, -f2,3,4,11,16,48,51,55,64,68; }
for grid in 2x2x1 1x2x2 4x1x1 1x4x1 1x1x4; do
    for ov in off on; do
        $MPI -np "$NGPU" $H run --backend cuda --transport ipc-put --size 256x256x256 --grid $grid --iters 384 --repeat 5 \
            --pattern direct --depth 12,16,24 --fuse 4 --graph --overlap=$ov --format csv --quiet 2>&1 | cols | grep -v "^nx\|halo messages" |
            sed "s/^/$grid,ov-$ov,/"
    done
done | tee "$OUT/s256.csv"
t done
