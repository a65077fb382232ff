#!/usr/bin/env bash
# Around the best cycle settings of x4_targets.sh's cases that miss their targets (session 19, the
# first 4-GPU call): deeper halos and other fuse depths, overlap on and off, both patterns. One
# job per case, medians of 5, CSV rows as x4_targets.sh prints them. About 3 minutes on 4 H200s.
# Session 20 added the process grids (grids3d, grids2d: each block shape beside the default one, at
# the best depth and pass) and the multigrid's agglomeration threshold (mgagg: 16384 cells moves the
# 4-GPU 16^3-a-rank level onto rank 0's CPU; one GPU keeps its hierarchy).
# Session 21 added mggrids: multigrid weak scaling over each 4-rank process grid (one GPU beside them).
# Usage: [JOBS="3d256 4096 8192 16384 3d512 grids3d grids2d grids8k grids16k 3d256f mgagg mggrids"] scripts/x4_explore.sh build-dev
# (default: the first five)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=x4explore
. scripts/device_run.sh
bundle_on_exit
cols() { cut -d, -f2,3,4,6,7,8,11,12,13,16,48,51,55,64,68 | grep -v "halo messages"; } # nx ny nz px py pz depth pattern overlap transport us graph fuse schedule kernel
JOBS=${JOBS:-3d256 4096 8192 16384 3d512}
job() { local label=$1; shift; [[ " $JOBS " == *" $label "* ]] || return 0; t "$label"; $MPI -np "$NGPU" $H run --backend cuda --repeat 5 --format csv --quiet "$@" 2>&1 | cols | tee "$OUT/$label.csv"; }
job 3d256 --transport ipc-put --size 256x256x256 --iters 480 --depth 8,12,16,24 --fuse 3,4 --graph --overlap=on,off --pattern direct,staged
job 4096 --transport ipc-put --size 4096x4096 --iters 4800 --depth 16,24,32 --fuse 3,4,5,6 --graph --pattern direct --overlap=on,off
job 8192 --transport ipc-put --size 8192x8192 --iters 960 --depth 16,32 --fuse 4,5,6,7 --graph --pattern direct --overlap=on,off
job 16384 --transport ipc-put,nccl --size 16384x16384 --iters 384 --depth 16,32 --fuse 4,5,6,7 --graph --pattern direct
job 3d512 --transport ipc-put --size 512x512x512 --iters 192 --depth 4,8,12 --fuse 3,4 --graph --overlap=on,off --pattern direct
# process grids: the default (1x2x2 for 256^3, 2x2 for 4096^2 and 8192^2) beside slabs along each axis
job grids3d --transport ipc-put --size 256x256x256 --iters 480 --depth 8,12,16 --fuse 4 --graph --overlap=off --pattern direct \
    --grid 1x2x2,2x2x1,1x1x4,1x4x1,4x1x1
job grids2d --transport ipc-put --size 4096x4096 --iters 4800 --depth 32,48,64 --fuse 3,4 --graph --overlap=off --pattern direct \
    --grid 2x2,1x4,4x1
job grids8k --transport ipc-put --size 8192x8192 --iters 960 --depth 32 --fuse 4 --graph --overlap=off --pattern direct \
    --grid 2x2,1x4,4x1
# 3D 256^3: shallower passes (a z chunk's ramp of 2(LR + R) planes is 1.6x at fuse 4: results.md, session 20)
job 3d256f --transport ipc-put --size 256x256x256 --iters 480 --depth 6,8,12 --fuse 2,3,4 --graph --overlap=off --pattern direct
# 16384^2: 8192^2 blocks run passes at 2.3x copy on one H200, 16384^2 at 3.6x (longer marches, more
# rounds): taller blocks (4x1: 4096 x 16384 a GPU) may reach the latter rate (not yet timed)
job grids16k --transport ipc-put --size 16384x16384 --iters 384 --depth 32 --fuse 4,6,7,8 --graph --overlap=off --pattern direct \
    --grid 2x2,1x4,4x1
if [[ " $JOBS " == *" mgagg "* ]]; then
    t "mgagg: multigrid weak scaling, the default agglomeration beside 16384 cells, ipc-put, 3 rounds"
    BINS="default:halox agg16k:halox:--agglomerate=16384" NPS="1 $NGPU" REPS=${MGREPS:-3} \
        MGOPTS="--transport ipc-put --pattern direct" OUT="$OUT/mgagg" scripts/mg_scaling_checks.sh "$B" |
        grep -A8 "medians of the F-cycle"
fi
t done
if [[ " $JOBS " == *" mggrids "* ]]; then
    t "mggrids: multigrid 256^3 a rank, ipc-put, one GPU beside each $NGPU-rank process grid, ${MGREPS:-3} alternated rounds"
    for rep in $(seq ${MGREPS:-3}); do
        mg_run "one-np1-$rep" 1 -- --transport ipc-put --pattern direct
        for g in ${MGGRIDS:-2x2x1 4x1x1 1x4x1 1x1x4}; do
            mg_run "g$g-np$NGPU-$rep" "$NGPU" -- --transport ipc-put --pattern direct --grid "$g"
        done
    done | tee "$OUT/mggrids.txt"
    for l in one ${MGGRIDS:-2x2x1 4x1x1 1x4x1 1x1x4}; do
        [ "$l" = one ] || l=g$l
        grep "^$l-np" "$OUT/mggrids.txt" | sed 's/.*F-cycle median \([0-9.e+-]*\) s.*/\1/' | sort -g |
            awk -v l="$l" '{v[NR] = $1} END {if (NR) print l ": F-cycle median " v[int((NR + 1) / 2)] " s of " NR}'
    done
fi
